package dev.lacuna.bench;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexDescription;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.KeyAttribute;
import dev.lacuna.Query;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Locale;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;
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
 * Index lag (BENCHMARKS.md §4): the time from a write's acknowledgement until it is visible in a GSI, p50, p99 and max
 * (HdrHistogram), at {@code load} percent of the table's measured maximum write rate. The trial first measures that
 * maximum (one writer at full speed for {@value #RATE_SECONDS} s, after as long again to warm up; one GSI;
 * {@code store} {@code diskNone}: {@code NONE} writes to a directory on the real disk, no fsync; {@code disk}:
 * {@code SYNC} writes there; {@code mem}: {@link MemVfs} and {@code NONE} writes); each iteration then writes at the fraction asked for {@code seconds} on a fixed schedule
 * (a write that falls behind it is sent at once, not skipped), and a watcher thread reads the index as a
 * read-your-writes query does: it waits (woken by the updater, not spinning, which on two processors took one from the
 * updater) until the index holds the oldest acknowledged write it has not yet seen, then notes the time for every write
 * the index's applied LSN has passed. The JMH score is the iteration's time and means nothing; the figures are the
 * printed lines (goal: p99 ≤ 5 ms at 50 %), with the write's own acknowledgement time beside them as the machine's
 * noise floor. {@code IndexLagProfile} attributes the slow samples to what the engine was doing.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar IndexLagBenchmark -f 1 -wi 1 -i 3}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
public class IndexLagBenchmark {
    private static final int RATE_SECONDS = 5;

    /** Percent of the measured maximum write rate. */
    @Param({"25", "50", "90"})
    public int load;

    /** Seconds of paced writes per iteration. */
    @Param({"10"})
    public int seconds;

    /**
     * {@code diskNone} (the default): the real disk, {@code NONE} writes: no fsync wait, the log and tables in the page
     * cache, as an embedder's store; {@code disk}: the real disk, {@code SYNC} writes; {@code mem}: {@link MemVfs},
     * {@code NONE} writes: a test file system, which holds every file twice on the heap (current and durable content,
     * arrays doubling as they grow), so that the collector's work on them (humongous arrays starting a concurrent
     * cycle each, once the heap holds a few hundred MB of files) weighs on the tail as no disk store's would. It was
     * the default until 2026-12-03.
     */
    @Param({"diskNone"})
    public String store;

    private Database db;
    private Table table;
    private double maxRate;
    private long counter;
    /** The watcher's index reads this iteration and the dead entries they stepped over (the watcher's thread). */
    private long watcherQueries;
    private long watcherDeadEntries;
    private Histogram lags;
    private Histogram acks;
    private Path dir;
    private Query waitForIndex;

    /** A write acknowledged: the log's last LSN once it returned (its own or later), and when it returned. */
    private record Acked(long lsn, long nanos) {
    }

    /** Tells the watcher the writes have ended. */
    private static final Acked END = new Acked(Long.MAX_VALUE, 0);

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        if (store.equals("disk")) {
            dir = Files.createTempDirectory("index-lag");
            db = Database.open(dir, DatabaseOptions.builder().durability(Durability.SYNC).build());
        } else if (store.equals("diskNone")) {
            dir = Files.createTempDirectory("index-lag");
            db = Database.open(dir, DatabaseOptions.builder().durability(Durability.NONE).build());
        } else {
            db = Database.open(Path.of("/index-lag"), DatabaseOptions.builder().vfs(new MemVfs())
                    .durability(Durability.NONE).build());
        }
        db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
                .index(IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK"))).build());
        table = db.table("Tickets");
        waitForIndex = new Query("GSI1PK = :q").index("GSI1").value(":q", AttributeValue.s("QUEUE#0")).limit(1)
                .readYourWrites(Duration.ofSeconds(60));
        // The maximum is measured after as long again of writes at full speed: measured from the first write, it
        // timed the JIT's warm-up too and moved between 22,000 and 39,000 writes/s from trial to trial.
        double warmUp = writeAtFullSpeed();
        maxRate = writeAtFullSpeed();
        System.out.printf(Locale.ROOT, "%n  maximum write rate with one GSI: %.0f writes/s (%.0f while warming up)%n",
                maxRate, warmUp);
    }

