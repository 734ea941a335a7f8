package dev.lacuna.bench;

import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.NioVfs;
import dev.lacuna.wal.Wal;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.storage.WalStats;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

/**
 * Synced appends of 100-byte records: Lacuna's write-ahead log with 1, 8 and 32 writers (group commit),
 * next to two baselines measured in the same run — RocksDB puts with {@code sync=true} (1 and 8 writers)
 * and a raw loop of one 4 KiB append plus {@code force(false)} per operation (the disk's fsync rate).
 *
 * <p>Every trial works in a fresh directory under {@code -Dbench.dir=...} (default {@code java.io.tmpdir})
 * and deletes it at teardown. The directory must be on the real disk: on tmpfs an fsync costs nothing and
 * the figures mean nothing, so setup warns when it sees one. Render the JSON result with
 * {@link dev.lacuna.bench.report.JmhReport}.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar WalAppendBenchmark -rf json -rff wal-append.json
 * java -cp benchmarks/target/benchmarks.jar dev.lacuna.bench.report.JmhReport wal-append.json
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
public class WalAppendBenchmark {
    /** Payload (value) size of every record, as in BENCHMARKS.md. */
    static final int RECORD_SIZE = 100;
    /** Key size of the RocksDB puts, as in BENCHMARKS.md. */
    static final int KEY_SIZE = 16;
    /** Write size of the raw loop: one file-system page. */
    static final int RAW_WRITE_SIZE = 4096;

    // ---- Lacuna ----

    /** One Lacuna log per trial, shared by all the writer threads so that their appends group. */
    @State(Scope.Benchmark)
    public static class LacunaState {
        Path dir;
        Wal wal;
        byte[] payload;

        @Setup(Level.Trial)
        public void open() {
            dir = freshDir("lacuna-wal-");
            wal = Wal.open(new NioVfs(), dir, WalOptions.defaults());
            payload = randomBytes(RECORD_SIZE);
        }

        @TearDown(Level.Trial)
        public void close(BenchmarkParams params) {
            // Read before close(): the final seal is one more fsync that no append asked for. The
            // counters cover warmup and measurement alike, which does not change the mean much.
            WalStats stats = wal.stats();
            System.err.printf(Locale.ROOT, "%n[%s, %d threads] wal fsyncs: %d, appends: %d, mean group: %.2f,"
                            + " largest group: %d%n", shortName(params), params.getThreads(), stats.fsyncs(),
                    stats.appends(), stats.meanGroupSize(), stats.largestGroup());
            wal.close();
            deleteRecursively(dir);
        }
    }

    /** One synced append by a single writer. */
    @Benchmark
    @Threads(1)
    public long lacunaSync1(LacunaState s) {
        return s.wal.append(s.payload, Durability.SYNC);
    }

    /** Synced appends by 8 concurrent writers, which share fsyncs (group commit). */
    @Benchmark
    @Threads(8)
    public long lacunaSync8(LacunaState s) {
        return s.wal.append(s.payload, Durability.SYNC);
    }

    /** Synced appends by 32 concurrent writers, which share fsyncs (group commit). */
    @Benchmark
    @Threads(32)
    public long lacunaSync32(LacunaState s) {
        return s.wal.append(s.payload, Durability.SYNC);
    }

    // ---- raw loop: the disk's rate of appending write + fdatasync ----

    /** A file opened for appending; each operation grows it by 4 KiB and forces it. */
    @State(Scope.Benchmark)
    public static class RawState {
        Path dir;
        FileChannel channel;
        ByteBuffer buffer;

        @Setup(Level.Trial)
        public void open() throws IOException {
            dir = freshDir("raw-force-");
            channel = FileChannel.open(dir.resolve("raw.log"), StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE, StandardOpenOption.APPEND);
            buffer = ByteBuffer.allocateDirect(RAW_WRITE_SIZE);
            buffer.put(randomBytes(RAW_WRITE_SIZE));
        }

        @TearDown(Level.Trial)
        public void close() throws IOException {
            channel.close();
            deleteRecursively(dir);
        }
    }

    /**
     * One 4 KiB append and {@code force(false)} (fdatasync). Not preallocated, on purpose: this is the
     * plain loop a user would write, and every fsync must also commit the file's new size.
     */
    @Benchmark
    @Threads(1)
    public long rawWriteForce(RawState s) throws IOException {
        ByteBuffer buffer = s.buffer;
        buffer.clear();
        while (buffer.hasRemaining()) {
            s.channel.write(buffer);
        }
        s.channel.force(false);
        return buffer.position();
    }

    // ---- RocksDB ----

    /** One RocksDB per trial with default options; every put is synced. */
    @State(Scope.Benchmark)
    public static class RocksState {
        Path dir;
        Options options;
        WriteOptions writeOptions;
        RocksDB db;
        byte[] value;
        /** Next key; shared, so that concurrent writers never overwrite each other's keys. */
        final AtomicLong nextKey = new AtomicLong();

        @Setup(Level.Trial)
        public void open() throws RocksDBException {
            RocksDB.loadLibrary();
            dir = freshDir("rocksdb-sync-");
            options = new Options().setCreateIfMissing(true);
            writeOptions = new WriteOptions().setSync(true);
            db = RocksDB.open(options, dir.toString());
            value = randomBytes(RECORD_SIZE);
        }

        @TearDown(Level.Trial)
        public void close() {
            db.close();
            writeOptions.close();
            options.close();
            deleteRecursively(dir);
        }

        /** A 16-byte key: the counter, big-endian (so keys arrive in order), then 8 zero bytes. */
        byte[] nextKey() {
            return ByteBuffer.allocate(KEY_SIZE).putLong(nextKey.getAndIncrement()).array();
        }
    }

    /** One synced put by a single writer. */
    @Benchmark
    @Threads(1)
    public void rocksdbSyncPut1(RocksState s) throws RocksDBException {
        s.db.put(s.writeOptions, s.nextKey(), s.value);
    }

    /** Synced puts by 8 concurrent writers (RocksDB groups their log writes too). */
    @Benchmark
    @Threads(8)
    public void rocksdbSyncPut8(RocksState s) throws RocksDBException {
        s.db.put(s.writeOptions, s.nextKey(), s.value);
    }

    // ---- helpers ----

    /**
     * A new directory under {@code bench.dir} or {@code java.io.tmpdir}. Warns on tmpfs, where fsync is a
     * no-op and a synced-write benchmark measures nothing.
     */
    static Path freshDir(String prefix) {
        try {
            Path base = Path.of(System.getProperty("bench.dir", System.getProperty("java.io.tmpdir")));
            Files.createDirectories(base);
            Path dir = Files.createTempDirectory(base, prefix);
            FileStore store = Files.getFileStore(dir);
            if (store.type().equals("tmpfs") || store.type().equals("ramfs")) {
                System.err.println("WARNING: " + dir + " is on " + store.type()
                        + ": fsync costs nothing there; pass -Dbench.dir=<a directory on the real disk>");
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void deleteRecursively(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) { // children before parents
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }

    /** Fixed-seed random bytes: incompressible, and the same in every run. */
    static byte[] randomBytes(int n) {
        byte[] bytes = new byte[n];
        new Random(42).nextBytes(bytes);
        return bytes;
    }

    private static String shortName(BenchmarkParams params) {
        String name = params.getBenchmark();
        return name.substring(name.lastIndexOf('.') + 1);
    }
}
