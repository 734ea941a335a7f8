package dev.lacuna.lsm;

import static dev.lacuna.AttributeValue.s;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.storage.Durability;
import dev.lacuna.Item;
import dev.lacuna.ResourceInUseException;
import dev.lacuna.Key;
import dev.lacuna.TableSpec;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Found by the review of the interrupted drop: Keyspaces.drop now undoes an interrupted drop and says "nothing was dropped, they are as they
 * were", but Catalog.delete unpublished the table and closed its maintainers before calling it: the table is gone
 * from the catalog while its keyspaces stay in the manifest, the store stays writable, and a table of the same name
 * can be created (two keyspaces of one name in the manifest at the next open, one hiding the other). The name
 * is now refused until the reopen, which finds the table whole.
 */
class DeleteTableInterruptTest {
    @Test
    void shouldRefuseTheNameAfterAnInterruptedDeleteTableUntilTheReopenFindsItWhole() throws Exception {
        MemVfs mem = new MemVfs();
        ControlledVfs vfs = new ControlledVfs(mem, ".sst");
        Path dir = Path.of("/db");
        DatabaseOptions options = DatabaseOptions.builder().vfs(vfs).durability(Durability.SYNC)
                .storage(KvOptions.builder().memtableBytes(64 * 1024).build()).build();
        Key k = Key.of("id", s("a"));
        try (Database db = Database.open(dir, options)) {
            db.createTable(TableSpec.builder("Tab").partitionKey("id", AttributeValue.Type.S).build());
            db.table("Tab").putItem(Item.builder().s("id", "a").s("v", "1").build());
            vfs.hold();
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread deleter = new Thread(() -> {
                try {
                    db.deleteTable("Tab");
                } catch (Throwable t) {
                    thrown.set(t);
                }
            }, "deleter");
            try {
                deleter.start();
                assertThat(vfs.awaitHeld(60_000_000_000L)).isTrue();
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (Arrays.stream(deleter.getStackTrace()).noneMatch(f -> f.getMethodName().startsWith("awaitFlushed"))
                        || deleter.getState() == Thread.State.RUNNABLE) {
                    assertThat(System.nanoTime()).isLessThan(deadline);
                    deleter.join(5);
                }
                deleter.interrupt();
                deleter.join(60_000);
            } finally {
                vfs.release();
            }
            assertThat(thrown.get()).hasMessageContaining("nothing was dropped");
            assertThatThrownBy(() -> db.createTable(TableSpec.builder("Tab").partitionKey("id", AttributeValue.Type.S)
                    .build())).as("no second table of the name while the first is still in the store")
                    .isInstanceOf(ResourceInUseException.class);
        }
        try (Database db = Database.open(dir, DatabaseOptions.builder().vfs(mem).build())) {
            assertThat(db.listTables()).as("nothing was dropped: the reopen finds the table").containsExactly("Tab");
            assertThat(db.table("Tab").getItem(k)).isPresent();
        }
    }
}
