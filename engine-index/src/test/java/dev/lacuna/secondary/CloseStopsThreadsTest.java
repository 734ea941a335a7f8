package dev.lacuna.secondary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexSpec;
import dev.lacuna.IndexStatus;
import dev.lacuna.Item;
import dev.lacuna.KeyAttribute;
import dev.lacuna.PutItem;
import dev.lacuna.Query;
import dev.lacuna.TableSpec;
import dev.lacuna.TransactWrite;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.storage.Durability;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code Database.close()} stops every thread the database started — each global index's updater (running,
 * backfilling, or restarted by recovery at open), the time-to-live sweeper ({@code lacuna-ttl-sweeper}), the
 * store's background pool and the log's syncer — before it returns; and dropping an index or deleting a table
 * stops that index's updater before the call returns.
 *
 * <p>Which threads are the database's is not guessed from names: the whole scenario runs on a driver thread in
 * a thread group of its own, and a thread belongs to the group of the thread that creates it, so every thread
 * the database starts (and every thread those start) lands in that group. Before each close the group must hold
 * the threads named above — so the capture is shown to work — and right after it, none but the driver. There is
 * no waiting: close() promises they are gone when it returns. A second check looks at every thread of the JVM
 * named {@code lacuna-*} that was not alive before the test.
 */
class CloseStopsThreadsTest {
    private static final Duration WAIT = Duration.ofMinutes(2);

    @TempDir
    Path dir;

