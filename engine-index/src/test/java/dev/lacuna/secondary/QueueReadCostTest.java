package dev.lacuna.secondary;

import static dev.lacuna.AttributeValue.s;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.storage.Durability;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.KeyAttribute;
import dev.lacuna.Page;
import dev.lacuna.Query;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.UpdateItem;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.KvStats;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The helpdesk seed's promise, measured: "a helpdesk with a million closed tickets and forty open ones has
 * an index of forty, and the queue costs forty reads no matter how much history sits beside it".
 *
 * <p>For each history size (a fresh database each, default options but an in-memory file system and
 * {@code Durability.NONE} to keep the load fast) tickets open (a put carrying the index keys) and close
 * (SET status, REMOVE GSI1PK, GSI1SK) in bursts, oldest first, as a real queue churns, until exactly
 * {@value #OPEN} are open. Right after the load — no manual flush or compaction — one read-your-writes
 * queue read waits for the index updater to catch up, then a few plain queue reads follow. The first read
 * after the catch-up is the one reported: its {@link Page#deadEntriesSkipped()} is what the backlog of
 * closed tickets still costs a reader. History sizes: {@code -Dqueue.history=1000,100000,1000000}.
 */
class QueueReadCostTest {
    private static final int OPEN = 40;
    private static final int MAX_BURST = 16;
    private static final int READS_AFTER_CATCH_UP = 3;
    /** The catch-up read waits for the updater to apply the whole load (two million log records at 10⁶). */
    private static final Duration CATCH_UP = Duration.ofMinutes(5);

    private static List<Integer> histories() {
        String spec = System.getProperty("queue.history", "");
        if (spec.isBlank()) {
            return List.of(1_000, 100_000, 1_000_000);
        }
        return Arrays.stream(spec.split(",")).map(String::trim).map(Integer::parseInt).toList();
    }

    /** What one history size measured. */
    private record Run(List<Long> skippedPerRead, KvStats stats, long loadMillis, long catchUpMillis) {
        long reported() {
            return skippedPerRead.get(1); // the first read after the catch-up read
        }
    }

    @Test
    void shouldReadTheOpenQueueAtACostThatDoesNotGrowWithHistory() {
        Map<Integer, Run> runs = new LinkedHashMap<>();
        for (int history : histories()) {
            runs.put(history, run(history));
        }
        Map<Integer, Long> skipped = new LinkedHashMap<>();
        runs.forEach((h, r) -> skipped.put(h, r.reported()));
        System.out.println("queue read dead entries skipped: " + skipped);
        StringBuilder context = new StringBuilder("  per read (catch-up read first):");
        runs.forEach((h, r) -> context.append(' ').append(h).append('=').append(r.skippedPerRead())
                .append(" [load ").append(r.loadMillis()).append(" ms, catch-up ").append(r.catchUpMillis())
                .append(" ms, flushes ").append(r.stats().flushes()).append(", scan-triggered flushes ")
                .append(r.stats().scanTriggeredFlushes()).append(", compactions ").append(r.stats().compactions())
                .append(", deletions in files ").append(r.stats().deletionsInFiles()).append(']'));
        System.out.println(context);

        // What a reader still steps over once the updater has caught up: deletions of queue entries whose puts
        // were flushed before the ticket closed. They sit in the queue partition's memtable (a put and its
        // deletion that meet there are purged at once) and in its level-0 files until the next compaction
        // merges them away, each hiding one put. Every flush carries at most the tickets open at that moment,
        // and level 0 holds a few files, so this is a multiple of the open queue (measured: a few hundred at
        // most, rising and falling with where the last flush fell), never of the history. A scan that met
        // deadEntryTrigger of them would itself have a flush and a compaction scheduled. Hence a bound in
        // deadEntryTrigger that holds for any history, and no more at the largest history than at the
        // smallest plus that constant: growth with history would break both.
        // The bound is a small multiple of what is measured (0 to 140 dead entries at 10^3 to 10^6 closed
        // tickets), not the trigger's 1,024: a regression of a few times fails here.
        long trigger = KvOptions.builder().build().deadEntryTrigger();
        // Only a read that stepped over the trigger's worth of dead entries may freeze a memtable (a queue read
        // reads one partition: one flush at most), and nothing else in these runs scans: so the scan-triggered
        // flushes printed above are at most the reads that reached the trigger, none when none did.
        // ScanTriggeredFlushTest shows the trigger firing at its threshold and not one below.
        runs.forEach((h, r) -> assertThat(r.stats().scanTriggeredFlushes())
                .as("scan-triggered flushes after %d closed tickets, reads %s", h, r.skippedPerRead())
                .isLessThanOrEqualTo(r.skippedPerRead().stream().filter(n -> n >= trigger).count()));
        long bound = trigger / 2;
        int smallest = Collections.min(skipped.keySet());
        for (Map.Entry<Integer, Long> e : skipped.entrySet()) {
            assertThat(e.getValue()).as("dead entries skipped after %d closed tickets", e.getKey())
                    .isLessThanOrEqualTo(bound)
                    .isLessThanOrEqualTo(skipped.get(smallest) + bound);
        }
    }

    private static Run run(int history) {
        MemVfs vfs = new MemVfs();
        DatabaseOptions options = DatabaseOptions.builder().vfs(vfs).durability(Durability.NONE).build();
        try (Database db = Database.open(Path.of("/helpdesk"), options)) {
            db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
                    .index(IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK"))).build());
            Table tickets = db.table("Tickets");
            Random random = new Random(history);
            Deque<Integer> open = new ArrayDeque<>();
            int next = 0;
            long start = System.nanoTime();
            for (; next < OPEN; next++) {
                openTicket(tickets, next);
                open.add(next);
            }
            int closed = 0;
            while (closed < history) {
                int burst = Math.min(1 + random.nextInt(MAX_BURST), history - closed);
                for (int i = 0; i < burst; i++, next++) {
                    openTicket(tickets, next);
                    open.add(next);
                }
                for (int i = 0; i < burst; i++) {
                    closeTicket(tickets, open.poll());
                }
                closed += burst;
            }
            long loaded = System.nanoTime();
            List<String> expected = open.stream().map(QueueReadCostTest::id).toList();

            List<Long> skipped = new ArrayList<>();
            Page caughtUp = tickets.query(queue().readYourWrites(CATCH_UP));
            long catchUpMillis = (System.nanoTime() - loaded) / 1_000_000;
            assertThat(ids(caughtUp)).as("queue after %d closed tickets", history).containsExactlyElementsOf(expected);
            skipped.add(caughtUp.deadEntriesSkipped());
            for (int i = 0; i < READS_AFTER_CATCH_UP; i++) {
                Page page = tickets.query(queue());
                assertThat(ids(page)).containsExactlyElementsOf(expected);
                assertThat(page.hasMore()).isFalse();
                skipped.add(page.deadEntriesSkipped());
            }
            return new Run(skipped, db.storageStats(), (loaded - start) / 1_000_000, catchUpMillis);
        }
    }

    private static String id(int n) {
        return "TICKET#" + n;
    }

    /** Opening times increase with the ticket number; zero-padded so that string order is time order. */
    private static String openedAt(int n) {
        return String.format("%013d", 1_700_000_000_000L + 1_000L * n);
    }

    private static void openTicket(Table tickets, int n) {
        tickets.putItem(Item.builder().s("pk", id(n)).s("subject", "printer on floor " + (n % 7)).s("status", "OPEN")
                .s("assignee", "agent-" + (n % 5)).n("openedAt", 1_700_000_000_000L + 1_000L * n)
                .s("GSI1PK", "QUEUE#open").s("GSI1SK", openedAt(n)).build());
    }

    private static void closeTicket(Table tickets, int n) {
        tickets.updateItem(new UpdateItem(Key.of("pk", s(id(n)))).update("SET #s = :closed REMOVE GSI1PK, GSI1SK")
                .name("#s", "status").value(":closed", s("CLOSED")));
    }

    private static Query queue() {
        return new Query("GSI1PK = :q").index("GSI1").value(":q", s("QUEUE#open"));
    }

    private static List<String> ids(Page page) {
        return page.items().stream().map(i -> ((AttributeValue.S) i.get("pk")).value()).toList();
    }
}
