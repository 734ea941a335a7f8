package dev.lacuna.bench;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexDescription;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.KeyAttribute;
import dev.lacuna.Query;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.UpdateItem;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
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
 * One item moved at full speed within a GSI while the index is read (issue 13): a background writer updates
 * the item's index sort key back and forth between the head and the tail of a queue of {@value #STABLE} other
 * items, as fast as it can, on {@link MemVfs} (no fsync cost), while the benchmark thread reads the whole
 * queue, with or without read-your-writes. No warm-up: each 10 s iteration is a stretch of the same run, so
 * the first and the last iteration compare the read time and the index lag at the start and after
 * minutes of moves (goal: the last within 1.15× of the first, the lag within
 * {@link DatabaseOptions#maxIndexLagRecords()}). After each iteration a line gives the mover's writes per
 * second, the index's largest lag seen by the reads (records and ms) and how long the mover was held back.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar HotItemBenchmark -f 1 -wi 0 -i 6 -r 10s}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 0)
@Measurement(iterations = 6, time = 10)
public class HotItemBenchmark {
    static final int STABLE = 1_000;
    private static final Duration RYW_TIMEOUT = Duration.ofMinutes(5);

    /** Whether each read waits for the index to hold every write acknowledged before it. */
    @Param({"false", "true"})
    public boolean readYourWrites;

    /** {@link DatabaseOptions#maxIndexLagRecords()}; 0 for no back-pressure. */
    @Param({"100000"})
    public long maxIndexLagRecords;

    private Database db;
    private Table table;
    private Query read;
    private Thread mover;
    private volatile boolean stop;
    private final AtomicLong moves = new AtomicLong();
    private final AtomicReference<Throwable> moverFailure = new AtomicReference<>();
    private final AtomicLong maxLagRecords = new AtomicLong();
    private final AtomicLong maxLagMillis = new AtomicLong();
    private long iterationStart;
    private long movesAtStart;
    private long stallAtStart;
    private int iteration;

    @Setup(Level.Trial)
    public void setUp() {
        db = Database.open(Path.of("/hot-item"), DatabaseOptions.builder().vfs(new MemVfs())
                .durability(Durability.NONE).maxIndexLagRecords(maxIndexLagRecords).build());
        db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
                .index(IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK"))).build());
        table = db.table("Tickets");
        for (int i = 0; i < STABLE; i++) {
            table.putItem(Item.builder().s("pk", "T" + i).s("GSI1PK", "QUEUE#open")
                    .s("GSI1SK", String.format(Locale.ROOT, "P2#%05d", i)).build());
        }
        table.putItem(Item.builder().s("pk", "MOVER").s("GSI1PK", "QUEUE#open").s("GSI1SK", "P1#").build());
        Query base = new Query("GSI1PK = :q").index("GSI1").value(":q", AttributeValue.s("QUEUE#open"));
        table.query(base.readYourWrites(RYW_TIMEOUT));
        read = readYourWrites ? base.readYourWrites(RYW_TIMEOUT) : base;
        mover = new Thread(() -> {
            try {
                for (long i = 0; !stop; i++) { // to the tail of the queue and back to its head
                    table.updateItem(new UpdateItem(Key.of("pk", AttributeValue.s("MOVER"))).update("SET GSI1SK = :p")
                            .value(":p", AttributeValue.s(i % 2 == 0 ? "P3#" : "P1#")));
                    moves.incrementAndGet();
                }
            } catch (Throwable e) {
                moverFailure.set(e);
            }
        }, "mover");
        mover.start();
    }

    @Setup(Level.Iteration)
    public void startIteration() {
        iterationStart = System.nanoTime();
        movesAtStart = moves.get();
        stallAtStart = db.stats().indexWriteStallMillis();
        maxLagRecords.set(0);
        maxLagMillis.set(0);
    }

    @Benchmark
    public int readQueue() {
        int n = table.query(read).items().size(); // one page: 1,001 small items are far below its 1 MB
        IndexDescription index = db.describeTable("Tickets").index("GSI1");
        maxLagRecords.accumulateAndGet(index.lagLsn(), Math::max);
        maxLagMillis.accumulateAndGet(index.lagMillis(), Math::max);
        if (n != STABLE + 1) {
            throw new IllegalStateException("read " + n + " items of " + (STABLE + 1));
        }
        return n;
    }

    @TearDown(Level.Iteration)
    public void endIteration() {
        double seconds = (System.nanoTime() - iterationStart) / 1e9;
        System.out.printf(Locale.ROOT, "%n  iteration %d: mover %.0f writes/s, index lag at most %d records / %d ms, "
                        + "mover held %d ms%n", ++iteration, (moves.get() - movesAtStart) / seconds, maxLagRecords.get(),
                maxLagMillis.get(), db.stats().indexWriteStallMillis() - stallAtStart);
        if (moverFailure.get() != null) {
            throw new IllegalStateException("the mover failed", moverFailure.get());
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        stop = true;
        mover.join();
        db.close();
    }
}