    /** Writes at full speed for {@value #RATE_SECONDS} s; returns the rate. */
    private double writeAtFullSpeed() {
        long start = System.nanoTime();
        long end = start + RATE_SECONDS * 1_000_000_000L;
        long n = 0;
        while (System.nanoTime() < end) {
            write();
            n++;
        }
        return n / ((System.nanoTime() - start) / 1e9);
    }

    private void write() {
        long i = counter++;
        table.putItem(Item.builder().s("pk", "TICKET#" + (i % 10_000)).s("GSI1PK", "QUEUE#" + (i % 16))
                .s("GSI1SK", sortKey(i)).build());
    }

    /**
     * {@code i} zero-padded to 12 digits, so that string order is write order. Not {@code String.format}: its
     * parser and formatter cost the writer's thread ~1.4 KB and a microsecond per write, the benchmark's own cost.
     */
    static String sortKey(long i) {
        String digits = Long.toString(i);
        return "0".repeat(Math.max(0, 12 - digits.length())) + digits;
    }

    private long lastLsn() {
        IndexDescription index = db.describeTable("Tickets").index("GSI1");
        return index.appliedLsn() + index.lagLsn();
    }

    private long appliedLsn() {
        return db.describeTable("Tickets").index("GSI1").appliedLsn();
    }

    @Setup(Level.Iteration)
    public void startIteration() {
        lags = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        watcherQueries = 0;
        watcherDeadEntries = 0;
        acks = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
    }

    @Benchmark
    public long paced() throws InterruptedException {
        LinkedBlockingQueue<Acked> acked = new LinkedBlockingQueue<>();
        Thread watcher = new Thread(() -> {
            try {
                while (true) {
                    Acked a = acked.take();
                    if (a == END) {
                        return;
                    }
                    if (a.lsn() > appliedLsn()) {
                        // returns once the index holds every write acknowledged before it
                        watcherDeadEntries += table.query(waitForIndex).deadEntriesSkipped();
                        watcherQueries++;
                    }
                    long applied = appliedLsn();
                    long now = System.nanoTime();
                    lags.recordValue(Math.max(0, now - a.nanos()));
                    for (Acked b = acked.peek(); b != null && b != END && b.lsn() <= applied; b = acked.peek()) {
                        lags.recordValue(Math.max(0, now - b.nanos()));
                        acked.poll();
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "lag-watcher");
        watcher.start();
        long interval = (long) (1e9 / (maxRate * load / 100.0));
        long start = System.nanoTime();
        long writes = (long) (seconds * maxRate * load / 100.0);
        for (long i = 0; i < writes; i++) {
            long due = start + i * interval;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait); // pacing the load, not waiting for anything
            }
            long before = System.nanoTime();
            write();
            long ack = System.nanoTime();
            acks.recordValue(ack - before);
            acked.add(new Acked(lastLsn(), ack));
        }
        acked.add(END);
        watcher.join();
        return writes;
    }

    @TearDown(Level.Iteration)
    public void endIteration() {
        System.out.printf(Locale.ROOT, "%n  load %d %% (%.0f writes/s): acknowledgement to visible in the GSI"
                        + " p50 %.3f ms, p99 %.3f ms, max %.3f ms (%d writes);"
                        + " the write itself p50 %.3f ms, p99 %.3f ms, max %.3f ms%n",
                load, maxRate * load / 100.0, lags.getValueAtPercentile(50) / 1e6, lags.getValueAtPercentile(99) / 1e6,
                lags.getMaxValue() / 1e6, lags.getTotalCount(), acks.getValueAtPercentile(50) / 1e6,
                acks.getValueAtPercentile(99) / 1e6, acks.getMaxValue() / 1e6);
        // What the watcher's own reads cost: each steps over the queue head's dead entries, on the updater's processors.
        System.out.printf(Locale.ROOT, "  the watcher's index reads: %d, dead entries stepped over per read %.1f%n",
                watcherQueries, watcherDeadEntries / Math.max(1.0, watcherQueries));
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        db.close();
        if (dir != null) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }
}
