package dev.lacuna.secondary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.KeyAttribute;
import dev.lacuna.Query;
import dev.lacuna.ResourceNotFoundException;
import dev.lacuna.SizeEstimate;
import dev.lacuna.TableSizeEstimate;
import dev.lacuna.TableSpec;
import dev.lacuna.vfs.MemVfs;
import java.time.Duration;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Database#estimateSize}: items and bytes of a table and its indexes (global and local) estimated from what
 * their files and memtables count, exact while nothing is overwritten, and following deletions whether the deleted
 * items are in memtables or in files.
 */
class EstimateSizeTest {
    private final Database db = Database.open(Path.of("/db"), DatabaseOptions.builder().vfs(new MemVfs()).build());

    @AfterEach
    void close() {
        db.close();
    }

    @Test
    void shouldEstimateItemsAndBytesOfATableAndItsIndexesInMemtablesAndFiles() {
        db.createTable(TableSpec.builder("Things").partitionKey("pk", AttributeValue.Type.S)
                .sortKey("sk", AttributeValue.Type.S).index(IndexSpec.local("ByN", KeyAttribute.n("n")))
                .index(IndexSpec.global("ByG", KeyAttribute.s("g"), null)).build());
        assertThat(db.estimateSize("Things").table()).isEqualTo(SizeEstimate.EMPTY);
        String body = "b".repeat(500);
        for (int i = 0; i < 100; i++) {
            Item.Builder item = Item.builder().s("pk", "P" + (i % 10)).s("sk", "S" + i).s("body", body);
            if (i % 2 == 0) {
                item.n("n", i);
            }
            if (i % 4 == 0) {
                item.s("g", "G" + i);
            }
            db.table("Things").putItem(item.build());
        }
        awaitGlobalIndex();
        TableSizeEstimate inMemory = db.estimateSize("Things");
        assertThat(inMemory.table().itemCount()).isEqualTo(100);
        assertThat(inMemory.table().sizeBytes()).isBetween(50_000L, 100_000L);
        assertThat(inMemory.index("ByN").itemCount()).isEqualTo(50);
        assertThat(inMemory.index("ByG").itemCount()).isEqualTo(25);
        assertThat(inMemory.index("ByG").sizeBytes()).isBetween(12_500L, 25_000L); // projection ALL

        db.flush();
        TableSizeEstimate inFiles = db.estimateSize("Things");
        assertThat(inFiles.table().itemCount()).isEqualTo(100);
        assertThat(inFiles.table().sizeBytes()).isPositive();
        assertThat(inFiles.index("ByN").itemCount()).isEqualTo(50);

        for (int i = 0; i < 10; i++) {
            db.table("Things").deleteItem(Key.of("pk", AttributeValue.s("P" + (i % 10)), "sk", AttributeValue.s("S" + i)));
        }
        assertThat(db.estimateSize("Things").table().itemCount()).as("deletions in a memtable of items in files")
                .isEqualTo(90);
        awaitGlobalIndex();
        assertThat(db.estimateSize("Things").index("ByN").itemCount()).isEqualTo(45);
        assertThat(db.estimateSize("Things").index("ByG").itemCount()).as("items 0, 4, 8 deleted").isEqualTo(22);
        db.flush();
        assertThat(db.estimateSize("Things").table().itemCount()).as("deletions in a file of items in older ones")
                .isEqualTo(90);

        assertThatThrownBy(() -> db.estimateSize("Nope")).isInstanceOf(ResourceNotFoundException.class);
    }

    /** Waits (at most 10 s) until the global index has applied every write acknowledged so far. */
    private void awaitGlobalIndex() {
        db.query("Things", new Query("g = :g").index("ByG").value(":g", AttributeValue.s("-"))
                .readYourWrites(Duration.ofSeconds(10)));
    }
}
