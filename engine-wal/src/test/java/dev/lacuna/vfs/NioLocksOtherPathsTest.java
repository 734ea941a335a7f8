package dev.lacuna.vfs;

import static dev.lacuna.vfs.testing.LockProbe.heldByAnotherProcess;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Other paths to a held LOCK are refused without releasing it: a hard link, a symlinked directory and a failed attempt's leftovers. */
class NioLocksOtherPathsTest {
    @TempDir
    Path dir;

    @Test
    void shouldRefuseAHardLinkAndASymlinkedDirectoryWithoutReleasing() throws Exception {
        Path db = Files.createDirectory(dir.resolve("db"));
        Path lockFile = db.resolve("LOCK");
        try (VfsLock first = new NioVfs().lock(lockFile)) {
            Path hard = dir.resolve("hard-LOCK");
            Files.createLink(hard, lockFile);
            Path linkedDir = Files.createSymbolicLink(dir.resolve("alias"), db);
            assertThatThrownBy(() -> new NioVfs().lock(hard)).isInstanceOf(IOException.class);
            assertThatThrownBy(() -> new NioVfs().lock(linkedDir.resolve("LOCK"))).isInstanceOf(IOException.class);
            assertThat(heldByAnotherProcess(lockFile)).as("held after refused attempts by other paths").isTrue();
        }
        assertThat(heldByAnotherProcess(lockFile)).isFalse();
        new NioVfs().lock(dir.resolve("alias").resolve("LOCK")).close(); // reopenable by another path after
        new NioVfs().lock(lockFile).close();
    }
}
