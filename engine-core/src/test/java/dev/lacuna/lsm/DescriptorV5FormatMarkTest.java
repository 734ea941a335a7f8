package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.StreamSpecification;
import dev.lacuna.StreamViewType;
import dev.lacuna.TableSpec;
import dev.lacuna.manifest.VersionEdit;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A disabled stream keeps its view type (keyspace descriptor version 5), which the Lacuna of directory format 2
 * reads as corruption ("unsupported descriptor version 5"). So a format 2 store is marked with the current format
 * in the edit that writes its first version 5 descriptor: the older Lacuna then refuses it as written by a newer
 * one ({@code IncompatibleStoreException}) instead of calling it damaged.
 */
class DescriptorV5FormatMarkTest {
    private static final Path DIR = Path.of("/db");

    @Test
    void shouldMarkAFormat2StoreBeforeItsFirstVersion5Descriptor() throws Exception {
        MemVfs vfs = new MemVfs();
        DatabaseOptions options = DatabaseOptions.builder().vfs(vfs).build();
        String arn;
        try (Database db = Database.open(DIR, options)) {
            arn = db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S).partitions(1)
                    .streamSpecification(StreamSpecification.enabled(StreamViewType.NEW_IMAGE)).build())
                    .latestStreamArn();
        }
        // What the Lacuna of format 2 left: the same store, marked format 2.
        try (VersionSet set = VersionSet.open(vfs, DIR, KvOptions.builder().build().partitions(), 1 << 22, n -> { })) {
            set.startManifest();
            set.logAndApply(new VersionEdit().store(2, LsmStore.OWNER_ITEMS), 0);
        }
        assertThat(FailedOpenKeepsFormatTest.storedFormat(vfs)).isEqualTo(2);
        try (Database db = Database.open(DIR, options)) {
            assertThat(FailedOpenKeepsFormatTest.storedFormat(vfs)).as("an open that writes nothing keeps the mark").isEqualTo(2);
            db.updateTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S).partitions(1)
                    .streamSpecification(StreamSpecification.DISABLED).build());
            assertThat(FailedOpenKeepsFormatTest.storedFormat(vfs)).as("marked with the version 5 descriptor that keeps the view type")
                    .isEqualTo(VersionSet.STORE_FORMAT).isGreaterThan(2);
        }
        try (Database db = Database.open(DIR, options)) {
            assertThat(db.describeStream(arn).viewType()).isEqualTo(StreamViewType.NEW_IMAGE);
            assertThat(db.describeStream(arn).status()).isEqualTo("DISABLED");
        }
    }
}
