package dev.lacuna;

import static dev.lacuna.vfs.testing.LockProbe.heldByAnotherProcess;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.NioVfs;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A second {@link Database#open} of a directory open in this JVM is refused and leaves the first one's lock
 * held for other processes too (a child JVM checks, {@link dev.lacuna.vfs.testing.LockProbe}): the refused
 * open used to close a descriptor of the lock file, which on POSIX releases the process's lock on it, so that
 * another process could then open the directory under the first database.
 */
class SecondOpenKeepsLockTest {
    @TempDir
    Path dir;

    private static DatabaseOptions options() {
        return DatabaseOptions.builder().vfs(new NioVfs()).build(); // each open its own, as separate callers'
    }

    @Test
    void shouldKeepTheFirstDatabasesLockWhenASecondOpenIsRefused() throws Exception {
        Path lockFile = dir.resolve("LOCK");
        try (Database first = Database.open(dir, options())) {
            assertThat(heldByAnotherProcess(lockFile)).as("held by the open database").isTrue();
            assertThatThrownBy(() -> Database.open(dir, options())).isInstanceOf(StorageIOException.class)
                    .hasMessageContaining("locked");
            assertThat(heldByAnotherProcess(lockFile)).as("held after a second open was refused").isTrue();
            first.listTables(); // still usable
        }
        assertThat(heldByAnotherProcess(lockFile)).as("free once closed").isFalse();
        Database.open(dir, options()).close();
    }
}
