package dev.lacuna.secondary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.KeyAttribute;
import dev.lacuna.PutItem;
import dev.lacuna.Query;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.vfs.MemVfs;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A clean close saves each global index's checkpoint where its updater got to, so a reopen does not read
 * (up to 50,000 records of) the log again to rebuild what the index already holds.
 */
class CheckpointOnCloseTest {
    @Test
    void shouldCheckpointEveryAppliedRecordOnClose() {
        MemVfs vfs = new MemVfs();
        long applied;
        String checkpoint;
        try (Database db = Database.open(IndexEquivalenceTest.DIR, DatabaseOptions.builder().vfs(vfs).build())) {
            db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
                    .index(IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK"))).build());
            Table t = db.table("Tickets");
            for (int i = 0; i < 100; i++) {
                t.putItem(new PutItem(Item.builder().s("pk", "T" + i).s("GSI1PK", "Q").s("GSI1SK", "" + i).build()));
            }
            assertThat(t.query(new Query("GSI1PK = :q").index("GSI1").value(":q", AttributeValue.s("Q"))
                    .readYourWrites(Duration.ofSeconds(30))).count()).isEqualTo(100);
            applied = db.describeTable("Tickets").index("GSI1").appliedLsn();
            checkpoint = "index-" + db.describeTable("Tickets").index("GSI1").keyspace();
        }
        assertThat(IndexCrashTest.durableCheckpoints(vfs).get(checkpoint)).as("checkpoint after a clean close")
                .isGreaterThanOrEqualTo(applied);
    }
}
