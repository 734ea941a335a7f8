package dev.lacuna.secondary;

import dev.lacuna.vfs.testing.ManualClock;
import static dev.lacuna.AttributeValue.n;
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
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Time to live on tables with indexes, by a clock the test moves. The helpdesk's closed tickets expire 30
 * days after closing: the sweeper's deletes take them out of the closed-ticket history (a GSI) and out of a
 * local index, while the open queue (another GSI) reads exactly as before. Reads hide expired items also
 * through an index that does not project the time-to-live attribute.
 */
class TimeToLiveIndexTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final long DAY = 86_400;

    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));

    private static TableSpec tickets() {
        return TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
                .index(IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK")))
                .index(IndexSpec.global("GSI2", KeyAttribute.s("GSI2PK"), KeyAttribute.s("GSI2SK")))
                .index(IndexSpec.global("ByAgent", KeyAttribute.s("agent"), null).withProjection(IndexSpec.Projection.KEYS_ONLY))
                .build();
    }

    private static TableSpec workOrders() {
        return TableSpec.builder("WorkOrders").partitionKey("region", AttributeValue.Type.S)
                .sortKey("id", AttributeValue.Type.S).index(IndexSpec.local("ByClosedAt", KeyAttribute.s("closedAt")))
                .build();
    }

    /**
     * Opens tickets 1–5 (in the queue) and closes tickets 6–15 (in the history): 6–10 closed 29.5 days ago, so
     * that they expire within the next day, 11–15 yesterday. Work orders 1–4 and 5–6 likewise.
     */
    private void load(Database db) {
        Table t = db.table("Tickets");
        long now = clock.instant().getEpochSecond();
        for (int i = 1; i <= 5; i++) {
            t.putItem(Item.builder().s("pk", "TICKET#" + i).s("status", "OPEN").s("agent", "ana")
                    .s("GSI1PK", "QUEUE#open").s("GSI1SK", String.format("%010d", now - i)).build());
        }
        for (int i = 6; i <= 15; i++) {
            long closedAt = i <= 10 ? now - 29 * DAY - DAY / 2 : now - DAY;
            t.putItem(Item.builder().s("pk", "TICKET#" + i).s("status", "CLOSED").s("agent", "ana")
                    .s("GSI2PK", "HISTORY").s("GSI2SK", String.format("%010d#%02d", closedAt, i))
                    .n("expiresAt", closedAt + 30 * DAY).build());
        }
        Table w = db.table("WorkOrders");
        for (int i = 1; i <= 6; i++) {
            long closedAt = i <= 4 ? now - 29 * DAY - DAY / 2 : now - DAY;
            w.putItem(Item.builder().s("region", "north").s("id", "WO#" + i).s("closedAt", String.valueOf(closedAt))
                    .n("expiresAt", closedAt + 30 * DAY).build());
        }
    }

    private static Query history() {
        return new Query("GSI2PK = :h").index("GSI2").value(":h", s("HISTORY")).readYourWrites(WAIT);
    }

    private static Query queue() {
        return new Query("GSI1PK = :q").index("GSI1").value(":q", s("QUEUE#open")).readYourWrites(WAIT);
    }

    private static Query closedOrders() {
        return new Query("#r = :r AND closedAt > :z").index("ByClosedAt").name("#r", "region")
                .value(":r", s("north")).value(":z", s("0"));
    }

    private static List<String> ids(Page page, String attribute) {
        return page.items().stream().map(i -> ((AttributeValue.S) i.get(attribute)).value()).toList();
    }

    @Test
    void shouldTakeExpiredTicketsOutOfTheHistoryAndLeaveTheQueueAsItWas() {
        // Expired items are returned until deleted, so what the reads show is what the indexes hold.
        DatabaseOptions options = DatabaseOptions.builder().vfs(new MemVfs()).clock(clock).returnExpiredItems(true)
                .timeToLiveSweepInterval(Duration.ofMillis(10)).build();
        try (Database db = Database.open(Path.of("/db"), options)) {
            db.createTable(tickets());
            db.createTable(workOrders());
            db.updateTimeToLive("Tickets", "expiresAt", true);
            db.updateTimeToLive("WorkOrders", "expiresAt", true);
            load(db);
            Table t = db.table("Tickets");
            List<String> queueBefore = ids(t.query(queue()), "pk");
            assertThat(queueBefore).hasSize(5);
            assertThat(t.query(history()).count()).isEqualTo(10);
            assertThat(db.table("WorkOrders").query(closedOrders()).count()).isEqualTo(6);

            clock.advance(Duration.ofDays(1)); // tickets 6–10 and orders 1–4 are now 30.5 days closed: expired
            IndexChecker.await(() -> t.query(history()).count() == 5, WAIT, "history still holding expired tickets");
            IndexChecker.await(() -> db.table("WorkOrders").query(closedOrders()).count() == 2, WAIT,
                    "local index still holding expired orders");

            Page history = t.query(history());
            assertThat(ids(history, "pk")).containsExactlyInAnyOrder("TICKET#11", "TICKET#12", "TICKET#13", "TICKET#14",
                    "TICKET#15");
            assertThat(history.scannedCount()).as("entries the history index still holds").isEqualTo(5);
            assertThat(ids(db.table("WorkOrders").query(closedOrders()), "id")).containsExactly("WO#5", "WO#6");
            assertThat(ids(t.query(queue()), "pk")).as("the queue").isEqualTo(queueBefore);
            IndexChecker.awaitCatchUp(db, "Tickets", "GSI2", WAIT);
            assertThat(t.query(new Query("#g = :a").index("ByAgent").name("#g", "agent").value(":a", s("ana")).readYourWrites(WAIT))
                    .count()).as("tickets of the agent").isEqualTo(10);
        }
    }

    @Test
    void shouldHideExpiredItemsFromIndexReadsBeforeTheyAreSwept() {
        // The sweeper rests an hour: only the reads' own check stands between the reader and expired items.
        DatabaseOptions options = DatabaseOptions.builder().vfs(new MemVfs()).clock(clock)
                .timeToLiveSweepInterval(Duration.ofHours(1)).build();
        try (Database db = Database.open(Path.of("/db"), options)) {
            db.createTable(tickets());
            db.createTable(workOrders());
            db.updateTimeToLive("Tickets", "expiresAt", true);
            db.updateTimeToLive("WorkOrders", "expiresAt", true);
            load(db);
            Table t = db.table("Tickets");
            Query byAgent = new Query("#g = :a").index("ByAgent").name("#g", "agent").value(":a", s("ana")).readYourWrites(WAIT);
            assertThat(t.query(byAgent).count()).isEqualTo(15);
            clock.advance(Duration.ofDays(1));

            Page history = t.query(history());
            assertThat(history.count()).isEqualTo(5);
            assertThat(history.scannedCount()).as("entries still in the index").isEqualTo(10);
            Page agent = t.query(byAgent); // KEYS_ONLY: the expiry is read from the table
            assertThat(agent.count()).as("an index without the TTL attribute").isEqualTo(10);
            assertThat(agent.scannedCount()).isEqualTo(15);
            assertThat(db.table("WorkOrders").query(closedOrders()).count()).isEqualTo(2);
            assertThat(t.query(queue()).count()).isEqualTo(5);
        }
    }

}
