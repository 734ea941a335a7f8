package dev.lacuna.vfs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link Vfs} must share, so that code tested on {@link MemVfs} behaves the same on
 * {@link NioVfs}. Subclasses supply the file system and a scratch directory.
 */
abstract class VfsContractTest {
    private Vfs vfs;
    private Path dir;

    /** The file system under test; called once per test. */
    protected abstract Vfs newVfs() throws IOException;

    /** An existing, empty directory of {@link #newVfs()}'s file system, private to the test. */
    protected abstract Path scratchDirectory(Vfs vfs) throws IOException;

    @BeforeEach
    void setUp() throws IOException {
        vfs = newVfs();
        dir = scratchDirectory(vfs);
    }

    private static ByteBuffer bytes(String text) {
        return ByteBuffer.wrap(text.getBytes(UTF_8));
    }

    private static String contentOf(VfsFile file) throws IOException {
        byte[] buffer = new byte[(int) file.size()];
        file.readFully(0, buffer, 0, buffer.length);
        return new String(buffer, UTF_8);
    }

    private String contentOf(Path path) throws IOException {
        try (VfsFile file = vfs.openReadOnly(path)) {
            return contentOf(file);
        }
    }

    private void writeFile(Path path, String text) throws IOException {
        try (VfsFile file = vfs.create(path)) {
            file.append(bytes(text));
        }
    }

    @Test
    void shouldCreateEmptyFileThatCanBeWrittenAndRead() throws IOException {
        Path path = dir.resolve("a.log");
        try (VfsFile file = vfs.create(path)) {
            assertThat(file.size()).isZero();
            assertThat(vfs.exists(path)).isTrue();
            file.write(bytes("hello"), 0);
            assertThat(contentOf(file)).isEqualTo("hello");
            assertThat(file.name()).contains("a.log");
        }
        assertThat(vfs.size(path)).isEqualTo(5);
    }

    @Test
    void shouldLinkAFileUnderASecondNameThatOutlivesTheFirst() throws IOException {
        Path from = dir.resolve("000001.sst");
        writeFile(from, "immutable table");
        vfs.mkdirs(dir.resolve("copy"));
        Path to = dir.resolve("copy").resolve("000001.sst");

        vfs.link(from, to);
        vfs.delete(from); // a store deletes its table after a compaction: the checkpoint's name keeps it

        assertThat(contentOf(to)).isEqualTo("immutable table");
        assertThat(vfs.list(dir.resolve("copy"))).containsExactly("000001.sst");
        try (VfsFile file = vfs.open(to)) {
            file.force();
        }
    }

    @Test
    void shouldRefuseToLinkOntoAnExistingFileOrFromAMissingOne() throws IOException {
        Path from = dir.resolve("a.sst");
        Path to = dir.resolve("b.sst");
        writeFile(from, "a");
        writeFile(to, "keep");

        assertThatThrownBy(() -> vfs.link(from, to)).isInstanceOf(FileAlreadyExistsException.class);
        assertThatThrownBy(() -> vfs.link(dir.resolve("missing.sst"), dir.resolve("c.sst")))
                .isInstanceOf(NoSuchFileException.class);
        assertThat(contentOf(to)).isEqualTo("keep");
        assertThat(vfs.exists(dir.resolve("c.sst"))).isFalse();
    }

    @Test
    void shouldRefuseToCreateExistingFile() throws IOException {
        Path path = dir.resolve("a.log");
        writeFile(path, "keep");

        assertThatThrownBy(() -> vfs.create(path)).isInstanceOf(FileAlreadyExistsException.class);
        assertThat(contentOf(path)).isEqualTo("keep");
    }

    @Test
    void shouldRefuseToCreateFileInMissingDirectory() {
        assertThatThrownBy(() -> vfs.create(dir.resolve("missing").resolve("a.log")))
                .isInstanceOf(NoSuchFileException.class);
    }

    @Test
    void shouldFailToOpenMissingFile() {
        Path path = dir.resolve("missing.log");

        assertThatThrownBy(() -> vfs.open(path)).isInstanceOf(NoSuchFileException.class);
        assertThatThrownBy(() -> vfs.openReadOnly(path)).isInstanceOf(NoSuchFileException.class);
        assertThatThrownBy(() -> vfs.size(path)).isInstanceOf(NoSuchFileException.class);
        assertThat(vfs.exists(path)).isFalse();
    }

    @Test
    void shouldReopenFileWithItsContent() throws IOException {
        Path path = dir.resolve("a.log");
        writeFile(path, "first");

        try (VfsFile file = vfs.open(path)) {
            assertThat(contentOf(file)).isEqualTo("first");
            file.append(bytes("+more"));
        }
        assertThat(contentOf(path)).isEqualTo("first+more");
    }

