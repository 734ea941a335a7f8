package dev.lacuna.vfs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A thread interrupted while it uses a {@link NioVfs} file (an embedder's {@code Future.cancel(true)}, a
 * timeout) costs nothing but, at most, that call: {@code FileChannel} closes itself for every user when a
 * thread is interrupted in one of its operations, and the file must reopen it. Each test sets the interrupt
 * flag before the call, which makes the channel operation fail deterministically.
 */
class NioVfsInterruptTest {
    @TempDir
    Path dir;

    private final NioVfs vfs = new NioVfs();
    private final ExecutorService other = Executors.newSingleThreadExecutor();

    @AfterEach
    void tearDown() throws InterruptedException {
        Thread.interrupted(); // never leak the flag into the next test
        other.shutdownNow();
        assertThat(other.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }

    /** Something done on a file. */
    private interface FileAction {
        void run(VfsFile file) throws IOException;
    }

    private VfsFile fileWith(String name, String text) throws IOException {
        VfsFile file = vfs.create(dir.resolve(name));
        file.write(ByteBuffer.wrap(text.getBytes(UTF_8)), 0);
        return file;
    }

    private static String content(VfsFile file) throws IOException {
        byte[] b = new byte[(int) file.size()];
        file.readFully(0, b, 0, b.length);
        return new String(b, UTF_8);
    }

    /**
     * Runs {@code action} on an interrupted thread and returns what it threw (null if nothing); the
     * thread's interrupt flag must survive either way.
     */
    private static IOException interrupted(VfsFile file, FileAction action) {
        Thread.currentThread().interrupt();
        try {
            action.run(file);
            return null;
        } catch (IOException e) {
            return e;
        } finally {
            assertThat(Thread.interrupted()).as("the caller's interrupt flag is kept").isTrue();
        }
    }

    /** Another thread still reads, writes and fsyncs the file, and sees {@code expected} in it. */
    private void assertUsableByAnotherThread(VfsFile file, String expected) throws Exception {
        Future<String> seen = other.submit(() -> {
            String before = content(file);
            long end = file.append(ByteBuffer.wrap("+".getBytes(UTF_8)));
            file.force();
            file.truncate(end);
            return before;
        });
        assertThat(seen.get(30, TimeUnit.SECONDS)).isEqualTo(expected);
    }

    @Test
    void shouldReadOnAnInterruptedThreadAndKeepTheFileForOthers() throws Exception {
        try (VfsFile file = fileWith("a", "hello")) {
            byte[] b = new byte[5];
            IOException failure = interrupted(file, f -> f.readFully(0, b, 0, 5));
            assertUsableByAnotherThread(file, "hello");
            assertThat(failure).as("the interrupted read").isNull();
            assertThat(new String(b, UTF_8)).isEqualTo("hello");
        }
    }

    @Test
    void shouldWriteOnAnInterruptedThreadAndKeepTheFileForOthers() throws Exception {
        try (VfsFile file = fileWith("a", "hello")) {
            IOException failure = interrupted(file, f -> f.write(ByteBuffer.wrap(" world".getBytes(UTF_8)), 5));
            assertUsableByAnotherThread(file, "hello world");
            assertThat(failure).as("the interrupted write").isNull();
        }
    }

    @Test
    void shouldAppendOnAnInterruptedThreadExactlyOnce() throws Exception {
        try (VfsFile file = fileWith("a", "hello")) {
            long[] at = new long[1];
            assertThat(interrupted(file, f -> at[0] = f.append(ByteBuffer.wrap("!".getBytes(UTF_8))))).isNull();
            assertThat(at[0]).isEqualTo(5);
            assertUsableByAnotherThread(file, "hello!");
        }
    }

    @Test
    void shouldForceOnAnInterruptedThreadAndKeepTheFileForOthers() throws Exception {
        try (VfsFile file = fileWith("a", "hello")) {
            IOException failure = interrupted(file, VfsFile::force);
            assertUsableByAnotherThread(file, "hello");
            assertThat(failure).as("the interrupted force").isNull();
        }
    }

    @Test
    void shouldTruncateAndSizeOnAnInterruptedThread() throws Exception {
        try (VfsFile file = fileWith("a", "hello")) {
            assertThat(interrupted(file, f -> f.truncate(4))).isNull();
            long[] size = new long[1];
            assertThat(interrupted(file, f -> size[0] = f.size())).isNull();
            assertThat(size[0]).isEqualTo(4);
            assertUsableByAnotherThread(file, "hell");
        }
    }

    @Test
    void shouldReadReadOnlyFilesOnAnInterruptedThread() throws Exception {
        fileWith("a", "hello").close();
        try (VfsFile file = vfs.openReadOnly(dir.resolve("a"))) {
            byte[] b = new byte[5];
            IOException failure = interrupted(file, f -> f.readFully(0, b, 0, 5));
            Future<String> seen = other.submit(() -> content(file));
            assertThat(seen.get(30, TimeUnit.SECONDS)).isEqualTo("hello");
            assertThat(failure).isNull();
            assertThat(interrupted(file, VfsFile::force)).isNull();
        }
    }

    @Test
    void shouldKeepConcurrentReadersWorkingWhileAnotherThreadIsInterrupted() throws Exception {
        byte[] data = new byte[64 * 1024];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 31);
        }
        try (VfsFile file = vfs.create(dir.resolve("a"))) {
            file.write(ByteBuffer.wrap(data), 0);
            AtomicBoolean done = new AtomicBoolean();
            Future<Integer> reader = other.submit(() -> {
                int reads = 0;
                byte[] b = new byte[data.length];
                while (!done.get() || reads == 0) {
                    file.readFully(0, b, 0, b.length); // may find the channel closed under it: must not fail
                    assertThat(b).isEqualTo(data);
                    reads++;
                }
                return reads;
            });
            byte[] b = new byte[4096];
            for (int i = 0; i < 200; i++) {
                IOException failure = interrupted(file, f -> f.readFully(4096, b, 0, b.length)); // closes the channel
                if (failure != null) {
                    done.set(true);
                    reader.get(60, TimeUnit.SECONDS); // what the other reader saw comes first
                    throw failure;
                }
            }
            done.set(true);
            assertThat(reader.get(60, TimeUnit.SECONDS)).isPositive();
        }
    }

    /**
     * Interrupts arriving at any moment, during operations too: the interleaving differs from run to run,
     * the outcome may not. Every append lands once, at the offset it returned, and reads back.
     */
    @Test
    void shouldAppendEachRecordOnceUnderAStormOfInterrupts() throws Exception {
        int appends = 1000;
        try (VfsFile file = vfs.create(dir.resolve("a"))) {
            Thread worker = new Thread(() -> {
                ByteBuffer b = ByteBuffer.allocate(8);
                ByteBuffer r = ByteBuffer.allocate(8);
                try {
                    for (long i = 0; i < appends; i++) {
                        b.clear().putLong(0, i);
                        assertThat(file.append(b)).isEqualTo(8 * i);
                        if (i % 50 == 0) {
                            file.force();
                        }
                        r.clear();
                        while (r.hasRemaining()) {
                            file.read(r, 8 * i + r.position());
                        }
                        assertThat(r.getLong(0)).isEqualTo(i);
                    }
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
            });
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            worker.setUncaughtExceptionHandler((t, e) -> failures.add(e));
            worker.start();
            while (worker.isAlive()) {
                worker.interrupt();
                Thread.onSpinWait();
            }
            worker.join();
            assertThat(failures).isEmpty();
            assertThat(file.size()).isEqualTo(8L * appends);
        }
    }

    @Test
    void shouldSyncADirectoryOnAnInterruptedThread() throws IOException {
        Thread.currentThread().interrupt();
        try {
            vfs.syncDirectory(dir);
        } finally {
            assertThat(Thread.interrupted()).isTrue();
        }
    }

    @Test
    void shouldKeepTheDirectoryLockThroughInterrupts() throws Exception {
        Path lockFile = dir.resolve("LOCK");
        Thread.currentThread().interrupt();
        VfsLock lock = vfs.lock(lockFile); // taken on an interrupted thread
        assertThat(Thread.interrupted()).isTrue();
        try (lock; VfsFile file = fileWith("a", "hello")) {
            interrupted(file, VfsFile::force); // an interrupted thread doing I/O while it holds the lock
            interrupted(file, VfsFile::size);
            assertThatThrownBy(() -> vfs.lock(lockFile)).isInstanceOf(IOException.class).hasMessageContaining("locked");
        }
        vfs.lock(lockFile).close(); // released by close, not before
    }

    @Test
    void shouldNotReopenAnotherFileThatTookThePath() throws IOException {
        try (VfsFile file = fileWith("a", "original")) {
            Path replacement = dir.resolve("b");
            Files.writeString(replacement, "replacement");
            Files.move(replacement, dir.resolve("a"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            byte[] b = new byte[8];
            Thread.currentThread().interrupt();
            try {
                assertThatThrownBy(() -> file.readFully(0, b, 0, 8))
                        .isInstanceOf(IOException.class)
                        .hasMessageContaining("cannot be reopened");
            } finally {
                assertThat(Thread.interrupted()).isTrue();
            }
        }
    }
}
