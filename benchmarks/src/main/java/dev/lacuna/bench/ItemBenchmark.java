package dev.lacuna.bench;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.storage.Durability;
import dev.lacuna.GetItem;
import dev.lacuna.IndexSpec;
import dev.lacuna.KeyAttribute;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.Page;
import dev.lacuna.PutItem;
import dev.lacuna.Query;
import dev.lacuna.ReturnValues;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.UpdateItem;
import dev.lacuna.vfs.NioVfs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
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
 * Item-level operations on the helpdesk model (shared/seeds/helpdesk-support-ticket-queue.txt;
 * BENCHMARKS.md §3), through the public {@link Database} API with default options except durability:
 *
 * <ul>
 *   <li>{@code getItem}: one ticket by its key ({@code TICKET#<id>}), every read hits.</li>
 *   <li>{@code putItem}: replaces a random ticket with a fresh one (all six attributes).</li>
 *   <li>{@code updateItem}: {@code SET assignee = :a, openedAt = openedAt + :one} on a random ticket, with
 *       the condition {@code attribute_exists(pk)} (one read of the before-image, one log record).</li>
 *   <li>{@code query50}: the 50 open tickets of the queue, oldest first, read as one Query of a partition
 *       keyed like the seed's GSI1 ({@code GSI1PK = "QUEUE#open"}, sort key {@code GSI1SK} = the opening
 *       time). Until secondary indexes are maintained (engine-index), the queue is a table written by the
 *       benchmark's setup, as an application would keep it by hand; the read path is the same.</li>
 * </ul>
 *
 * {@code gsis} global secondary indexes (0, 1 or 3) are kept on the tickets table: each write then also
 * logs the ticket it replaces, and the indexes' updaters apply the change in the background (their work
 * competes for the same cores, which is part of the cost measured).
 *
 * <p>{@code tickets} tickets are loaded in the trial setup (outside the measurement) and flushed.
 * {@code durability} is {@code NONE} by default (each write reaches the operating system before it returns,
 * no fsync per write, as in {@link KvStoreBenchmark}); {@code SYNC} measures the disk instead.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar ItemBenchmark -f 1 -wi 2 -w 3s -i 5 -r 3s}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 5, time = 3)
public class ItemBenchmark {
    static final int OPEN = 50;

    @Param({"100000"})
    public int tickets;

    @Param({"NONE"})
    public String durability;

    /** Global secondary indexes on the tickets table: 0, 1 (the seed's queue, GSI1) or 3 (GSI1 and two more). */
    @Param({"0"})
    public int gsis;

    private Path dir;
    private Database db;
    private Table tickets0;
    private Table queue;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        dir = Files.createTempDirectory("lacuna-item-bench");
        Durability d = "SYNC".equals(durability) ? Durability.SYNC : Durability.NONE;
        db = Database.open(dir, DatabaseOptions.builder().vfs(new NioVfs()).durability(d).build());
        TableSpec.Builder spec = TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S);
        if (gsis >= 1) {
            spec.index(IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK")));
        }
        if (gsis >= 3) {
            spec.index(IndexSpec.global("ByAssignee", KeyAttribute.s("assignee"), KeyAttribute.n("openedAt")));
            spec.index(IndexSpec.global("ByStatus", KeyAttribute.s("status"), KeyAttribute.n("openedAt"))
                    .withProjection(IndexSpec.Projection.KEYS_ONLY));
        }
        db.createTable(spec.build());
        db.createTable(TableSpec.builder("Queue").partitionKey("GSI1PK", AttributeValue.Type.S)
                .sortKey("GSI1SK", AttributeValue.Type.S).build());
        tickets0 = db.table("Tickets");
        queue = db.table("Queue");
        for (int i = 0; i < tickets; i++) {
            tickets0.putItem(ticket(i, i >= tickets - OPEN));
        }
        for (int i = tickets - OPEN; i < tickets; i++) {
            Item t = ticket(i, true);
            queue.putItem(Item.builder().put("GSI1PK", t.get("GSI1PK")).put("GSI1SK", t.get("GSI1SK"))
                    .put("pk", t.get("pk")).put("subject", t.get("subject")).put("assignee", t.get("assignee"))
                    .put("openedAt", t.get("openedAt")).build());
        }
        db.flush();
    }

    static Item ticket(int id, boolean open) {
        long openedAt = 1_700_000_000L + id;
        Item.Builder b = Item.builder().s("pk", "TICKET#" + id).s("subject", "Printer on floor " + (id % 40)
                + " jams on every second page").s("status", open ? "OPEN" : "CLOSED").s("assignee", "agent-" + (id % 17))
                .n("openedAt", openedAt);
        if (open) {
            b.s("GSI1PK", "QUEUE#open").s("GSI1SK", Long.toString(openedAt));
        }
        return b.build();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        db.close();
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private Key randomKey() {
        return Key.of("pk", AttributeValue.s("TICKET#" + ThreadLocalRandom.current().nextInt(tickets)));
    }

    @Benchmark
    public Object getItem() {
        return tickets0.getItem(new GetItem(randomKey())).orElseThrow();
    }

    @Benchmark
    public Object putItem() {
        int id = ThreadLocalRandom.current().nextInt(tickets - OPEN);
        return tickets0.putItem(new PutItem(ticket(id, false)).returnValues(ReturnValues.NONE));
    }

    @Benchmark
    public Object updateItem() {
        return tickets0.updateItem(new UpdateItem(randomKey()).update("SET assignee = :a, openedAt = openedAt + :one")
                .condition("attribute_exists(pk)").value(":a", AttributeValue.s("agent-7"))
                .value(":one", AttributeValue.n(1)));
    }

    @Benchmark
    public Page query50() {
        Page page = queue.query(new Query("GSI1PK = :q").value(":q", AttributeValue.s("QUEUE#open")));
        if (page.count() != OPEN) {
            throw new IllegalStateException("the queue holds " + page.count() + " tickets, not " + OPEN);
        }
        return page;
    }
}
