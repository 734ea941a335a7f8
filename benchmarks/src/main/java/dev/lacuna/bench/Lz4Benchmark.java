package dev.lacuna.bench;

import dev.lacuna.base.InternalKey;
import dev.lacuna.kv.KeyPrefix;
import dev.lacuna.kv.SstableOptions;
import dev.lacuna.sstable.BlockCache;
import dev.lacuna.sstable.Lz4;
import dev.lacuna.sstable.SstableReader;
import dev.lacuna.sstable.SstableWriter;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Which lz4-java implementation a store should use: the JNI one ({@code jni}) or the pure-Java one
 * ({@code java}); the at.yawk fork's "unsafe" instance is the pure-Java one, so there is no third.
 *
 * <ul>
 *   <li>{@code compress} / {@code decompress}: one 4 KiB data block as the table writer lays it out (restart
 *       points every 16 entries, shared key prefixes), of item-like entries: a 16-byte key
 *       ({@code p<partition>/o<order>}) and a ~150-byte item of attribute names, short strings, numbers and a
 *       random id ({@code content=items}, compresses about 2–3×), or KvStoreBenchmark's random 100-byte values
 *       ({@code content=random}, incompressible: what the writer tries on its first blocks before it gives
 *       up). Compression is the writer's {@code fastCompressor}, decompression the reader's
 *       {@code safeDecompressor}, both into preallocated arrays.</li>
 *   <li>{@code tableGet}: a point read through {@link SstableReader#get} of a random key of a table of 20,000
 *       such items (about 3.3 MB raw) in memory ({@code MemVfs}) with no block cache, so every read finds
 *       the block with the index, copies it, verifies its CRC and decompresses it: the read path that
 *       decompression is part of, to see what share of it the implementation decides.</li>
 * </ul>
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar Lz4Benchmark -f 1 -wi 3 -w 2s -i 5 -r 2s
 * # smoke: java -jar benchmarks/target/benchmarks.jar Lz4Benchmark -f 1 -wi 0 -i 1 -r 1s
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class Lz4Benchmark {
    private static final int BLOCK_SIZE = 4096;
    private static final int TABLE_ITEMS = 20_000;
    private static final String[] STATUS = {"open", "shipped", "delivered", "cancelled"};

    /** One block, compressed once at setup, and the arrays to compress and decompress it into. */
    @State(Scope.Thread)
    public static class BlockState {
        @Param({"jni", "java"})
        public String impl;

        @Param({"items", "random"})
        public String content;

        LZ4Compressor compressor;
        LZ4SafeDecompressor decompressor;
        byte[] block;
        byte[] compressed;
        int compressedLength;
        byte[] out;

        @Setup(Level.Trial)
        public void setUp() {
            LZ4Factory factory = factory(impl);
            compressor = factory.fastCompressor();
            decompressor = factory.safeDecompressor();
            block = block(new Random(1), content.equals("random"));
            compressed = new byte[compressor.maxCompressedLength(block.length)];
            compressedLength = compressor.compress(block, 0, block.length, compressed, 0, compressed.length);
            out = new byte[block.length];
            System.err.printf(Locale.ROOT, "%n[%s, %s] %s: a %d-byte block compresses to %d bytes (%.2f×)%n", impl,
                    content, factory, block.length, compressedLength, (double) block.length / compressedLength);
        }
    }

    /** A table of item-like entries in memory, written and read with one implementation, no block cache. */
    @State(Scope.Benchmark)
    public static class TableState {
        @Param({"jni", "java"})
        public String impl;

        SstableReader reader;

        @Setup(Level.Trial)
        public void setUp() throws IOException {
            factory(impl); // fails early if JNI does not load
            reader = table(impl.equals("jni") ? Lz4.jni() : Lz4.pureJava());
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            reader.close();
        }
    }

    static LZ4Factory factory(String impl) {
        return switch (impl) {
            case "jni" -> LZ4Factory.nativeInstance();
            case "java" -> LZ4Factory.safeInstance();
            default -> throw new IllegalArgumentException("impl must be jni or java: " + impl);
        };
    }

    @Benchmark
    public int compress(BlockState s) {
        return s.compressor.compress(s.block, 0, s.block.length, s.compressed, 0, s.compressed.length);
    }

    @Benchmark
    public int decompress(BlockState s) {
        return s.decompressor.decompress(s.compressed, 0, s.compressedLength, s.out, 0, s.out.length);
    }

    @Benchmark
    public Object tableGet(TableState s) {
        SstableReader.Entry e = s.reader.get(key(ThreadLocalRandom.current().nextInt(TABLE_ITEMS)),
                InternalKey.MAX_SEQUENCE);
        if (e == null) {
            throw new IllegalStateException("lost a key");
        }
        return e;
    }

    /** A 4 KiB block as BlockBuilder lays it out: shared, unshared, value length, key suffix, value. */
    static byte[] block(Random random, boolean incompressible) {
        ByteArrayOutputStream b = new ByteArrayOutputStream(BLOCK_SIZE + 512);
        byte[] previous = new byte[0];
        int i = 0;
        int restarts = 0;
        while (b.size() < BLOCK_SIZE) {
            byte[] k = InternalKey.encode(key(random.nextInt(1000) * 1000 + i), i + 1, InternalKey.KIND_PUT);
            int shared = 0;
            if (i % 16 != 0) {
                while (shared < previous.length && shared < k.length && previous[shared] == k[shared]) {
                    shared++;
                }
            } else {
                restarts++;
            }
            byte[] v = incompressible ? randomValue(random) : item(random, i);
            b.write(shared);
            b.write(k.length - shared);
            b.write(v.length);
            b.write(k, shared, k.length - shared);
            b.write(v, 0, v.length);
            previous = k;
            i++;
        }
        for (int r = 0; r < restarts * 4 + 4; r++) {
            b.write(r % 7); // restart offsets and their count: small little-endian integers
        }
        byte[] all = b.toByteArray();
        byte[] exact = new byte[BLOCK_SIZE];
        System.arraycopy(all, 0, exact, 0, BLOCK_SIZE);
        return exact;
    }

    static byte[] randomValue(Random random) {
        byte[] v = new byte[100];
        random.nextBytes(v);
        return v;
    }

    /** A ~150-byte item of the kind a queue or order table holds. */
    static byte[] item(Random random, int i) {
        byte[] id = new byte[9];
        random.nextBytes(id);
        String s = String.format(Locale.ROOT, "pk\u0001Suser#%06d\u0000sk\u0001Sorder#%08d\u0000status\u0001S%s"
                        + "\u0000total\u0001N%d.%02d\u0000items\u0001N%d\u0000created\u0001S2026-%02d-%02dT%02d:%02d:%02dZ"
                        + "\u0000id\u0001B%s", random.nextInt(100_000), i, STATUS[random.nextInt(STATUS.length)],
                random.nextInt(500), random.nextInt(100), 1 + random.nextInt(9), 1 + random.nextInt(12),
                1 + random.nextInt(28), random.nextInt(24), random.nextInt(60), random.nextInt(60),
                java.util.Base64.getEncoder().encodeToString(id));
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    static byte[] key(int n) {
        return String.format(Locale.ROOT, "p%03d/o%08d", n % 997, n).getBytes(StandardCharsets.US_ASCII);
    }

    /** A table of {@link #TABLE_ITEMS} items in memory, written and read with {@code lz4}. */
    static SstableReader table(Lz4 lz4) throws IOException {
        MemVfs vfs = new MemVfs();
        Path dir = Path.of("/t");
        vfs.mkdirs(dir);
        Path path = dir.resolve("000001.sst");
        // The writer wants keys in internal-key order: sort the user keys first.
        byte[][] keys = new byte[TABLE_ITEMS][];
        for (int i = 0; i < TABLE_ITEMS; i++) {
            keys[i] = key(i);
        }
        java.util.Arrays.sort(keys, java.util.Arrays::compareUnsigned);
        Random random = new Random(2);
        SstableOptions options = SstableOptions.defaults().withKeyPrefix(KeyPrefix.fixedLength(5));
        try (VfsFile file = vfs.create(path)) {
            SstableWriter writer = new SstableWriter(file, options, Long.MAX_VALUE, lz4);
            for (int i = 0; i < TABLE_ITEMS; i++) {
                writer.add(InternalKey.encode(keys[i], i + 1, InternalKey.KIND_PUT), item(random, i));
            }
            var p = writer.finish();
            System.err.printf(Locale.ROOT, "table: %,d entries, %,d raw bytes in %,d data blocks of %,d bytes (%.2f×)%n",
                    p.entries(), p.rawKeySize() + p.rawValueSize(), p.dataBlocks(), p.dataSize(),
                    (double) (p.rawKeySize() + p.rawValueSize()) / p.dataSize());
        }
        return SstableReader.open(vfs.openReadOnly(path), 1, new BlockCache(0), lz4);
    }
}
