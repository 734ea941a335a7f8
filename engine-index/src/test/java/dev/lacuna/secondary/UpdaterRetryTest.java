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
import dev.lacuna.TableSpec;
import dev.lacuna.vfs.FaultyVfs;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A GSI updater that meets a transient I/O error (here: every read of the log fails for a while) retries
 * until the disk works again, then catches up: the index is never {@code FAILED} and equals its
 * recomputation from the table.
 */
class UpdaterRetryTest {
    private static final Path DIR = Path.of("/db");
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int ITEMS = 50;
    private static final TableSpec SPEC = TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
            .index(IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK"))).build();

    @Test
    void shouldCatchUpOnceTheLogCanBeReadAgain() {
        MemVfs disk = new MemVfs();
        FaultyVfs faulty = new FaultyVfs(disk);
        try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(faulty).build())) {
            db.createTable(SPEC);
            faulty.failFrom(FaultyVfs.Op.READ, 1); // the updater cannot read the records written next
            for (int i = 0; i < ITEMS; i++) {
                db.table(SPEC.name()).putItem(new PutItem(Item.builder().s("pk", "item" + i)
                        .s("GSI1PK", "queue" + (i % 3)).s("GSI1SK", String.format("%04d", i)).build()));
            }
            // Two failures: the updater failed, and tried again while reads still failed.
            IndexChecker.await(() -> faulty.injectedCount() >= 2, WAIT, "the updater to fail twice");
            assertThat(db.describeTable(SPEC.name()).index("GSI1").status()).as("status while reads fail")
                    .isEqualTo(IndexStatus.ACTIVE);
            faulty.heal();
            List<IndexChecker.Report> reports = IndexChecker.checkAll(db, SPEC.name(), WAIT);
            assertThat(reports).allSatisfy(r -> assertThat(r.expected()).isEqualTo(ITEMS))
                    .allSatisfy(r -> assertThat(r.mismatches()).isZero());
            assertThat(db.describeTable(SPEC.name()).index("GSI1").status()).isEqualTo(IndexStatus.ACTIVE);
        }
    }
}
