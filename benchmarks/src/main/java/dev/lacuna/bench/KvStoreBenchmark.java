package dev.lacuna.bench;

import dev.lacuna.storage.Durability;
import dev.lacuna.kv.KvCursor;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.KvStats;
import dev.lacuna.kv.KvStore;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.vfs.NioVfs;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.Blackhole;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;

/**
 * The raw key/value layer side by side with RocksDB, in the same run (BENCHMARKS.md §2): 16-byte keys,
 * 100-byte values, write-ahead log on and no fsync per write — Lacuna with {@link Durability#NONE} (every
 * record still reaches the operating system before the write returns), RocksDB with default
 * {@code WriteOptions} ({@code sync=false}, WAL enabled). Throughput in operations per second; every
 * method exists twice, for 1 and 2 threads ({@code fillSeq1}/{@code fillSeq2}, ...), so one JMH command
 * covers both, and {@code engine} ∈ {{@code lacuna}, {@code rocksdb}} is a parameter.
 *
 * <h2>Settings</h2>
 *
 * <ul>
 *   <li><b>RocksDB</b>: default {@link Options} (only {@code createIfMissing}); for the preloaded store
 *       (overwrite, readRandom, seekNext10) a 512 MiB {@link LRUCache} block cache, the one setting
 *       BENCHMARKS.md notes; everything else default (no bloom filter, Snappy, 64 MiB write buffer).</li>
 *   <li><b>Lacuna</b>: {@code KvOptions.builder()} defaults (one partition, 8 MiB memtables, LZ4, 10-bit
 *       bloom filters, default WAL options) with {@code durability(NONE)}, and for the preloaded store the
 *       same 512 MiB block cache. Nothing else is tuned.</li>
 * </ul>
 *
 * <h2>Workloads</h2>
 *
 * <ul>
 *   <li>{@code fillSeq}: puts of ascending keys (one counter shared by the threads) into an empty store.</li>
 *   <li>{@code fillRandom}: puts of uniformly random keys (64-bit space) into an empty store.</li>
 *   <li>{@code overwrite}: puts of random keys of the preloaded set.</li>
 *   <li>{@code readRandom}: {@code get} of random keys of the preloaded set (every read hits).</li>
 *   <li>{@code seekNext10}: a new cursor / iterator per operation, positioned at a random preloaded key,
 *       reading 10 entries (key and value) — db_bench's {@code seekrandom --seek_nexts=10}.</li>
 * </ul>
 *
 * Keys are the 8-byte big-endian key number followed by 8 zero bytes, as db_bench pads them. Each put
 * gets a fresh 100-byte value cut at a random offset of a 1 MiB random pool (incompressible, as a
 * fixed value repeated in every entry would not be).
 *
 * <h2>State of the data when reads are measured</h2>
 *
 * The preloaded store ({@code overwrite}, {@code readRandom}, {@code seekNext10}) is built in
 * {@code @Setup(Level.Trial)}, outside the measurement: {@code keys} keys (a parameter, default 10⁶) in a
 * shuffled order, written in batches of 1,000 with the same durability as the benchmark; then, for both
 * engines alike, the memtables are <b>flushed</b> and setup <b>waits until background compaction is
 * idle</b> (RocksDB: no running or pending flush or compaction; Lacuna: its compaction counters stop
 * moving and no level is over its trigger or target). Neither engine is compacted manually: reads see
 * the tree shape each engine's own compaction policy leaves after a load (printed at setup). The warmup
 * iterations then warm the block caches; the whole data set (about 120 MB) fits in 512 MiB. A diagnostic
 * variant, {@code -p preload=compacted}, also compacts both stores fully ({@code compactRange} over
 * everything) before measuring; the default, {@code flushed}, is what the reported figures use.
 *
 * <p>At teardown both engines print their tree shape and key counters to stderr (Lacuna: files and bytes
 * per level, flushes, compactions, write amplification, stall time, block cache hits; RocksDB: its level
 * and compaction summary and stall lines). Every trial works in a fresh directory under
 * {@code -Dbench.dir=...} (default {@code java.io.tmpdir}) and deletes it at teardown.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar KvStoreBenchmark -f 1 -wi 2 -w 3s -i 5 -r 3s -rf json -rff kv.json
 * java -cp benchmarks/target/benchmarks.jar dev.lacuna.bench.report.JmhReport kv.json
 * # smoke: java -jar benchmarks/target/benchmarks.jar KvStoreBenchmark -f 1 -wi 0 -i 1 -r 1s -p keys=10000
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 5, time = 3)
public class KvStoreBenchmark {
    static final int KEY_SIZE = 16;
    static final int VALUE_SIZE = 100;
    static final long PRELOAD_BLOCK_CACHE = 512L << 20;
    static final int PRELOAD_BATCH = 1000;
    static final int SCAN_LENGTH = 10;
    private static final int VALUE_POOL = 1 << 20;
    private static final byte[] POOL = WalAppendBenchmark.randomBytes(VALUE_POOL + VALUE_SIZE);

    /** The same operations over either engine. */
    interface Engine extends AutoCloseable {
        void put(byte[] key, byte[] value);

        void putBatch(byte[][] keys, byte[][] values, int n);

        byte[] get(byte[] key);

        /** Positions a new iterator at {@code key} and reads up to {@code n} entries; returns how many. */
        int seekNext(byte[] key, int n, Blackhole bh);

        /** Flushes the memtables and waits until no background flush or compaction is due or running. */
        void flushAndSettle();

        /** A full manual compaction (diagnostic variant {@code preload=compacted}). */
        void compactAll();

        /** Tree shape and counters, one block of text. */
        String stats();

        @Override
        void close();
    }

    /** Lacuna: defaults, {@code Durability.NONE}, optionally a bigger block cache. */
    static final class Lacuna implements Engine {
        final KvOptions options;
        final KvStore store;

        Lacuna(Path dir, long blockCacheBytes) {
            KvOptions.Builder b = KvOptions.builder().vfs(new NioVfs()).durability(Durability.NONE);
            if (blockCacheBytes > 0) {
                b.blockCacheBytes(blockCacheBytes);
            }
            options = b.build();
            store = KvStore.open(dir, options);
        }

        @Override
        public void put(byte[] key, byte[] value) {
            store.put(key, value);
        }

        @Override
        public void putBatch(byte[][] keys, byte[][] values, int n) {
            WriteBatch batch = new WriteBatch();
            for (int i = 0; i < n; i++) {
                batch.put(keys[i], values[i]);
            }
            store.write(batch, Durability.NONE);
        }

        @Override
        public byte[] get(byte[] key) {
            return store.get(key);
        }

        @Override
        public int seekNext(byte[] key, int n, Blackhole bh) {
            int read = 0;
            try (KvCursor c = store.scan(key, null, false, null)) {
                for (; read < n && c.valid(); read++) {
                    bh.consume(c.key());
                    bh.consume(c.value());
                    c.next();
                }
            }
            return read;
        }

        @Override
        public void flushAndSettle() {
            store.flush();
            // KvStore has no "wait for compactions" call: poll until the counters stop moving and the
            // shape leaves the compaction picker nothing to do (the picker's first two rules; the
            // deletion rules cannot fire, nothing is deleted here).
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            long lastWork = -1;
            int quiet = 0;
            while (quiet < 3 && System.nanoTime() < deadline) {
                KvStats s = store.stats();
                long work = s.flushes() + s.compactions() + s.trivialMoves();
                boolean settled = s.memtableBytes() == 0 && s.filesPerLevel()[0] < options.l0CompactionTrigger();
                long target = options.levelBaseBytes();
                for (int level = 1; level < s.bytesPerLevel().length - 1; level++) {
                    settled &= s.bytesPerLevel()[level] <= target;
                    target *= options.levelMultiplier();
                }
                quiet = settled && work == lastWork ? quiet + 1 : 0;
                lastWork = work;
                sleep(200);
            }
        }

        @Override
        public void compactAll() {
            store.compactRange(null, null);
        }

        @Override
        public String stats() {
            KvStats s = store.stats();
            StringBuilder out = new StringBuilder();
            out.append("  files per level: ").append(Arrays.toString(s.filesPerLevel()))
                    .append(", MB per level: ").append(megabytes(s.bytesPerLevel())).append('\n');
            out.append(String.format(Locale.ROOT, "  flushes %d, compactions %d, trivial moves %d, flushed %.1f MB,"
                            + " compaction read %.1f MB / written %.1f MB, user bytes %.1f MB, WAL %.1f MB%n",
                    s.flushes(), s.compactions(), s.trivialMoves(), s.flushBytesWritten() / 1e6,
                    s.compactionBytesRead() / 1e6, s.compactionBytesWritten() / 1e6, s.userBytesWritten() / 1e6,
                    s.wal().appendedBytes() / 1e6));
            long lookups = s.blockCacheHits() + s.blockCacheMisses();
            out.append(String.format(Locale.ROOT, "  write amplification %.2f (WAL + flush + compaction bytes per"
                            + " user byte), stall %d ms, memtables %.1f MB, block cache hits %d / misses %d (%.2f%%"
                            + " hits), dropped entries %d, deleted files %d%n",
                    s.writeAmplification(), s.stallMillis(), s.memtableBytes() / 1e6, s.blockCacheHits(),
                    s.blockCacheMisses(), lookups == 0 ? 0.0 : 100.0 * s.blockCacheHits() / lookups,
                    s.droppedEntries(), s.deletedFiles()));
            return out.toString();
        }

        @Override
        public void close() {
            store.close();
        }
    }

    /** RocksDB: default options, default write options, optionally a 512 MiB LRU block cache. */
    static final class Rocks implements Engine {
        final Options options;
        final WriteOptions writeOptions;
        final LRUCache cache;
        final RocksDB db;

        Rocks(Path dir, long blockCacheBytes) {
            RocksDB.loadLibrary();
            writeOptions = new WriteOptions(); // sync=false, WAL on: the defaults
            options = new Options().setCreateIfMissing(true);
            if (blockCacheBytes > 0) {
                cache = new LRUCache(blockCacheBytes);
                options.setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache));
            } else {
                cache = null;
            }
            try {
                db = RocksDB.open(options, dir.toString());
            } catch (RocksDBException e) {
                options.close();
                writeOptions.close();
                if (cache != null) {
                    cache.close();
                }
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void put(byte[] key, byte[] value) {
            try {
                db.put(writeOptions, key, value);
            } catch (RocksDBException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void putBatch(byte[][] keys, byte[][] values, int n) {
            try (org.rocksdb.WriteBatch batch = new org.rocksdb.WriteBatch()) {
                for (int i = 0; i < n; i++) {
                    batch.put(keys[i], values[i]);
                }
                db.write(writeOptions, batch);
            } catch (RocksDBException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public byte[] get(byte[] key) {
            try {
                return db.get(key);
            } catch (RocksDBException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public int seekNext(byte[] key, int n, Blackhole bh) {
            int read = 0;
            try (RocksIterator it = db.newIterator()) {
                it.seek(key);
                for (; read < n && it.isValid(); read++) {
                    bh.consume(it.key());
                    bh.consume(it.value());
                    it.next();
                }
            }
            return read;
        }

        @Override
        public void flushAndSettle() {
            try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
                db.flush(flush);
                long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
                int quiet = 0;
                while (quiet < 3 && System.nanoTime() < deadline) {
                    boolean idle = db.getLongProperty("rocksdb.num-running-compactions") == 0
                            && db.getLongProperty("rocksdb.num-running-flushes") == 0
                            && db.getLongProperty("rocksdb.compaction-pending") == 0
                            && db.getLongProperty("rocksdb.mem-table-flush-pending") == 0;
                    quiet = idle ? quiet + 1 : 0;
                    sleep(200);
                }
            } catch (RocksDBException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void compactAll() {
            try {
                db.compactRange();
            } catch (RocksDBException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public String stats() {
            try {
                StringBuilder out = new StringBuilder();
                out.append(indent(db.getProperty("rocksdb.levelstats")));
                // The compaction table of the default column family, and the cumulative lines.
                String[] lines = db.getProperty("rocksdb.stats").split("\n");
                boolean inTable = false;
                boolean tableDone = false;
                for (String line : lines) {
                    if (!tableDone && line.startsWith("** Compaction Stats")) {
                        inTable = true;
                    } else if (inTable && line.isBlank()) {
                        inTable = false;
                        tableDone = true;
                    }
                    if (inTable || line.startsWith("Cumulative writes") || line.startsWith("Cumulative WAL")
                            || line.startsWith("Cumulative stall") || line.startsWith("Cumulative compaction")
                            || line.startsWith("Flush(GB)") || line.startsWith("Stalls(count)")) {
                        out.append("  ").append(line).append('\n');
                    }
                }
                out.append("  block cache usage: ").append(cache == null ? "default cache"
                        : String.format(Locale.ROOT, "%.1f MB", cache.getUsage() / 1e6)).append('\n');
                return out.toString();
            } catch (RocksDBException e) {
                return "  (stats unavailable: " + e.getMessage() + ")\n";
            }
        }

        @Override
        public void close() {
            db.close();
            writeOptions.close();
            options.close();
            if (cache != null) {
                cache.close();
            }
        }
    }

    // ---- states ----

    /** An empty store per trial, for the fills; each engine's default block cache. */
    @State(Scope.Benchmark)
    public static class EmptyStore {
        @Param({"lacuna", "rocksdb"})
        public String engine;

        Path dir;
        Engine db;
        /** Next key of fillSeq, shared by the threads, so keys arrive in ascending order. */
        final AtomicLong nextKey = new AtomicLong();

        @Setup(Level.Trial)
        public void open() {
            dir = WalAppendBenchmark.freshDir("kv-" + engine + "-");
            try {
                db = openEngine(engine, dir, 0);
            } catch (RuntimeException | Error e) {
                WalAppendBenchmark.deleteRecursively(dir); // teardown does not run after a failed setup
                throw e;
            }
        }

        @TearDown(Level.Trial)
        public void close(BenchmarkParams params) {
            try {
                report(params, engine, db, "");
            } finally {
                db.close();
                WalAppendBenchmark.deleteRecursively(dir);
            }
        }
    }

    /** A store preloaded with {@code keys} keys, flushed and left to settle (see the class comment). */
    @State(Scope.Benchmark)
    public static class LoadedStore {
        @Param({"lacuna", "rocksdb"})
        public String engine;

        /** Keys preloaded; overwrite, readRandom and seekNext10 draw theirs from {@code [0, keys)}. */
        @Param({"1000000"})
        public int keys;

        /**
         * What setup does after loading, the same for both engines: {@code flushed} (the default: flush,
         * then wait for background compaction to go idle) or {@code compacted} (then also a full manual
         * compaction, {@code compactRange(null, null)} in both) — a diagnostic variant that compares the
         * engines on a fully compacted tree.
         */
        @Param({"flushed"})
        public String preload;

        Path dir;
        Engine db;
        final LongAdder misses = new LongAdder();

        @Setup(Level.Trial)
        public void open(BenchmarkParams params) {
            dir = WalAppendBenchmark.freshDir("kv-" + engine + "-");
            try {
                db = openEngine(engine, dir, PRELOAD_BLOCK_CACHE);
                preload(params);
            } catch (RuntimeException | Error e) {
                if (db != null) {
                    db.close();
                }
                WalAppendBenchmark.deleteRecursively(dir); // teardown does not run after a failed setup
                throw e;
            }
        }

        private void preload(BenchmarkParams params) {
            long start = System.nanoTime();
            int[] order = new int[keys];
            for (int i = 0; i < keys; i++) {
                order[i] = i;
            }
            Random random = new Random(7);
            for (int i = keys - 1; i > 0; i--) { // Fisher–Yates
                int j = random.nextInt(i + 1);
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
            byte[][] batchKeys = new byte[PRELOAD_BATCH][];
            byte[][] batchValues = new byte[PRELOAD_BATCH][];
            for (int i = 0; i < keys; i += PRELOAD_BATCH) {
                int n = Math.min(PRELOAD_BATCH, keys - i);
                for (int j = 0; j < n; j++) {
                    batchKeys[j] = key(order[i + j]);
                    batchValues[j] = value(random.nextInt(VALUE_POOL));
                }
                db.putBatch(batchKeys, batchValues, n);
            }
            long loaded = System.nanoTime();
            db.flushAndSettle();
            switch (preload) {
                case "flushed" -> { }
                case "compacted" -> {
                    db.compactAll();
                    db.flushAndSettle();
                }
                default -> throw new IllegalArgumentException("preload must be flushed or compacted: " + preload);
            }
            long settled = System.nanoTime();
            System.err.printf(Locale.ROOT, "%n[%s, %d threads, %s] preloaded %,d keys in %.1f s (%,.0f keys/s),"
                            + " %s and settled in %.1f s; shape when measuring starts:%n%s",
                    shortName(params), params.getThreads(), engine, keys, (loaded - start) / 1e9,
                    keys / ((loaded - start) / 1e9), preload, (settled - loaded) / 1e9, db.stats());
            // Sanity: every preloaded key must be found.
            for (int k : new int[] {0, keys / 2, keys - 1}) {
                if (db.get(key(k)) == null) {
                    throw new IllegalStateException(engine + " lost preloaded key " + k);
                }
            }
        }

        @TearDown(Level.Trial)
        public void close(BenchmarkParams params) {
            try {
                report(params, engine, db, misses.sum() == 0 ? "" : "  READ MISSES: " + misses.sum() + "\n");
            } finally {
                db.close();
                WalAppendBenchmark.deleteRecursively(dir);
            }
        }

        byte[] randomKey() {
            return key(ThreadLocalRandom.current().nextInt(keys));
        }
    }

    // ---- fillSeq ----

    @Benchmark
    @Threads(1)
    public void fillSeq1(EmptyStore s) {
        fillSeq(s);
    }

    @Benchmark
    @Threads(2)
    public void fillSeq2(EmptyStore s) {
        fillSeq(s);
    }

    private static void fillSeq(EmptyStore s) {
        s.db.put(key(s.nextKey.getAndIncrement()), randomValue());
    }

    // ---- fillRandom ----

    @Benchmark
    @Threads(1)
    public void fillRandom1(EmptyStore s) {
        fillRandom(s);
    }

    @Benchmark
    @Threads(2)
    public void fillRandom2(EmptyStore s) {
        fillRandom(s);
    }

    private static void fillRandom(EmptyStore s) {
        s.db.put(key(ThreadLocalRandom.current().nextLong() >>> 1), randomValue());
    }

    // ---- overwrite ----

    @Benchmark
    @Threads(1)
    public void overwrite1(LoadedStore s) {
        s.db.put(s.randomKey(), randomValue());
    }

    @Benchmark
    @Threads(2)
    public void overwrite2(LoadedStore s) {
        s.db.put(s.randomKey(), randomValue());
    }

    // ---- readRandom ----

    @Benchmark
    @Threads(1)
    public byte[] readRandom1(LoadedStore s) {
        return readRandom(s);
    }

    @Benchmark
    @Threads(2)
    public byte[] readRandom2(LoadedStore s) {
        return readRandom(s);
    }

    private static byte[] readRandom(LoadedStore s) {
        byte[] value = s.db.get(s.randomKey());
        if (value == null) {
            s.misses.increment();
        }
        return value;
    }

    // ---- seekNext10 ----

    @Benchmark
    @Threads(1)
    public int seekNext10_1(LoadedStore s, Blackhole bh) {
        return s.db.seekNext(s.randomKey(), SCAN_LENGTH, bh);
    }

    @Benchmark
    @Threads(2)
    public int seekNext10_2(LoadedStore s, Blackhole bh) {
        return s.db.seekNext(s.randomKey(), SCAN_LENGTH, bh);
    }

    // ---- helpers ----

    static Engine openEngine(String engine, Path dir, long blockCacheBytes) {
        return switch (engine) {
            case "lacuna" -> new Lacuna(dir, blockCacheBytes);
            case "rocksdb" -> new Rocks(dir, blockCacheBytes);
            default -> throw new IllegalArgumentException("engine must be lacuna or rocksdb: " + engine);
        };
    }

    /** A 16-byte key: {@code n} big-endian, then 8 zero bytes. */
    static byte[] key(long n) {
        byte[] k = new byte[KEY_SIZE];
        for (int i = 7; i >= 0; i--) {
            k[i] = (byte) n;
            n >>>= 8;
        }
        return k;
    }

    static byte[] value(int offset) {
        return Arrays.copyOfRange(POOL, offset, offset + VALUE_SIZE);
    }

    /** A fresh 100-byte value from a random offset of the pool. */
    static byte[] randomValue() {
        return value(ThreadLocalRandom.current().nextInt(VALUE_POOL));
    }

    private static void report(BenchmarkParams params, String engine, Engine db, String extra) {
        System.err.printf(Locale.ROOT, "%n[%s, %d threads, %s] at teardown:%n%s%s", shortName(params),
                params.getThreads(), engine, db.stats(), extra);
    }

    private static String megabytes(long[] bytes) {
        StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < bytes.length; i++) {
            out.append(i == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.1f", bytes[i] / 1e6));
        }
        return out.append(']').toString();
    }

    private static String indent(String text) {
        return ("  " + text.strip()).replace("\n", "\n  ") + "\n";
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static String shortName(BenchmarkParams params) {
        String name = params.getBenchmark();
        return name.substring(name.lastIndexOf('.') + 1);
    }
}
