package dev.lacuna.sstable;

import dev.lacuna.kv.KeyPrefix;
import dev.lacuna.kv.SstableOptions;
import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/** Builds tables and models for the SSTable tests. */
final class TestTables {
    static final Path DIR = Path.of("/db");

    private TestTables() {
    }

    /** A user key {@code p<partition>/i<item>}: the first 5 bytes are the partition prefix. */
    static byte[] userKey(int partition, int item) {
        return String.format("p%03d/item%06d", partition, item).getBytes(StandardCharsets.US_ASCII);
    }

    /** The partition prefix of {@link #userKey}. */
    static byte[] prefix(int partition) {
        return String.format("p%03d/", partition).getBytes(StandardCharsets.US_ASCII);
    }

    static final KeyPrefix PARTITION = KeyPrefix.fixedLength(5);

    /** An empty model ordered like internal keys. */
    static TreeMap<byte[], byte[]> model() {
        return new TreeMap<>(InternalKey.COMPARATOR);
    }

    /**
     * Random entries: {@code userKeys} user keys spread over {@code partitions}, each with 1..4 versions
     * of distinct sequence numbers, about a third of them deletions of either kind.
     */
    static TreeMap<byte[], byte[]> randomEntries(Random random, int userKeys, int partitions, int maxValue) {
        TreeMap<byte[], byte[]> model = model();
        long sequence = 1;
        for (int i = 0; i < userKeys; i++) {
            byte[] user = userKey(random.nextInt(partitions), random.nextInt(userKeys * 4));
            int versions = 1 + random.nextInt(4);
            for (int v = 0; v < versions; v++) {
                int kindRoll = random.nextInt(6);
                int kind = kindRoll < 4 ? InternalKey.KIND_PUT
                        : kindRoll == 4 ? InternalKey.KIND_DELETE : InternalKey.KIND_SINGLE_DELETE;
                byte[] value = new byte[kind == InternalKey.KIND_PUT ? random.nextInt(maxValue + 1) : 0];
                if (random.nextBoolean()) {
                    Arrays.fill(value, (byte) ('a' + random.nextInt(3))); // compressible
                } else {
                    random.nextBytes(value);
                }
                model.put(InternalKey.encode(user, sequence, kind), value);
                sequence += 1 + random.nextInt(3);
            }
        }
        return model;
    }

    /** The LZ4 implementation a store on this JVM would choose (JNI on JDK 17 where it loads). */
    static final Lz4 LZ4 = Lz4.fastest();

    /** Writes {@code model} as table {@code name} in a new file of {@code vfs}. */
    static SstableProperties write(MemVfs vfs, String name, Map<byte[], byte[]> model, SstableOptions options,
                                 long oldestTombstoneTime) throws IOException {
        return write(vfs, name, model, options, oldestTombstoneTime, LZ4);
    }

    /** {@link #write(MemVfs, String, Map, SstableOptions, long)} with a given LZ4 implementation. */
    static SstableProperties write(MemVfs vfs, String name, Map<byte[], byte[]> model, SstableOptions options,
                                 long oldestTombstoneTime, Lz4 lz4) throws IOException {
        vfs.mkdirs(DIR);
        try (VfsFile file = vfs.create(DIR.resolve(name))) {
            SstableWriter writer = new SstableWriter(file, options, oldestTombstoneTime, lz4);
            for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
                writer.add(e.getKey(), e.getValue());
            }
            SstableProperties p = writer.finish();
            if (writer.estimatedFileSize() != file.size()) {
                throw new AssertionError("estimatedFileSize after finish is not the file size");
            }
            return p;
        }
    }

    static SstableReader open(MemVfs vfs, String name, long number, BlockCache cache) throws IOException {
        return open(vfs, name, number, cache, LZ4);
    }

    static SstableReader open(MemVfs vfs, String name, long number, BlockCache cache, Lz4 lz4) throws IOException {
        return SstableReader.open(vfs.openReadOnly(DIR.resolve(name)), number, cache, lz4);
    }

    /** Every entry from the first, forward. */
    static List<Map.Entry<byte[], byte[]>> forward(InternalIterator it) {
        List<Map.Entry<byte[], byte[]>> out = new ArrayList<>();
        for (it.seekToFirst(); it.valid(); it.next()) {
            out.add(Map.entry(it.key(), it.value()));
        }
        return out;
    }

    /** Every entry from the last, backward. */
    static List<Map.Entry<byte[], byte[]>> backward(InternalIterator it) {
        List<Map.Entry<byte[], byte[]>> out = new ArrayList<>();
        for (it.seekToLast(); it.valid(); it.prev()) {
            out.add(Map.entry(it.key(), it.value()));
        }
        return out;
    }

    /** Whether two entry lists hold the same keys and values in the same order. */
    static boolean sameEntries(List<Map.Entry<byte[], byte[]>> a, List<Map.Entry<byte[], byte[]>> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!Arrays.equals(a.get(i).getKey(), b.get(i).getKey())
                    || !Arrays.equals(a.get(i).getValue(), b.get(i).getValue())) {
                return false;
            }
        }
        return true;
    }

    /** The model's entries in order. */
    static List<Map.Entry<byte[], byte[]>> entries(TreeMap<byte[], byte[]> model) {
        return new ArrayList<>(model.entrySet());
    }

    /** The model's answer to a point read: the newest entry of {@code userKey} with sequence ≤ snapshot. */
    static Map.Entry<byte[], byte[]> modelGet(TreeMap<byte[], byte[]> model, byte[] userKey, long snapshot) {
        Map.Entry<byte[], byte[]> e = model.ceilingEntry(InternalKey.seekKey(userKey, snapshot));
        return e != null && InternalKey.compareUserKey(e.getKey(), userKey) == 0 ? e : null;
    }

    /** A random internal key near the model's keys: a user key of the same shape, any sequence and kind. */
    static byte[] randomTarget(Random random, byte[][] keys, int partitions, int items) {
        if (keys.length > 0 && random.nextInt(3) == 0) {
            // an existing user key with a random trailer
            byte[] user = InternalKey.userKey(keys[random.nextInt(keys.length)]);
            return InternalKey.encode(user, random.nextInt(1 << 12), random.nextInt(4) == 0 ? 0xFF : random.nextInt(3));
        }
        return InternalKey.encode(userKey(random.nextInt(partitions + 1), random.nextInt(items)),
                random.nextInt(1 << 12), random.nextInt(3));
    }
}
