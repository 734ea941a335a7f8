package dev.lacuna.secondary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexSpec;
import dev.lacuna.IndexStatus;
import dev.lacuna.Item;
import dev.lacuna.KeyAttribute;
import dev.lacuna.PutItem;
import dev.lacuna.TableSpec;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.FaultyVfs;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A table with a GSI whose creation fails part way (each of its fsyncs failing in turn), then a power loss:
 * after the reopen the table either does not exist (and can be created) or exists with a GSI that works.
 * Found by the fault campaign: when the fsync of the index's log checkpoint failed, the table was there but
 * its GSI had no checkpoint, and its updater failed on every open ("index ... has no log checkpoint").
 */
class TableCreationFaultTest {
    private static final Path DIR = Path.of("/db");
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final TableSpec SPEC = TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
            .index(IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK")))
            .index(IndexSpec.global("GSI2", KeyAttribute.s("GSI2PK"), null)).build();

    @Test
    void shouldLeaveEitherNoTableOrAWorkingOneWhenItsCreationFails() {
        long forces = forcesOfCreateTable();
        assertThat(forces).isGreaterThan(1);
        for (int n = 1; n <= forces; n++) {
            MemVfs disk = new MemVfs();
            FaultyVfs faulty = new FaultyVfs(disk);
            try (Database db = Database.open(DIR, options(faulty))) {
                faulty.failNth(FaultyVfs.Op.FORCE, n);
                assertThatThrownBy(() -> db.createTable(SPEC)).as("fsync %d", n).isInstanceOf(StorageIOException.class);
                faulty.heal();
                MemVfs crashed = disk.crashClone();
                try (Database reopened = Database.open(DIR, options(crashed))) {
                    if (!reopened.listTables().contains(SPEC.name())) {
                        reopened.createTable(SPEC);
                    }
                    reopened.table(SPEC.name()).putItem(new PutItem(Item.builder().s("pk", "A").s("GSI1PK", "Q")
                            .s("GSI1SK", "1").s("GSI2PK", "R").build()));
                    List<IndexChecker.Report> reports = IndexChecker.checkAll(reopened, SPEC.name(), WAIT);
                    assertThat(reports).as("fsync %d failed", n)
                            .allSatisfy(r -> assertThat(r.expected()).isEqualTo(1))
                            .allSatisfy(r -> assertThat(r.mismatches()).isZero());
                    assertThat(reopened.describeTable(SPEC.name()).indexes())
                            .allSatisfy(i -> assertThat(i.status()).isEqualTo(IndexStatus.ACTIVE));
                }
            }
        }
    }

    /** How many fsyncs a clean creation of the table makes. */
    private static long forcesOfCreateTable() {
        FaultyVfs faulty = new FaultyVfs(new MemVfs());
        try (Database db = Database.open(DIR, options(faulty))) {
            long before = faulty.count(FaultyVfs.Op.FORCE);
            db.createTable(SPEC);
            return faulty.count(FaultyVfs.Op.FORCE) - before;
        }
    }

    private static DatabaseOptions options(dev.lacuna.vfs.Vfs vfs) {
        return DatabaseOptions.builder().vfs(vfs).build();
    }
}