    @Test
    void shouldAppendAtTheEndAndReturnTheOffset() throws IOException {
        try (VfsFile file = vfs.create(dir.resolve("a.log"))) {
            assertThat(file.append(bytes("abc"))).isZero();
            assertThat(file.append(bytes("de"))).isEqualTo(3);
            // A positional write past the end moves the end that append uses.
            file.write(bytes("Z"), 9);
            assertThat(file.append(bytes("!"))).isEqualTo(10);
            assertThat(file.size()).isEqualTo(11);
        }
    }

    @Test
    void shouldZeroFillWhenWritingPastTheEnd() throws IOException {
        try (VfsFile file = vfs.create(dir.resolve("a.log"))) {
            file.write(bytes("ab"), 0);
            file.write(bytes("cd"), 4);
            byte[] content = new byte[6];
            file.readFully(0, content, 0, 6);
            assertThat(content).containsExactly('a', 'b', 0, 0, 'c', 'd');
        }
    }

    @Test
    void shouldOverwriteInPlace() throws IOException {
        try (VfsFile file = vfs.create(dir.resolve("a.log"))) {
            file.append(bytes("abcdef"));
            file.write(2, "XY".getBytes(UTF_8), 0, 2);
            assertThat(contentOf(file)).isEqualTo("abXYef");
            assertThat(file.size()).isEqualTo(6);
        }
    }

    @Test
    void shouldReadPartiallyAndReturnMinusOneAtTheEnd() throws IOException {
        try (VfsFile file = vfs.create(dir.resolve("a.log"))) {
            file.append(bytes("abcde"));
            ByteBuffer buffer = ByteBuffer.allocate(10);

            assertThat(file.read(buffer, 3)).isEqualTo(2);
            assertThat(new String(buffer.array(), 0, buffer.position(), UTF_8)).isEqualTo("de");
            assertThat(file.read(ByteBuffer.allocate(4), 5)).isEqualTo(-1);
            assertThat(file.read(ByteBuffer.allocate(4), 100)).isEqualTo(-1);
        }
    }

    @Test
    void shouldThrowEofWhenReadFullyRunsPastTheEnd() throws IOException {
        try (VfsFile file = vfs.create(dir.resolve("a.log"))) {
            file.append(bytes("abcde"));
            byte[] buffer = new byte[4];

            assertThatThrownBy(() -> file.readFully(3, buffer, 0, 4))
                    .isInstanceOf(EOFException.class)
                    .hasMessageContaining("a.log");
            file.readFully(1, buffer, 1, 3);
            assertThat(new String(buffer, 1, 3, UTF_8)).isEqualTo("bcd");
        }
    }

    @Test
    void shouldTruncateAndIgnoreATruncateToALargerSize() throws IOException {
        try (VfsFile file = vfs.create(dir.resolve("a.log"))) {
            file.append(bytes("abcdef"));
            file.truncate(4);
            assertThat(file.size()).isEqualTo(4);
            file.truncate(100);
            assertThat(file.size()).isEqualTo(4);
            // Bytes cut off do not come back when the file grows again.
            file.write(bytes("Z"), 5);
            byte[] content = new byte[6];
            file.readFully(0, content, 0, 6);
            assertThat(content).containsExactly('a', 'b', 'c', 'd', 0, 'Z');
        }
    }

    @Test
    void shouldRefuseWritesThroughAReadOnlyHandle() throws IOException {
        Path path = dir.resolve("a.log");
        writeFile(path, "abc");

        try (VfsFile file = vfs.openReadOnly(path)) {
            assertThatThrownBy(() -> file.write(bytes("x"), 0)).isInstanceOf(IOException.class);
            assertThatThrownBy(() -> file.append(bytes("x"))).isInstanceOf(IOException.class);
            assertThatThrownBy(() -> file.truncate(0)).isInstanceOf(IOException.class);
            assertThat(contentOf(file)).isEqualTo("abc");
        }
    }

    @Test
    void shouldRenameReplacingAnExistingTarget() throws IOException {
        Path from = dir.resolve("new.tmp");
        Path to = dir.resolve("current");
        writeFile(from, "new");
        writeFile(to, "old");

        vfs.rename(from, to);

        assertThat(vfs.exists(from)).isFalse();
        assertThat(contentOf(to)).isEqualTo("new");
        assertThat(vfs.list(dir)).containsExactly("current");
    }

    @Test
    void shouldRenameIntoAnotherDirectory() throws IOException {
        Path other = dir.resolve("other");
        vfs.mkdirs(other);
        writeFile(dir.resolve("a"), "moved");

        vfs.rename(dir.resolve("a"), other.resolve("b"));

        assertThat(vfs.list(dir)).containsExactly("other");
        assertThat(contentOf(other.resolve("b"))).isEqualTo("moved");
    }

    @Test
    void shouldFailToRenameAMissingFile() {
        assertThatThrownBy(() -> vfs.rename(dir.resolve("missing"), dir.resolve("b")))
                .isInstanceOf(NoSuchFileException.class);
    }

