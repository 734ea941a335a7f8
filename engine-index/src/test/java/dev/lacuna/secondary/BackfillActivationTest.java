package dev.lacuna.secondary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.BatchWriteItem;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexDescription;
import dev.lacuna.IndexSpec;
import dev.lacuna.IndexStatus;
import dev.lacuna.Item;
import dev.lacuna.KeyAttribute;
import dev.lacuna.TableSpec;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * What a finished backfill leaves for a power loss: the updater writes the backfill's entries (applied unlogged,
 * so the log cannot give them back) to files, then records in the manifest that the index is active, and only
 * then says {@code ACTIVE}. A strict power loss right after it says so, with nothing written since, must reopen an
 * {@code ACTIVE} index in the same keyspace (not built again) that equals its recomputation. (PIT survivors of
 * {@code GlobalIndexUpdater.run}: without the flush the backfill's entries were lost and the reopened index missed
 * them; without the marking the reopen built the index again in a fresh keyspace. Each seen failing here.)
 * Single-threaded on purpose, unlike {@code BackfillTest}: no writer can trigger the updater's own checkpoint
 * (which flushes) between the backfill and the power loss.
 */
class BackfillActivationTest {
    private static final Path DIR = Path.of("/db");
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String TABLE = "Orders";
    private static final String INDEX = "ByGroup";
    private static final int ITEMS = 2_000;

    private static TableSpec table(boolean withIndex) {
        TableSpec.Builder b = TableSpec.builder(TABLE).partitionKey("pk", AttributeValue.Type.S);
        if (withIndex) {
            b.index(IndexSpec.global(INDEX, KeyAttribute.s("grp"), KeyAttribute.n("rank")));
        }
        return b.build();
    }

    @Test
    void shouldReopenAFinishedBackfillActiveAndWholeAfterAPowerLoss() {
        MemVfs vfs = new MemVfs();
        MemVfs afterPowerLoss;
        int keyspace;
        try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(vfs).build())) {
            db.createTable(table(false));
            for (int i = 0; i < ITEMS; i += BatchWriteItem.MAX_WRITES) {
                BatchWriteItem batch = new BatchWriteItem();
                for (int j = i; j < Math.min(ITEMS, i + BatchWriteItem.MAX_WRITES); j++) {
                    batch.put(TABLE, Item.builder().s("pk", "ORDER#" + j).s("grp", "G#" + j % 50).n("rank", j).build());
                }
                assertThat(db.batchWriteItem(batch)).isEmpty();
            }
            keyspace = db.updateTable(table(true)).index(INDEX).keyspace();
            IndexChecker.await(() -> db.describeTable(TABLE).index(INDEX).status() == IndexStatus.ACTIVE, WAIT,
                    "the backfill to end");
            afterPowerLoss = vfs.crashClone();
        }
        try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(afterPowerLoss).build())) {
            IndexDescription reopened = db.describeTable(TABLE).index(INDEX);
            assertThat(reopened.status()).as("status at the reopen").isEqualTo(IndexStatus.ACTIVE);
            assertThat(reopened.keyspace()).as("the index's keyspace (not built again)").isEqualTo(keyspace);
            IndexChecker.awaitCatchUp(db, TABLE, INDEX, WAIT);
            IndexChecker.Report report = IndexChecker.check(db, TABLE, INDEX);
            assertThat(report.mismatches()).as("%s", report).isZero();
            assertThat(report.expected()).isEqualTo(ITEMS);
        }
    }
}
