package dev.lacuna.secondary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.BackupReport;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.GetItem;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.PutItem;
import dev.lacuna.TableSpec;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A table created, and written, while a backup or a checkpoint is being made, after the copy took the
 * database's state and before it copied the log: the copy must not hold a later write (to an old table) without
 * the earlier ones (to the new table, whose keyspace the state lacks and whose writes its recovery would drop).
 * Both copies are made again, and hold the new table.
 */
class BackupDuringSchemaChangeTest {
    private static final Path DIR = Path.of("/db");

    /** Runs {@code hook} once, the first time the directory {@code trigger} is listed or made. */
    private static final class HookVfs extends ForwardingVfs {
        private final Path trigger;
        final AtomicReference<Runnable> hook = new AtomicReference<>();

        HookVfs(MemVfs disk, Path trigger) {
            super(disk);
            this.trigger = trigger;
        }

        private void fire(Path dir) {
            if (dir.equals(trigger)) {
                Runnable r = hook.getAndSet(null);
                if (r != null) {
                    r.run();
                }
            }
        }

        @Override
        public List<String> list(Path dir) throws IOException {
            fire(dir);
            return super.list(dir);
        }

        @Override
        public void mkdirs(Path dir) throws IOException {
            fire(dir);
            super.mkdirs(dir);
        }
    }

    private static void schemaChange(Database db) {
        db.createTable(TableSpec.builder("Audit").partitionKey("pk", AttributeValue.Type.S).build());
        db.table("Audit").putItem(new PutItem(Item.builder().s("pk", "x").build()));
        db.table("Tickets").putItem(new PutItem(Item.builder().s("pk", "y").build()));
    }

    private static void assertPrefix(Path copyDir, DatabaseOptions options) {
        try (Database copy = Database.open(copyDir, options)) {
            assertThat(copy.table("Tickets").getItem(new GetItem(Key.of("pk", AttributeValue.s("y"))))).isPresent();
            assertThat(copy.listTables()).as("the write to Tickets is in the copy: so must the table made before it")
                    .contains("Audit");
            assertThat(copy.table("Audit").getItem(new GetItem(Key.of("pk", AttributeValue.s("x"))))).isPresent();
        }
    }

    @Test
    void shouldBackUpATableCreatedDuringTheCopy() {
        HookVfs vfs = new HookVfs(new MemVfs(), DIR.resolve("wal")); // the backup lists the log after the manifest
        DatabaseOptions options = DatabaseOptions.builder().vfs(vfs).build();
        try (Database db = Database.open(DIR, options)) {
            db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S).build());
            db.table("Tickets").putItem(new PutItem(Item.builder().s("pk", "before").build()));
            vfs.hook.set(() -> schemaChange(db));
            BackupReport report = Database.backup(DIR, Path.of("/backup"), options);
            assertThat(vfs.hook.get()).as("the hook ran").isNull();
            assertThat(report.copies()).as("the first copy predates the table").isEqualTo(2);
        }
        assertPrefix(Path.of("/backup"), options);
    }

    @Test
    void shouldCheckpointATableCreatedDuringTheCopy() {
        HookVfs vfs = new HookVfs(new MemVfs(), Path.of("/checkpoint").resolve("wal")); // made after the state
        DatabaseOptions options = DatabaseOptions.builder().vfs(vfs).build();
        try (Database db = Database.open(DIR, options)) {
            db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S).build());
            db.table("Tickets").putItem(new PutItem(Item.builder().s("pk", "before").build()));
            vfs.hook.set(() -> schemaChange(db));
            db.checkpoint(Path.of("/checkpoint"));
            assertThat(vfs.hook.get()).as("the hook ran").isNull();
        }
        assertPrefix(Path.of("/checkpoint"), options);
    }
}