    @Test
    void shouldDeleteAFileAndRefuseToDeleteAMissingOne() throws IOException {
        Path path = dir.resolve("a.log");
        writeFile(path, "x");

        vfs.delete(path);

        assertThat(vfs.exists(path)).isFalse();
        assertThat(vfs.list(dir)).isEmpty();
        assertThatThrownBy(() -> vfs.delete(path)).isInstanceOf(NoSuchFileException.class);
    }

    @Test
    void shouldListFilesAndDirectoriesSortedByName() throws IOException {
        for (String name : List.of("c", "a10", "B", "a2")) {
            writeFile(dir.resolve(name), name);
        }
        vfs.mkdirs(dir.resolve("b-dir"));

        assertThat(vfs.list(dir)).containsExactly("B", "a10", "a2", "b-dir", "c");
        assertThat(vfs.list(dir.resolve("b-dir"))).isEmpty();
    }

    @Test
    void shouldRefuseToListAMissingDirectory() {
        assertThatThrownBy(() -> vfs.list(dir.resolve("missing"))).isInstanceOf(NoSuchFileException.class);
    }

    @Test
    void shouldCreateNestedDirectoriesIdempotently() throws IOException {
        Path nested = dir.resolve("x").resolve("y").resolve("z");

        vfs.mkdirs(nested);
        vfs.mkdirs(nested);

        assertThat(vfs.exists(nested)).isTrue();
        assertThat(vfs.list(dir)).containsExactly("x");
        assertThat(vfs.list(dir.resolve("x"))).containsExactly("y");
        writeFile(nested.resolve("f"), "deep");
        assertThat(contentOf(nested.resolve("f"))).isEqualTo("deep");
    }

    @Test
    void shouldSyncWithoutChangingContent() throws IOException {
        Path path = dir.resolve("a.log");
        try (VfsFile file = vfs.create(path)) {
            file.append(bytes("abc"));
            file.force();
        }
        vfs.syncDirectory(dir);

        assertThat(contentOf(path)).isEqualTo("abc");
        assertThat(vfs.list(dir)).containsExactly("a.log");
    }

    @Test
    void shouldRefuseASecondLockAndAllowRelockingAfterClose() throws IOException {
        Path lockFile = dir.resolve("LOCK");
        VfsLock first = vfs.lock(lockFile);
        assertThat(vfs.exists(lockFile)).isTrue();

        assertThatThrownBy(() -> vfs.lock(lockFile))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(lockFile.toString());

        first.close();
        first.close(); // A second close does nothing, and must not release a later holder's lock.
        try (VfsLock second = vfs.lock(lockFile)) {
            first.close();
            assertThatThrownBy(() -> vfs.lock(lockFile)).isInstanceOf(IOException.class);
            assertThat(second).isNotNull();
        }
    }

    @Test
    void shouldKeepAnOpenHandleWorkingAfterItsFileIsDeleted() throws IOException {
        Path path = dir.resolve("a.log");
        try (VfsFile file = vfs.create(path)) {
            file.append(bytes("abc"));
            vfs.delete(path);

            file.append(bytes("def"));
            file.force();
            assertThat(contentOf(file)).isEqualTo("abcdef");
        }
        assertThat(vfs.exists(path)).isFalse();
    }

    @Test
    void shouldKeepAnOpenHandleWorkingAfterItsFileIsRenamed() throws IOException {
        Path path = dir.resolve("a.tmp");
        try (VfsFile file = vfs.create(path)) {
            file.append(bytes("abc"));
            vfs.rename(path, dir.resolve("a"));

            file.append(bytes("def"));
        }
        assertThat(contentOf(dir.resolve("a"))).isEqualTo("abcdef");
    }

    @Test
    void shouldGiveConcurrentAppendsDisjointRanges() throws Exception {
        int threads = 4;
        int appendsPerThread = 200;
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try (VfsFile file = vfs.create(dir.resolve("a.log"))) {
            List<Future<List<Long>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                byte[] record = ("thread-" + t + ";").getBytes(UTF_8);
                Callable<List<Long>> task = () -> {
                    start.await();
                    List<Long> offsets = new ArrayList<>();
                    for (int i = 0; i < appendsPerThread; i++) {
                        offsets.add(file.append(ByteBuffer.wrap(record)));
                    }
                    return offsets;
                };
                results.add(executor.submit(task));
            }
            start.countDown();

            Set<Long> offsets = new HashSet<>();
            for (int t = 0; t < threads; t++) {
                byte[] expected = ("thread-" + t + ";").getBytes(UTF_8);
                for (long offset : results.get(t).get(30, TimeUnit.SECONDS)) {
                    assertThat(offsets.add(offset)).as("offset %d handed out twice", offset).isTrue();
                    byte[] actual = new byte[expected.length];
                    file.readFully(offset, actual, 0, actual.length);
                    assertThat(actual).isEqualTo(expected);
                }
            }
            assertThat(file.size()).isEqualTo((long) threads * appendsPerThread * "thread-0;".length());
        } finally {
            executor.shutdownNow();
        }
    }
}