    private static TableSpec tickets(boolean withSecondGlobalIndex) {
        TableSpec.Builder b = TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
                .sortKey("sk", AttributeValue.Type.S).partitions(2)
                .index(IndexSpec.global("Queue", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK")))
                .index(IndexSpec.local("ByStatus", KeyAttribute.s("status")));
        if (withSecondGlobalIndex) {
            b.index(IndexSpec.global("ByAssignee", KeyAttribute.s("assignee"), KeyAttribute.s("sk")));
        }
        return b.build();
    }

    private static DatabaseOptions options() {
        // Small memtables: the load flushes and compacts, so the background pool has threads to stop.
        // Durability.NONE keeps the load quick; one batched write below starts the log's syncer thread.
        return DatabaseOptions.builder().durability(Durability.NONE).storage(KvOptions.builder()
                .memtableBytes(32 * 1024).memoryBudget(256 * 1024).build()).build();
    }

    @Test
    void shouldStopEveryThreadOfTheDatabaseOnClose() throws Exception {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        ThreadGroup group = new ThreadGroup("lacuna-under-test");
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<String> checked = new ArrayList<>();
        Thread driver = new Thread(group, () -> {
            try {
                scenario(group, checked);
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "close-test-driver");
        driver.start();
        driver.join(TimeUnit.MINUTES.toMillis(5));
        assertThat(driver.isAlive()).as("the scenario ended").isFalse();
        if (failure.get() != null) {
            throw new AssertionError("scenario failed", failure.get());
        }
        List<String> leaked = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> !before.contains(t) && t.isAlive() && t.getName().startsWith("lacuna-"))
                .map(Thread::getName).toList();
        assertThat(leaked).as("threads named lacuna-* started by the test and still alive").isEmpty();
        System.out.println("close stopped every database thread: " + String.join("; ", checked));
    }

    private void scenario(ThreadGroup group, List<String> checked) throws Exception {
        try (Database db = Database.open(dir, options())) {
            db.createTable(tickets(true));
            db.createTable(TableSpec.builder("Archive").partitionKey("pk", AttributeValue.Type.S)
                    .index(IndexSpec.global("ByMonth", KeyAttribute.s("month"), KeyAttribute.s("pk"))).build());
            db.updateTimeToLive("Tickets", "expiresAt", true);
            for (int i = 0; i < 2_000; i++) {
                db.table("Tickets").putItem(ticket(i));
                db.table("Archive").putItem(Item.builder().s("pk", "OLD#" + i).s("month", "2026-" + (i % 12))
                        .s("body", "x".repeat(100)).build());
            }
            batchedWrite(db, 2_000);
            assertThat(db.table("Tickets").query(openQueue().readYourWrites(WAIT)).items()).isNotEmpty();
            assertThat(db.storageStats().flushes()).as("flushes during the load").isPositive();

            // Dropping an index and deleting a table stop their updaters before they return.
            assertThat(alive(group)).contains("lacuna-index-Tickets-ByAssignee", "lacuna-index-Archive-ByMonth");
            db.updateTable(tickets(false));
            assertThat(alive(group)).as("after the index was dropped").doesNotContain("lacuna-index-Tickets-ByAssignee");
            db.deleteTable("Archive");
            assertThat(alive(group)).as("after the table was deleted").doesNotContain("lacuna-index-Archive-ByMonth");
            checked.add("index dropped: its updater gone; table deleted: its updater gone");

            // An index still backfilling when the database closes.
            assertThat(db.updateTable(tickets(true)).index("ByAssignee").status()).isIn(IndexStatus.CREATING,
                    IndexStatus.ACTIVE);
            List<String> open = alive(group);
            assertThat(open).contains("lacuna-index-Tickets-Queue", "lacuna-index-Tickets-ByAssignee",
                    "lacuna-ttl-sweeper");
            assertThat(open).anyMatch(n -> n.startsWith("lacuna-bg-"));
            assertThat(open).anyMatch(n -> n.startsWith("lacuna-wal-sync-"));
            checked.add("first open: " + open.size() + " threads before close");
        }
        assertThat(alive(group)).as("threads of the database alive after close()").isEmpty();
        checked.add("first close: 0 after");

        // Updaters started by recovery at open.
        try (Database db = Database.open(dir, options())) {
            assertThat(db.table("Tickets").query(openQueue().readYourWrites(WAIT)).items()).isNotEmpty();
            batchedWrite(db, 2_001);
            List<String> open = alive(group);
            assertThat(open).contains("lacuna-index-Tickets-Queue", "lacuna-index-Tickets-ByAssignee",
                    "lacuna-ttl-sweeper");
            assertThat(open).anyMatch(n -> n.startsWith("lacuna-wal-sync-"));
            checked.add("reopened: " + open.size() + " threads before close");
        }
        assertThat(alive(group)).as("threads of the reopened database alive after close()").isEmpty();
        checked.add("second close: 0 after");
    }

    /** A write with batched durability: the log's syncer thread fsyncs it. */
    private static void batchedWrite(Database db, int i) {
        db.transactWriteItems(List.of(new TransactWrite("Tickets", new PutItem(ticket(i)))), null,
                Durability.batched(Duration.ofMillis(20)));
    }

    private static Item ticket(int i) {
        Item.Builder b = Item.builder().s("pk", "TICKET#" + i).s("sk", "META").s("assignee", "agent-" + i % 5)
                .s("status", i % 3 == 0 ? "OPEN" : "CLOSED").n("expiresAt", 4_000_000_000L + i)
                .s("body", "y".repeat(100));
        if (i % 3 == 0) {
            b.s("GSI1PK", "QUEUE#open").s("GSI1SK", String.format("%08d", i));
        }
        return b.build();
    }

    private static Query openQueue() {
        return new Query("GSI1PK = :q").index("Queue").value(":q", AttributeValue.s("QUEUE#open"));
    }

    /** Names of the live threads of {@code group}, other than the calling (driver) thread. */
    private static List<String> alive(ThreadGroup group) {
        Thread[] threads = new Thread[group.activeCount() + 16];
        int n;
        while ((n = group.enumerate(threads, true)) == threads.length) {
            threads = new Thread[threads.length * 2];
        }
        return Arrays.stream(threads, 0, n).filter(t -> t != Thread.currentThread() && t.isAlive())
                .map(Thread::getName).sorted().collect(Collectors.toList());
    }
}
