package dev.lacuna.vfs;

import static dev.lacuna.vfs.testing.LockProbe.heldByAnotherProcess;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link NioVfs#lock} as another process sees it (a child JVM, {@link dev.lacuna.vfs.testing.LockProbe}), on
 * the real disk. A POSIX record lock belongs to the process, and closing any descriptor of the file releases
 * all of the process's locks on it: a refused second lock in this JVM must therefore not close a descriptor of
 * the file while the first lock is held, or the directory is silently open to another process.
 */
class NioVfsLockAcrossProcessesTest {
    @TempDir
    Path dir;

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted(); // never leak the flag into the next test
    }

    @Test
    void shouldStillHoldTheLockForOtherProcessesAfterASecondLockInThisJvmIsRefused() throws Exception {
        Path lockFile = dir.resolve("LOCK");
        VfsLock first = new NioVfs().lock(lockFile);
        try {
            assertThat(heldByAnotherProcess(lockFile)).as("held, before the second attempt").isTrue();
            // A second Database.open of the directory: another NioVfs, as each open's options may bring.
            assertThatThrownBy(() -> new NioVfs().lock(lockFile)).isInstanceOf(IOException.class)
                    .hasMessageContaining("locked");
            assertThatThrownBy(() -> new NioVfs().lock(dir.resolve(".").resolve("LOCK")))
                    .as("the same file by another path").isInstanceOf(IOException.class)
                    .hasMessageContaining("locked");
            assertThat(heldByAnotherProcess(lockFile)).as("held, after refused second attempts").isTrue();
        } finally {
            first.close();
        }
        assertThat(heldByAnotherProcess(lockFile)).as("free once closed").isFalse();
        try (VfsLock again = new NioVfs().lock(lockFile)) {
            assertThat(heldByAnotherProcess(lockFile)).as("held by the next holder").isTrue();
            first.close(); // closing the earlier lock again must not touch the new one
            assertThat(heldByAnotherProcess(lockFile)).as("held by the next holder after a second close").isTrue();
        }
    }

    @Test
    void shouldStillHoldTheLockWhenTheRefusedAttemptRunsOnAnInterruptedThread() throws Exception {
        Path lockFile = dir.resolve("LOCK");
        try (VfsLock first = new NioVfs().lock(lockFile)) {
            Thread.currentThread().interrupt();
            try {
                assertThatThrownBy(() -> new NioVfs().lock(lockFile)).isInstanceOf(IOException.class)
                        .hasMessageContaining("locked");
            } finally {
                assertThat(Thread.interrupted()).as("the caller's interrupt flag is kept").isTrue();
            }
            assertThat(heldByAnotherProcess(lockFile)).isTrue();
        }
    }

    @Test
    void shouldTakeHoldAndReleaseTheLockOnInterruptedThreads() throws Exception {
        Path lockFile = dir.resolve("LOCK");
        Thread.currentThread().interrupt();
        VfsLock lock = new NioVfs().lock(lockFile);
        assertThat(Thread.interrupted()).isTrue();
        try {
            assertThat(heldByAnotherProcess(lockFile)).as("taken on an interrupted thread").isTrue();
            try (VfsFile file = new NioVfs().create(dir.resolve("a"))) {
                Thread.currentThread().interrupt();
                file.force(); // an interrupted thread's I/O closes that file's channel, not the lock's
                assertThat(Thread.interrupted()).isTrue();
            }
            assertThat(heldByAnotherProcess(lockFile)).as("after an interrupted thread's I/O").isTrue();
        } finally {
            Thread.currentThread().interrupt();
            lock.close();
            assertThat(Thread.interrupted()).isTrue();
        }
        assertThat(heldByAnotherProcess(lockFile)).as("released on an interrupted thread").isFalse();
    }

    /** Locked in this JVM by something other than NioVfs: another class loader's copy of Lacuna, the embedder. */
    @Test
    void shouldKeepALockTakenOutsideNioVfsInThisJvm() throws Exception {
        Path lockFile = dir.resolve("LOCK");
        FileChannel foreign = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        try (foreign) {
            FileLock held = foreign.tryLock();
            assertThat(held).isNotNull();
            for (int attempt = 0; attempt < 2; attempt++) {
                assertThatThrownBy(() -> new NioVfs().lock(lockFile)).isInstanceOf(IOException.class)
                        .hasMessageContaining("locked");
                assertThat(heldByAnotherProcess(lockFile)).as("held after refused attempt %d", attempt).isTrue();
            }
            held.release();
        }
        try (VfsLock lock = new NioVfs().lock(lockFile)) {
            assertThat(heldByAnotherProcess(lockFile)).as("taken once the other holder let go").isTrue();
        }
        assertThat(heldByAnotherProcess(lockFile)).isFalse();
    }
}
