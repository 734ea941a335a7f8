package dev.lacuna.secondary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.KeyAttribute;
import dev.lacuna.Query;
import dev.lacuna.ReadYourWritesTimeoutException;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.vfs.MemVfs;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * After a crash a global index's queries first wait until the updater has applied the log it held at the open
 * ({@code Queries.awaitConsistent}). That wait had no bound: a read-your-writes query, whose caller gave how long
 * it may wait, hung for as long as the updater was stuck. It must give up after its own timeout with the
 * exception a read-your-writes wait throws.
 */
class ConsistencyWaitTimeoutTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int ITEMS = 5;

    @Test
    void shouldHonourTheReadYourWritesTimeoutWhileTheIndexCatchesUpAfterACrash() throws Exception {
        MemVfs mem = new MemVfs();
        HeldIndexReads before = new HeldIndexReads(mem);
        MemVfs crashed;
        try (Database db = Database.open(IndexEquivalenceTest.DIR, DatabaseOptions.builder().vfs(before).build())) {
            db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
                    .index(IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK"))).build());
            Table t = db.table("Tickets");
            before.hold(); // the index's checkpoint stays below these writes
            try {
                for (int i = 0; i < ITEMS; i++) {
                    t.putItem(Item.builder().s("pk", "T" + i).s("GSI1PK", "Q").s("GSI1SK", "S" + i).build());
                }
                assertThat(before.awaitHeld(WAIT.toNanos())).as("the updater is held").isTrue();
                crashed = mem.crashClone(); // every write acknowledged, none applied to the index
            } finally {
                before.release();
            }
        }
        HeldIndexReads after = new HeldIndexReads(crashed);
        after.hold(); // the updater cannot apply the log it must apply again
        try (Database db = Database.open(IndexEquivalenceTest.DIR, DatabaseOptions.builder().vfs(after).build())) {
            Table t = db.table("Tickets");
            try {
                assertThat(after.awaitHeld(WAIT.toNanos())).as("the updater is held after the open").isTrue();
                Query q = new Query("GSI1PK = :q").index("GSI1").value(":q", AttributeValue.s("Q"))
                        .readYourWrites(Duration.ofMillis(50));
                assertTimeoutPreemptively(WAIT, () -> assertThatThrownBy(() -> t.query(q))
                        .isInstanceOf(ReadYourWritesTimeoutException.class), "a read-your-writes query of 50 ms");
            } finally {
                after.release();
            }
            Query q = new Query("GSI1PK = :q").index("GSI1").value(":q", AttributeValue.s("Q")).readYourWrites(WAIT);
            assertThat(t.query(q).items()).hasSize(ITEMS);
        }
    }
}
