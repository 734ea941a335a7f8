package dev.lacuna;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * LsmStore.close closes the manifest and then the lock in one try: a manifest whose close throws (an IOException
 * from close(2), as NFS reports late write errors) skips lock.close(), and the store is marked closed, so no later
 * close releases it. The directory can then never be opened again in this process (with NioVfs the entry stays in
 * NioLocks' process-wide map, held, for good).
 */
class FailedManifestCloseReleasesLockTest {
    private static final Path DIR = Path.of("/db");

    private static final class FailingManifestClose extends ForwardingVfs {
        volatile boolean armed;

        FailingManifestClose(Vfs inner) {
            super(inner);
        }

        @Override
        protected VfsFile wrap(VfsFile f) {
            return new ForwardingVfs.File(f) {
                @Override
                public void close() throws IOException {
                    super.close(); // the descriptor is gone, as close(2) leaves it even when it reports an error
                    if (armed && Path.of(name()).getFileName().toString().startsWith("MANIFEST-")) {
                        throw new IOException("injected: close of " + name());
                    }
                }
            };
        }
    }

    @Test
    void shouldReleaseTheDirectoryWhenTheManifestFailsToClose() {
        FailingManifestClose vfs = new FailingManifestClose(new MemVfs());
        DatabaseOptions options = DatabaseOptions.builder().vfs(vfs).build();
        Database db = Database.open(DIR, options);
        db.createTable(TableSpec.builder("Items").partitionKey("pk", AttributeValue.Type.S).build());
        db.table("Items").putItem(Item.builder().s("pk", "a").s("v", "1").build());
        vfs.armed = true;
        assertThatThrownBy(db::close).isInstanceOf(StorageIOException.class);
        vfs.armed = false;
        db.close(); // closing again changes nothing
        try (Database again = Database.open(DIR, options)) {
            assertThat(again.table("Items").getItem(Key.of("pk", AttributeValue.s("a")))).isPresent();
        }
    }
}
