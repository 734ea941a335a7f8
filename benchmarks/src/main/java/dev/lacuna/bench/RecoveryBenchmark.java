package dev.lacuna.bench;

import dev.lacuna.AttributeValue;
import dev.lacuna.BatchWriteItem;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.Item;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.NioVfs;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
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
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

/**
 * Reopening a database after a crash, against the size of the log it replays (BENCHMARKS.md §5; issue 13:
 * at least 200 MB/s of log). The trial setup fills a table of {@code partitions} partitions with tickets
 * ({@link ItemBenchmark#ticket}), {@code itemsPerWrite} to a write (1: a {@code putItem} each, one log record
 * per item; 25: {@code batchWriteItem}), until the log holds {@code logMegabytes} MB. Memtables are made large
 * enough that nothing is flushed, so the whole log must be replayed. With the database still open, its files
 * are copied — what a crash at that instant leaves: every write was handed to the operating system
 * ({@code NONE} durability does that before it returns), the last segment is not sealed and ends in zero fill,
 * the manifest has no record of a close. Each measured operation is one {@link Database#open} of a fresh copy of
 * those files (copied before the shot, outside the measurement, so the page cache is warm, as it mostly is for a
 * process restarted after a crash). With {@code copySynced} (the default) the copy is forced to disk before the
 * shot: a crashed process's log was written over seconds to minutes and the kernel has written most of it back,
 * where a copy made just before the shot is all dirty pages, and the open's fsync of the repaired last segment then
 * wrote them back inside the measurement (shots of 125–180 MB/s among shots of 550–600 in one run, with no
 * collector pause in them). {@code -p copySynced=false} measures that too.
 *
 * <p>RocksDB beside it ({@code engine}): the same tickets, the same crash and copy, its own open replaying its log.
 * Its records are a key and the item as text (no index, no partitions), so a MB of its log holds fewer writes
 * than a MB of Lacuna's; the rate is of log bytes for both. {@code itemsPerWrite} and {@code partitions} are
 * Lacuna's alone.
 *
 * <p>JMH reports the time of an open; each shot also prints the log size, its MB/s (log bytes over that time,
 * MB = 10⁶ bytes) and the minor page faults the process took during it (Linux), and the trial's median MB/s is
 * printed at its end.
 *
 * <p>Two runs, the README's (README, "Reopening after a crash"):
 * <ul>
 *   <li>{@code RecoveryBenchmark -f 1 -wi 20 -i 10}: a JVM that has opened the store before, its heap's pages
 *   touched and the replay compiled (a process that opens stores again and again);</li>
 *   <li>{@code RecoveryBenchmark -f 5 -wi 0 -i 1}: each fork's first open, right after its load (the write path
 *   compiled, the replay not, the heap grown by the load only): what a process opening its store after a restart
 *   meets, all but the JVM's own start.</li>
 * </ul>
 * Few warm-up shots measure neither: while G1 grows its young generation (to ~230 MB here), each open's allocation
 * lands in pages never touched, a page fault each (11–14 µs on this machine's virtual machine), and an open that
 * allocates less takes more shots to reach the end of that growth.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx6g"})
@Warmup(iterations = 20)
@Measurement(iterations = 10)
public class RecoveryBenchmark {
    @Param({"8", "32", "128"})
    public int logMegabytes;

    @Param({"1"})
    public int itemsPerWrite;

    @Param({"4"})
    public int partitions;

    /**
     * {@code lacuna}, or {@code rocksdb}: the same tickets put one to a write (key {@code pk}, the item's attributes
     * as text for value) into RocksDB until its write-ahead log holds {@code logMegabytes} MB, with a write buffer
     * large enough that nothing is flushed, and each shot a {@link RocksDB#open} of a copy that replays the log
     * ({@code avoid_flush_during_recovery}, so that the replayed writes stay in the memtable, as in Lacuna).
     */
    @Param({"lacuna", "rocksdb"})
    public String engine;

    /** Whether the copy is forced to disk before the shot (see the class comment). */
    @Param({"true"})
    public boolean copySynced;

    private Path root;
    private Path pristine;
    private Path work;
    private long logBytes;
    private Database opened;
    private RocksDB openedRocks;
    private Options rocksOptions;
    private long nanos;
    /** The process's minor page faults just before the shot (read outside it), or -1 where they cannot be read. */
    private long faultsBefore;
    private final List<Double> rates = new ArrayList<>();

    /** Nothing flushed while loading or after the reopen: the log holds every write. */
    static DatabaseOptions options() {
        KvOptions storage = KvOptions.builder().memtableBytes(4L << 30).memoryBudget(16L << 30)
                .maxTotalLogSize(64L << 30).build();
        return DatabaseOptions.builder().vfs(new NioVfs()).durability(Durability.NONE).storage(storage).build();
    }

    @Setup(Level.Trial)
    public void load() throws IOException, RocksDBException {
        root = Files.createTempDirectory("lacuna-recovery-bench");
        Path live = root.resolve("live");
        pristine = root.resolve("crashed");
        if (engine.equals("rocksdb")) {
            loadRocks(live);
            delete(live);
            return;
        }
        try (Database db = Database.open(live, options())) {
            db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
                    .partitions(partitions).build());
            Table tickets = db.table("Tickets");
            long target = (long) logMegabytes * 1_000_000;
            int id = 0;
            while (db.stats().logBytes() < target) {
                for (int n = 0; n < 1000; n++) {
                    if (itemsPerWrite == 1) {
                        tickets.putItem(ItemBenchmark.ticket(id++, false));
                    } else {
                        BatchWriteItem batch = new BatchWriteItem();
                        for (int k = 0; k < itemsPerWrite; k++) {
                            batch.put("Tickets", ItemBenchmark.ticket(id++, false));
                        }
                        db.batchWriteItem(batch);
                    }
                }
            }
            logBytes = db.stats().logBytes();
            copy(live, pristine); // the crash: the files as they are now, the database still open
            System.out.printf("%nloaded %,d items; log %,d bytes%n", id, logBytes);
        }
        delete(live);
    }

    /** RocksDB loaded with the same tickets until its log holds {@code logMegabytes} MB; copied as Lacuna's is. */
    private void loadRocks(Path live) throws IOException, RocksDBException {
        RocksDB.loadLibrary();
        // A write buffer that never fills (nothing flushed, the log holds every write), as Lacuna's memtables here.
        rocksOptions = new Options().setCreateIfMissing(true).setWriteBufferSize(4L << 30)
                .setMaxTotalWalSize(64L << 30).setAvoidFlushDuringRecovery(true).setAvoidFlushDuringShutdown(true);
        Files.createDirectories(live);
        try (RocksDB db = RocksDB.open(rocksOptions, live.toString()); WriteOptions write = new WriteOptions()) {
            long target = (long) logMegabytes * 1_000_000;
            int id = 0;
            while (rocksLogBytes(live) < target) {
                for (int n = 0; n < 1000; n++) {
                    Item item = ItemBenchmark.ticket(id++, false);
                    db.put(write, ((AttributeValue.S) item.get("pk")).value().getBytes(StandardCharsets.UTF_8),
                            item.toString().getBytes(StandardCharsets.UTF_8));
                }
            }
            logBytes = rocksLogBytes(live);
            copy(live, pristine); // the crash, as for Lacuna: the files as they are, the database open
            System.out.printf("%nloaded %,d items into RocksDB; log %,d bytes%n", id, logBytes);
        }
    }

    /** The bytes of RocksDB's write-ahead log files in {@code dir}. */
    private static long rocksLogBytes(Path dir) throws IOException {
        long total = 0;
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                if (p.getFileName().toString().endsWith(".log")) {
                    total += Files.size(p);
                }
            }
        }
        return total;
    }

    @Setup(Level.Iteration)
    public void crash() throws IOException {
        work = root.resolve("reopened");
        delete(work);
        copy(pristine, work);
        if (copySynced) {
            syncFiles(work);
        }
        faultsBefore = minorFaults();
    }

    @Benchmark
    public Object reopen() throws RocksDBException {
        long began = System.nanoTime();
        if (rocksOptions != null) {
            openedRocks = RocksDB.open(rocksOptions, work.toString());
        } else {
            opened = Database.open(work, options());
        }
        nanos = System.nanoTime() - began;
        return rocksOptions != null ? openedRocks : opened;
    }

    @TearDown(Level.Iteration)
    public void report(IterationParams iteration) throws IOException {
        long faults = faultsBefore < 0 ? -1 : minorFaults() - faultsBefore; // before the close's own
        if (openedRocks != null) {
            openedRocks.close();
            openedRocks = null;
        } else {
            opened.close();
        }
        double rate = logBytes / 1e6 / (nanos / 1e9);
        if (iteration.getType() == IterationType.MEASUREMENT) {
            rates.add(rate);
        }
        System.out.printf("  [reopen: %,d bytes of log in %.1f ms = %.1f MB/s; %s minor page faults]%n", logBytes,
                nanos / 1e6, rate, faults < 0 ? "?" : String.format("%,d", faults));
        delete(work);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        if (!rates.isEmpty()) {
            List<Double> sorted = new ArrayList<>(rates);
            sorted.sort(null);
            System.out.printf("%nRecoveryBenchmark engine=%s logMegabytes=%d: median %.1f MB/s of log replayed"
                    + " (%d shots)%n", engine, logMegabytes, sorted.get(sorted.size() / 2), sorted.size());
        }
        if (rocksOptions != null) {
            rocksOptions.close();
        }
        delete(root);
    }

    /**
     * The process's minor page faults so far (Linux: {@code /proc/self/stat}'s tenth field), or -1 elsewhere. A
     * page the process touches for the first time costs one; on a virtual machine whose host backs each such page
     * anew, ~13 µs (README, "What sets the 8 MB figure"), so a shot's count says how much of its time they took.
     */
    private static long minorFaults() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            // After the command's name in parentheses (which may hold spaces): fields 3 on, minflt the eighth.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[7]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }

    /** Forces the copy's files to disk, so that the open's own fsyncs do not write back the copy's dirty pages. */
    private static void syncFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                if (Files.isRegularFile(p)) {
                    try (FileChannel channel = FileChannel.open(p, StandardOpenOption.WRITE)) {
                        channel.force(true);
                    }
                }
            }
        }
    }

    private static void delete(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }
}
