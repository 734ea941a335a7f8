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
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Creating and deleting a table with a global index are atomic across a crash: at every crash point (just
 * before each fsync of the operation) the recovered database either has the table with a working index, or
 * does not have it, and the table can be used or deleted, and created again.
 */
class SchemaChangeCrashTest {
    private static final Path DIR = Path.of("/db");
    private static final TableSpec SPEC = TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
            .index(IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK"))).build();

    @Test
    void shouldLeaveATableWholeOrAbsentAtEveryCrashPointOfItsCreationAndDeletion() {
        CrashPointVfs vfs = new CrashPointVfs(new MemVfs());
        try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(vfs).build())) {
            vfs.recording(true);
            db.createTable(SPEC);
            vfs.recording(false);
            db.table("Tickets").putItem(new PutItem(ticket("T0")));
            vfs.recording(true);
            db.deleteTable("Tickets");
            vfs.recording(false);
        }
        List<MemVfs> images = vfs.images();
        int present = 0;
        for (MemVfs image : images) {
            try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(image).build())) {
                if (db.listTables().contains("Tickets")) {
                    present++;
                    assertThat(db.describeTable("Tickets").index("GSI1").status()).isEqualTo(IndexStatus.ACTIVE);
                    db.table("Tickets").putItem(new PutItem(ticket("T1")));
                    assertThat(db.table("Tickets").query(new Query("GSI1PK = :q").index("GSI1")
                            .value(":q", AttributeValue.s("Q")).readYourWrites(Duration.ofSeconds(30))).count())
                            .isPositive();
                    db.deleteTable("Tickets");
                }
                db.createTable(SPEC);
            }
        }
        System.out.println("schema change crash points: " + images.size() + ", table present at " + present);
        assertThat(images).hasSizeGreaterThan(4);
        assertThat(present).as("crash points with the table present").isPositive().isLessThan(images.size());
    }

    private static Item ticket(String id) {
        return Item.builder().s("pk", id).s("GSI1PK", "Q").s("GSI1SK", id).build();
    }
}
