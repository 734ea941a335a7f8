package dev.lacuna;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * 7e355ce made an Error during Database.open take the cleanup path, but only in Recovery and ItemEngine: the
 * write-ahead log's own open (Wal.open) takes a second lock, wal/LOCK, and still releases it on IOException and
 * RuntimeException only. An Error while the log recovers leaves wal/LOCK held, and every later open of the
 * directory in this process fails.
 */
class WalOpenErrorReleasesLockTest {
    private static final Path DIR = Path.of("/db");

    /** Throws an AssertionError reading a log segment while armed. */
    private static final class ErrorOnWalRead extends ForwardingVfs {
        volatile boolean armed;

        ErrorOnWalRead(Vfs inner) {
            super(inner);
        }

        @Override
        protected VfsFile wrap(VfsFile f) {
            return new ForwardingVfs.File(f) {
                @Override
                public int read(ByteBuffer dst, long position) throws IOException {
                    if (armed && name().endsWith(".wal")) {
                        throw new AssertionError("injected: read of " + name());
                    }
                    return super.read(dst, position);
                }
            };
        }
    }

    @Test
    void shouldReleaseTheDirectoryAfterAnErrorRecoveringTheLog() {
        ErrorOnWalRead vfs = new ErrorOnWalRead(new MemVfs());
        DatabaseOptions options = DatabaseOptions.builder().vfs(vfs).build();
        try (Database db = Database.open(DIR, options)) {
            db.createTable(TableSpec.builder("Items").partitionKey("pk", AttributeValue.Type.S).build());
            db.table("Items").putItem(Item.builder().s("pk", "a").s("v", "1").build());
        }
        vfs.armed = true;
        assertThatThrownBy(() -> Database.open(DIR, options)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("injected");
        vfs.armed = false;
        try (Database db = Database.open(DIR, options)) { // the fault is gone: the directory must open again
            assertThat(db.table("Items").getItem(Key.of("pk", AttributeValue.s("a"))).orElseThrow().getString("v"))
                    .isEqualTo("1");
        }
    }
}
