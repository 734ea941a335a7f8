package dev.lacuna.bench;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexDescription;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.KeyAttribute;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
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
 * Index lag (BENCHMARKS.md §4): the time from a write's acknowledgement until it is visible in a GSI, p50, p99
 * and max (HdrHistogram), at {@code load} percent of the table's measured maximum write rate. The trial first
 * measures that maximum (one writer at full speed for {@value #RATE_SECONDS} s, one GSI, {@link MemVfs}, no
 * fsync); each iteration then writes at the fraction asked for {@code seconds} on a fixed schedule (a write
 * that falls behind it is sent at once, not skipped), and a watcher thread notes when the index's applied LSN
 * passes each acknowledged write's: acknowledgement to visible, as a read-your-writes query would see it. The
 * JMH score is the iteration's time and means nothing; the figures are the printed lines (goal: p99 ≤ 5 ms at
 * 50 %).
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

    private Database db;
    private Table table;
    private double maxRate;
    private long counter;
    private Histogram lags;

    /** A write acknowledged: the log's last LSN once it returned (its own or later), and when it returned. */
    private record Acked(long lsn, long nanos) {
    }

    @Setup(Level.Trial)
    public void setUp() {
        db = Database.open(Path.of("/index-lag"), DatabaseOptions.builder().vfs(new MemVfs())
                .durability(Durability.NONE).build());
        db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
                .index(IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK"))).build());
        table = db.table("Tickets");
        long start = System.nanoTime();
        long end = start + RATE_SECONDS * 1_000_000_000L;
        long n = 0;
        while (System.nanoTime() < end) {
            write();
            n++;
        }
        maxRate = n / ((System.nanoTime() - start) / 1e9);
        System.out.printf(Locale.ROOT, "%n  maximum write rate with one GSI: %.0f writes/s%n", maxRate);
    }

    private void write() {
        long i = counter++;
        table.putItem(Item.builder().s("pk", "TICKET#" + (i % 10_000)).s("GSI1PK", "QUEUE#" + (i % 16))
                .s("GSI1SK", String.format(Locale.ROOT, "%012d", i)).build());
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
    }

    @Benchmark
    public long paced() throws InterruptedException {
        ConcurrentLinkedQueue<Acked> acked = new ConcurrentLinkedQueue<>();
        boolean[] writing = {true};
        Thread watcher = new Thread(() -> {
            while (true) {
                Acked a = acked.peek();
                if (a == null) {
                    synchronized (writing) {
                        if (!writing[0]) {
                            return;
                        }
                    }
                    Thread.onSpinWait();
                    continue;
                }
                long applied = appliedLsn();
                long now = System.nanoTime();
                while (a != null && a.lsn() <= applied) {
                    lags.recordValue(Math.max(0, now - a.nanos()));
                    acked.poll();
                    a = acked.peek();
                }
                Thread.yield(); // leave the updater the processor between two looks
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
            write();
            long ack = System.nanoTime();
            acked.add(new Acked(lastLsn(), ack));
        }
        synchronized (writing) {
            writing[0] = false;
        }
        watcher.join();
        return writes;
    }

    @TearDown(Level.Iteration)
    public void endIteration() {
        System.out.printf(Locale.ROOT, "%n  load %d %% (%.0f writes/s): acknowledgement to visible in the GSI p50 %.3f ms,"
                        + " p99 %.3f ms, max %.3f ms (%d writes)%n", load, maxRate * load / 100.0,
                lags.getValueAtPercentile(50) / 1e6, lags.getValueAtPercentile(99) / 1e6, lags.getMaxValue() / 1e6,
                lags.getTotalCount());
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        db.close();
    }
}
