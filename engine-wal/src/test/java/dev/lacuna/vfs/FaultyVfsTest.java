package dev.lacuna.vfs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.vfs.FaultyVfs.Op;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Fault injection by {@link FaultyVfs}, over a {@link MemVfs} so that effects can be inspected. */
final class FaultyVfsTest {
    private static final Path DIR = Path.of("/db");

    private MemVfs mem;
    private FaultyVfs vfs;

    @BeforeEach
    void setUp() throws IOException {
        mem = new MemVfs();
        mem.mkdirs(DIR);
        vfs = new FaultyVfs(mem);
    }

    private static ByteBuffer bytes(String text) {
        return ByteBuffer.wrap(text.getBytes(UTF_8));
    }

    @Test
    void shouldFailExactlyTheNthForceAndNotTheNext() throws IOException {
        Path path = DIR.resolve("a.log");
        try (VfsFile file = vfs.create(path)) {
            mem.syncDirectory(DIR);
            file.force(); // Counted before the rule: the rule counts from its own call.
            vfs.failNth(Op.FORCE, 2);

            file.append(bytes("one"));
            file.force();
            file.append(bytes("two"));
            assertThatThrownBy(file::force)
                    .isInstanceOf(IOException.class)
                    .hasMessage("injected failure: FORCE #2 on " + path);
            // The failed force did not reach the disk.
            assertThat(new String(mem.crashClone().readAll(path), UTF_8)).isEqualTo("one");

            file.force();
            assertThat(new String(mem.crashClone().readAll(path), UTF_8)).isEqualTo("onetwo");
        }
    }

    @Test
    void shouldFailEveryOperationFromTheNth() throws IOException {
        try (VfsFile file = vfs.create(DIR.resolve("a.log"))) {
            vfs.failFrom(Op.WRITE, 3);

            file.append(bytes("a"));
            file.write(bytes("b"), 1);
            assertThatThrownBy(() -> file.append(bytes("c"))).hasMessageContaining("WRITE #3");
            assertThatThrownBy(() -> file.write(bytes("d"), 3)).hasMessageContaining("WRITE #4");
            assertThatThrownBy(() -> file.append(bytes("e"))).hasMessageContaining("WRITE #5");

            assertThat(mem.readAll(DIR.resolve("a.log"))).containsExactly('a', 'b');
            file.force(); // Other kinds are unaffected.
        }
    }

    @Test
    void shouldWriteWhatFitsAndThenThrowWhenTheDiskIsFull() throws IOException {
        Path path = DIR.resolve("a.log");
        try (VfsFile file = vfs.create(path)) {
            file.append(bytes("before"));
            vfs.diskFullAfter(5);

            file.append(bytes("abc"));
            ByteBuffer crossing = bytes("defgh");
            assertThatThrownBy(() -> file.append(crossing))
                    .isInstanceOf(IOException.class)
                    .hasMessage("No space left on device");
            assertThat(crossing.position()).isEqualTo(2);
            assertThatThrownBy(() -> file.write(bytes("x"), 0)).hasMessage("No space left on device");

            assertThat(new String(mem.readAll(path), UTF_8)).isEqualTo("beforeabcde");
        }
    }

    @Test
    void shouldWritePartiallyAtThePositionGivenWhenTheDiskFillsUp() throws IOException {
        Path path = DIR.resolve("a.log");
        try (VfsFile file = vfs.create(path)) {
            file.append(bytes("0123456789"));
            vfs.diskFullAfter(2);

            assertThatThrownBy(() -> file.write(bytes("abcd"), 4)).hasMessage("No space left on device");

            assertThat(new String(mem.readAll(path), UTF_8)).isEqualTo("0123ab6789");
        }
    }

    @Test
    void shouldCountOperationsOfEachKindIncludingFailedOnes() throws IOException {
        Path path = DIR.resolve("a.log");
        vfs.failNth(Op.WRITE, 1);
        try (VfsFile file = vfs.create(path)) {
            assertThatThrownBy(() -> file.append(bytes("x"))).isInstanceOf(IOException.class);
            file.append(bytes("y"));
            file.write(bytes("z"), 0);
            file.force();
            file.truncate(0); // Not a counted kind.
        }
        vfs.syncDirectory(DIR);
        vfs.rename(path, DIR.resolve("b.log"));
        vfs.delete(DIR.resolve("b.log"));

        assertThat(vfs.count(Op.WRITE)).isEqualTo(3);
        assertThat(vfs.count(Op.FORCE)).isEqualTo(1);
        assertThat(vfs.count(Op.CREATE)).isEqualTo(1);
        assertThat(vfs.count(Op.SYNC_DIRECTORY)).isEqualTo(1);
        assertThat(vfs.count(Op.RENAME)).isEqualTo(1);
        assertThat(vfs.count(Op.DELETE)).isEqualTo(1);
    }

    @Test
    void shouldFailNamespaceOperationsWithoutPerformingThem() throws IOException {
        Path a = DIR.resolve("a");
        Path b = DIR.resolve("b");
        vfs.failNth(Op.CREATE, 1);
        vfs.failNth(Op.RENAME, 1);
        vfs.failNth(Op.DELETE, 1);
        vfs.failNth(Op.SYNC_DIRECTORY, 1);

        assertThatThrownBy(() -> vfs.create(a)).hasMessage("injected failure: CREATE #1 on " + a);
        assertThat(mem.exists(a)).isFalse();
        vfs.create(a).close();

        assertThatThrownBy(() -> vfs.rename(a, b)).hasMessageContaining("RENAME #1");
        assertThat(mem.list(DIR)).containsExactly("a");

        assertThatThrownBy(() -> vfs.syncDirectory(DIR)).hasMessageContaining("SYNC_DIRECTORY #1");
        assertThat(mem.crashClone().list(DIR)).isEmpty();

        assertThatThrownBy(() -> vfs.delete(a)).hasMessageContaining("DELETE #1");
        assertThat(mem.exists(a)).isTrue();
    }

    @Test
    void shouldApplyRulesToFilesOpenedLater() throws IOException {
        mem.create(DIR.resolve("a.log")).close();
        vfs.failNth(Op.FORCE, 1);

        try (VfsFile file = vfs.open(DIR.resolve("a.log"))) {
            assertThatThrownBy(file::force).hasMessageContaining("FORCE #1");
        }
        try (VfsFile file = vfs.openReadOnly(DIR.resolve("a.log"))) {
            file.force();
        }
        assertThat(vfs.count(Op.FORCE)).isEqualTo(2);
    }

    @Test
    void shouldStopFailingAfterHeal() throws IOException {
        try (VfsFile file = vfs.create(DIR.resolve("a.log"))) {
            vfs.failFrom(Op.FORCE, 1);
            vfs.failNth(Op.WRITE, 2);
            vfs.diskFullAfter(0);
            assertThatThrownBy(file::force).isInstanceOf(IOException.class);

            vfs.heal();

            file.append(bytes("a"));
            file.append(bytes("b"));
            file.force();
            assertThat(mem.readAll(DIR.resolve("a.log"))).containsExactly('a', 'b');
            assertThat(vfs.count(Op.FORCE)).isEqualTo(2);
        }
    }

    @Test
    void shouldRefuseOperationNumbersBelowOne() {
        assertThatThrownBy(() -> vfs.failNth(Op.WRITE, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> vfs.failFrom(Op.WRITE, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> vfs.diskFullAfter(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
