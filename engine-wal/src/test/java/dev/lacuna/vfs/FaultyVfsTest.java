package dev.lacuna.vfs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.vfs.FaultyVfs.Op;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
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

    /**
     * With {@link FaultyVfs#failedForceDropsWrites}, a failed force loses the writes since the last force from
     * the durable image, as Linux does (the process still reads them); a later force makes durable only what
     * was written after the failure, so the lost bytes come back as zeros, not as data.
     */
    @Test
    void shouldDropTheUnsyncedWritesFromTheDiskWhenAForceFailsAsLinuxDoes() throws IOException {
        Path path = DIR.resolve("a.log");
        vfs.failedForceDropsWrites(true);
        try (VfsFile file = vfs.create(path)) {
            mem.syncDirectory(DIR);
            file.append(bytes("one"));
            file.force();
            file.append(bytes("two"));
            vfs.failNth(Op.FORCE, 1);
            assertThatThrownBy(file::force).isInstanceOf(IOException.class);
            assertThat(new String(mem.readAll(path), UTF_8)).as("what the process reads").isEqualTo("onetwo");

            file.append(bytes("six"));
            file.force();
            assertThat(new String(mem.crashClone().readAll(path), UTF_8)).as("what a power loss leaves")
                    .isEqualTo("one\0\0\0six");
            assertThat(new String(mem.crashClone(new java.util.Random(1)).readAll(path), UTF_8))
                    .isEqualTo("one\0\0\0six");
        }
    }

    /** Through a {@link ForwardingVfs} wrapper too; and off (the default), the later force makes them durable. */
    @Test
    void shouldDropUnsyncedWritesThroughWrappersAndOnlyWhenAsked() throws IOException {
        FaultyVfs dropping = new FaultyVfs(new ForwardingVfs(mem) {
            @Override
            protected VfsFile wrap(VfsFile file) {
                return new ForwardingVfs.File(file) {
                };
            }
        });
        dropping.failedForceDropsWrites(true);
        for (FaultyVfs faulty : List.of(dropping, vfs)) {
            Path path = DIR.resolve(faulty == vfs ? "kept.log" : "dropped.log");
            try (VfsFile file = faulty.create(path)) {
                mem.syncDirectory(DIR);
                file.append(bytes("two"));
                faulty.failNth(Op.FORCE, 1);
                assertThatThrownBy(file::force).isInstanceOf(IOException.class);
                file.force();
            }
        }
        assertThat(new String(mem.crashClone().readAll(DIR.resolve("dropped.log")), UTF_8)).isEmpty();
        assertThat(new String(mem.crashClone().readAll(DIR.resolve("kept.log")), UTF_8)).isEqualTo("two");
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
            file.truncate(0);
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
        assertThat(vfs.count(Op.TRUNCATE)).isEqualTo(1);
        assertThat(vfs.injectedCount()).isEqualTo(1);
        assertThat(vfs.firstInjected()).isEqualTo("injected failure: WRITE #1 on " + path);
    }

    @Test
    void shouldCountEveryKindOfOperationAndTheirTotal() throws IOException {
        Path a = DIR.resolve("a");
        vfs.mkdirs(DIR.resolve("sub"));
        try (VfsFile file = vfs.create(a)) {
            file.append(bytes("abc"));
            file.size();
            file.read(ByteBuffer.allocate(2), 0);
            file.truncate(1);
            file.force();
        }
        vfs.open(a).close();
        vfs.openReadOnly(a).close();
        vfs.size(a);
        vfs.list(DIR);
        vfs.lock(DIR.resolve("LOCK")).close();
        vfs.exists(a); // cannot fail: not counted

        assertThat(vfs.count(Op.MKDIRS)).isEqualTo(1);
        assertThat(vfs.count(Op.CREATE)).isEqualTo(1);
        assertThat(vfs.count(Op.WRITE)).isEqualTo(1);
        assertThat(vfs.count(Op.SIZE)).isEqualTo(2);
        assertThat(vfs.count(Op.READ)).isEqualTo(1);
        assertThat(vfs.count(Op.TRUNCATE)).isEqualTo(1);
        assertThat(vfs.count(Op.FORCE)).isEqualTo(1);
        assertThat(vfs.count(Op.OPEN)).isEqualTo(2);
        assertThat(vfs.count(Op.LIST)).isEqualTo(1);
        assertThat(vfs.count(Op.LOCK)).isEqualTo(1);
        assertThat(vfs.totalCount()).isEqualTo(12);
        assertThat(vfs.injectedCount()).isZero();
        assertThat(vfs.firstInjected()).isNull();
    }

    @Test
    void shouldFailReadsOpensListsLocksSizesTruncationsAndMkdirs() throws IOException {
        Path a = DIR.resolve("a");
        try (VfsFile file = mem.create(a)) {
            file.append(bytes("abc"));
        }
        for (Op op : List.of(Op.READ, Op.OPEN, Op.LIST, Op.LOCK, Op.SIZE, Op.TRUNCATE, Op.MKDIRS)) {
            vfs.failNth(op, 1);
        }

        assertThatThrownBy(() -> vfs.open(a)).hasMessage("injected failure: OPEN #1 on " + a);
        try (VfsFile file = vfs.open(a)) {
            assertThatThrownBy(() -> file.read(ByteBuffer.allocate(3), 0)).hasMessageContaining("READ #1");
            assertThatThrownBy(file::size).hasMessageContaining("SIZE #1");
            assertThatThrownBy(() -> file.truncate(1)).hasMessageContaining("TRUNCATE #1");
            assertThat(file.size()).as("the truncation did not happen").isEqualTo(3);
        }
        assertThatThrownBy(() -> vfs.list(DIR)).hasMessageContaining("LIST #1");
        assertThatThrownBy(() -> vfs.lock(DIR.resolve("LOCK"))).hasMessageContaining("LOCK #1");
        assertThat(mem.exists(DIR.resolve("LOCK"))).as("a failed lock creates no lock file").isFalse();
        vfs.lock(DIR.resolve("LOCK")).close();
        assertThatThrownBy(() -> vfs.mkdirs(DIR.resolve("sub"))).hasMessageContaining("MKDIRS #1");
        assertThat(mem.exists(DIR.resolve("sub"))).isFalse();
        assertThat(vfs.injectedCount()).isEqualTo(7);
    }

    @Test
    void shouldFailTheNthOperationOfAnyKindWithAnError() throws IOException {
        Path a = DIR.resolve("a");
        try (VfsFile file = vfs.create(a)) { // operation 1
            file.append(bytes("one")); // 2
            vfs.failOperation(2, FaultyVfs.Fault.ERROR);
            file.force(); // 3: the 1st from the rule
            assertThatThrownBy(() -> file.append(bytes("two"))) // 4: the 2nd
                    .hasMessage("injected failure: WRITE (operation #2) on " + a);
            file.append(bytes("three")); // one-shot
        }
        assertThat(new String(mem.readAll(a), UTF_8)).isEqualTo("onethree");
        assertThat(vfs.totalCount()).isEqualTo(5);
        assertThat(vfs.injectedCount()).isEqualTo(1);

        vfs.failOperation(1, FaultyVfs.Fault.ERROR);
        assertThatThrownBy(() -> vfs.syncDirectory(DIR)).hasMessageContaining("SYNC_DIRECTORY (operation #1) on");
        assertThat(mem.crashClone().list(DIR)).as("the failed sync did not run").isEmpty();
    }

    @Test
    void shouldReplaceAPendingOperationFaultAndForgetItOnHeal() throws IOException {
        vfs.failOperation(1, FaultyVfs.Fault.ERROR);
        vfs.failOperation(2, FaultyVfs.Fault.ERROR);
        vfs.list(DIR);
        assertThatThrownBy(() -> vfs.list(DIR)).isInstanceOf(IOException.class);

        vfs.failOperation(1, FaultyVfs.Fault.ERROR);
        vfs.heal();
        vfs.list(DIR);
        assertThat(vfs.injectedCount()).isEqualTo(1);
    }

    @Test
    void shouldWriteHalfAndThenNothingOnceTheDiskFillsUpAtTheChosenOperation() throws IOException {
        Path a = DIR.resolve("a");
        try (VfsFile file = vfs.create(a)) {
            mem.syncDirectory(DIR);
            vfs.failOperation(1, FaultyVfs.Fault.DISK_FULL);
            file.force(); // the disk fills up here; a force still runs
            ByteBuffer crossing = bytes("abcdef");
            assertThatThrownBy(() -> file.append(crossing)).hasMessage("No space left on device");
            assertThat(crossing.position()).as("consumed as a partial write").isEqualTo(3);
            assertThatThrownBy(() -> file.write(bytes("xyz"), 0)).hasMessage("No space left on device");
            assertThatThrownBy(() -> vfs.create(DIR.resolve("b"))).hasMessage("No space left on device");
            assertThat(mem.exists(DIR.resolve("b"))).isFalse();
            file.read(ByteBuffer.allocate(8), 0); // reads, renames, deletes... still run
            file.force();
            assertThat(new String(mem.crashClone().readAll(a), UTF_8)).isEqualTo("abc");

            vfs.heal();
            file.append(bytes("gh"));
        }
        assertThat(new String(mem.readAll(a), UTF_8)).isEqualTo("abcgh");
        assertThat(vfs.injectedCount()).isEqualTo(3);
        assertThat(vfs.firstInjected()).isEqualTo("No space left on device");
    }

    @Test
    void shouldWriteHalfOfTheChosenWriteWhenTheDiskFillsUpThere() throws IOException {
        Path a = DIR.resolve("a");
        try (VfsFile file = vfs.create(a)) {
            file.append(bytes("0123456789"));
            vfs.failOperation(1, FaultyVfs.Fault.DISK_FULL);
            assertThatThrownBy(() -> file.write(bytes("abcd"), 4)).hasMessage("No space left on device");
        }
        assertThat(new String(mem.readAll(a), UTF_8)).isEqualTo("0123ab6789");
    }

    @Test
    void shouldTearTheFirstWriteAtOrAfterTheChosenOperationOnly() throws IOException {
        Path a = DIR.resolve("a");
        try (VfsFile file = vfs.create(a)) {
            mem.syncDirectory(DIR);
            vfs.failOperation(2, FaultyVfs.Fault.TORN_WRITE);
            file.force(); // 1
            file.size(); // 2: the chosen operation is not a write, so the next write is torn
            file.force();
            assertThatThrownBy(() -> file.append(bytes("abcde")))
                    .hasMessage("injected failure: torn write of 5 bytes (operation #5) on " + a);
            file.append(bytes("XY"));
            file.force();
        }
        assertThat(new String(mem.crashClone().readAll(a), UTF_8)).isEqualTo("abXY");
        assertThat(vfs.injectedCount()).isEqualTo(1);
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
