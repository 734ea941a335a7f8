package dev.lacuna.secondary;

import static dev.lacuna.AttributeValue.s;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.KeyAttribute;
import dev.lacuna.Page;
import dev.lacuna.Query;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A queue whose entries move rather than close within moments: every write moves one of {@value #TICKETS}
 * tickets to the tail of one of {@value #QUEUES} queues (IndexLagBenchmark's workload), so each index entry
 * stays open for {@value #TICKETS} records and is then deleted. A read of a queue's head must step over few
 * dead entries, across several of the updater's routine checkpoints: a checkpoint that pushes open entries
 * into a file leaves, for each one later moved, a tombstone over a put at the head of its queue until a
 * compaction meets the two. With the checkpoint's young window at 4,096 LSNs (half the entries' life) this
 * measured 168–818 dead entries per head read (mean ~450); with it wider than their life, 0–82 (mean ~15): what
 * is left are deletions whose put was carried into the active memtable, which a purge may not remove until the
 * memtable it came from is flushed, and which a checkpoint in that time writes to a file as tombstones.
 */
class MovingQueueReadCostTest {
    private static final int TICKETS = 10_000;
    private static final int QUEUES = 16;
    /** Reads begin once every ticket has moved a few times and the first checkpoints have been taken. */
    private static final int FIRST_READ = (int) GlobalIndexUpdater.CHECKPOINT_RECORDS;
    /** Three routine checkpoints past the first read at least. */
    private static final int WRITES = FIRST_READ + 3 * (int) GlobalIndexUpdater.CHECKPOINT_RECORDS + 10_000;
    private static final int READ_EVERY = 10_000;
    private static final int HEAD = 10;
    /** Mean dead entries per read: well above what a window wider than the entries' life leaves, far below 450. */
    private static final double MAX_MEAN_DEAD = 64;
    /** No single read may step over more than a few times the mean bound (the narrower window's worst was 818). */
    private static final long MAX_DEAD = 4 * (long) MAX_MEAN_DEAD;

    @Test
    void shouldReadAMovingQueuesHeadAtTheCostOfItsOpenEntries() {
        DatabaseOptions options = DatabaseOptions.builder().vfs(new MemVfs()).durability(Durability.NONE).build();
        try (Database db = Database.open(Path.of("/moving"), options)) {
            db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
                    .index(IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK"))).build());
            Table tickets = db.table("Tickets");
            List<Long> dead = new ArrayList<>();
            for (int n = 0; n < WRITES; n++) {
                move(tickets, n);
                if (n >= FIRST_READ && (n + 1) % READ_EVERY == 0) {
                    Page head = tickets.query(new Query("GSI1PK = :q").index("GSI1").value(":q", s("QUEUE#0"))
                            .limit(HEAD).readYourWrites(Duration.ofMinutes(1)));
                    assertThat(sortKeys(head)).as("head of QUEUE#0 after %d writes", n + 1)
                            .containsExactlyElementsOf(expectedHead(n));
                    dead.add((long) head.deadEntriesSkipped());
                }
            }
            double mean = dead.stream().mapToLong(Long::longValue).average().orElseThrow();
            System.out.printf(java.util.Locale.ROOT, "moving queue head reads: %d, dead entries skipped per read %s,"
                    + " mean %.1f%n", dead.size(), dead, mean);
            assertThat(mean).as("mean dead entries skipped per read of the head, reads %s", dead)
                    .isLessThanOrEqualTo(MAX_MEAN_DEAD);
            assertThat(dead).as("dead entries skipped by each read of the head").allMatch(d -> d <= MAX_DEAD);
        }
    }

    /** Write {@code n} moves ticket {@code n % TICKETS} to the tail of queue {@code n % QUEUES}. */
    private static void move(Table tickets, int n) {
        tickets.putItem(Item.builder().s("pk", "TICKET#" + (n % TICKETS)).s("GSI1PK", "QUEUE#" + (n % QUEUES))
                .s("GSI1SK", sortKey(n)).build());
    }

    private static String sortKey(int n) {
        return String.format("%09d", n);
    }

    /**
     * After write {@code last}, a ticket's current entry is its last write: write {@code w} is current when no
     * later write moved its ticket, that is when {@code w > last - TICKETS}. QUEUE#0 holds the current writes
     * with {@code w % QUEUES == 0}, oldest first.
     */
    private static List<String> expectedHead(int last) {
        List<String> head = new ArrayList<>();
        int first = Math.max(0, last - TICKETS + 1);
        for (int w = first + Math.floorMod(-first, QUEUES); w <= last && head.size() < HEAD; w += QUEUES) {
            head.add(sortKey(w));
        }
        return head;
    }

    private static List<String> sortKeys(Page page) {
        return page.items().stream().map(i -> ((AttributeValue.S) i.get("GSI1SK")).value()).toList();
    }
}
