package dev.lacuna.vfs.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.vfs.FaultyVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import dev.lacuna.vfs.testing.BrokenVfs.Breakage;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Each breakage does to a crash image what its Javadoc says, and only that: the crash suites count a breakage
 * caught on their own, so a breakage that did nothing would show as "NOT caught", but one that did something
 * else would be caught for the wrong reason. Strict crash images (no random part), one small file each.
 */
class BrokenVfsTest {
    private static final Path DIR = Path.of("/d");
    private static final Path FILE = DIR.resolve("f");

    private static BrokenVfs vfs(Breakage breakage) throws IOException {
        MemVfs base = new MemVfs();
        base.mkdirs(DIR);
        return new BrokenVfs(base, breakage, 0);
    }

    private static byte[] bytes(int length, int fill) {
        byte[] b = new byte[length];
        Arrays.fill(b, (byte) fill);
        return b;
    }

    private static void write(VfsFile f, long position, byte[] b) throws IOException {
        f.write(ByteBuffer.wrap(b), position);
    }

    private static byte[] crashed(BrokenVfs vfs, Path file) throws IOException {
        return vfs.crashClone(null).readAll(file);
    }

    /** Two writes, one force, and a name made durable: the honest image holds both. */
    private static VfsFile twoWritesForced(BrokenVfs vfs) throws IOException {
        VfsFile f = vfs.create(FILE);
        write(f, 0, bytes(4, 1));
        write(f, 4, bytes(4, 2));
        f.force();
        vfs.syncDirectory(DIR);
        return f;
    }

    @Test
    void shouldKeepEverythingForcedWhenHonest() throws IOException {
        BrokenVfs vfs = vfs(Breakage.NONE);
        try (VfsFile f = twoWritesForced(vfs)) {
            assertThat(crashed(vfs, FILE)).containsExactly(1, 1, 1, 1, 2, 2, 2, 2);
        }
    }

    @Test
    void shouldLeaveAHoleWhereTheOldestWriteOfAForceWas() throws IOException {
        BrokenVfs vfs = vfs(Breakage.FORCE_LOSES_OLDEST_WRITE);
        try (VfsFile f = twoWritesForced(vfs)) {
            assertThat(crashed(vfs, FILE)).containsExactly(0, 0, 0, 0, 2, 2, 2, 2);
        }
    }

    @Test
    void shouldCutAFileToItsLengthAtItsPreviousForce() throws IOException {
        BrokenVfs vfs = vfs(Breakage.FORCE_LOSES_NEW_LENGTH);
        try (VfsFile f = twoWritesForced(vfs)) {
            assertThat(crashed(vfs, FILE)).isEmpty(); // forced once: its length never reached the disk
            write(f, 8, bytes(2, 3));
            f.force();
            assertThat(crashed(vfs, FILE)).containsExactly(1, 1, 1, 1, 2, 2, 2, 2);
        }
    }

    @Test
    void shouldShowTheNewestReplacingRenameHalfDone() throws IOException {
        BrokenVfs vfs = vfs(Breakage.RENAME_NOT_ATOMIC);
        Path tmp = DIR.resolve("f.tmp");
        try (VfsFile f = twoWritesForced(vfs); VfsFile t = vfs.create(tmp)) {
            write(t, 0, bytes(3, 9));
            t.force();
            vfs.rename(tmp, FILE);
            vfs.syncDirectory(DIR);
            MemVfs crashed = vfs.crashClone(null);
            assertThat(crashed.exists(FILE)).isFalse();
            assertThat(crashed.readAll(tmp)).containsExactly(9, 9, 9);
        }
    }

    @Test
    void shouldDropTheWritesOfEveryFourthForceAndReportSuccess() throws IOException {
        BrokenVfs vfs = vfs(Breakage.FORCE_ERROR_SWALLOWED);
        try (VfsFile f = vfs.create(FILE)) {
            vfs.syncDirectory(DIR);
            for (int i = 0; i < BrokenVfs.SWALLOWED_EVERY; i++) {
                write(f, i, new byte[] {(byte) (i + 1)});
                f.force(); // the last one fails inside, silently
            }
            assertThat(f.size()).isEqualTo(BrokenVfs.SWALLOWED_EVERY); // the process still reads it back
            assertThat(crashed(vfs, FILE)).containsExactly(1, 2, 3);
            f.force(); // a later force that succeeds does not bring the dropped write back
            assertThat(crashed(vfs, FILE)).containsExactly(1, 2, 3);
        }
    }

    @Test
    void shouldLandTheNewestForcedWriteASectorBeforeItsOffset() throws IOException {
        BrokenVfs vfs = vfs(Breakage.MISDIRECTED_WRITE);
        try (VfsFile f = vfs.create(FILE)) {
            vfs.syncDirectory(DIR);
            write(f, 0, bytes(1024, 1));
            f.force();
            write(f, 600, bytes(8, 2));
            f.force();
            byte[] image = crashed(vfs, FILE);
            assertThat(image).hasSize(1024);
            assertThat(Arrays.copyOfRange(image, 600, 608)).containsOnly(1); // its own place keeps the old bytes
            assertThat(Arrays.copyOfRange(image, 600 - BrokenVfs.SECTOR, 608 - BrokenVfs.SECTOR)).containsOnly(2);
        }
    }

    @Test
    void shouldLoseTheNewestLogWritesThoughForcedUntilTheFileIsRead() throws IOException {
        BrokenVfs vfs = vfs(Breakage.LOG_WRITES_HELD);
        Path log = DIR.resolve("000001.wal");
        try (VfsFile f = vfs.create(log)) {
            vfs.syncDirectory(DIR);
            write(f, 0, bytes(4, 1)); // a segment's header is handed over at once
            write(f, 4, bytes(4, 2));
            f.force();
            assertThat(crashed(vfs, log)).containsExactly(1, 1, 1, 1); // the forced record was still in the process
            assertThat(f.size()).isEqualTo(8); // a look at the file hands it over
            f.force();
            assertThat(crashed(vfs, log)).containsExactly(1, 1, 1, 1, 2, 2, 2, 2);
        }
    }

    @Test
    void shouldHoldOnlyTheLogsWrites() throws IOException {
        BrokenVfs vfs = vfs(Breakage.LOG_WRITES_HELD);
        try (VfsFile f = twoWritesForced(vfs)) {
            assertThat(crashed(vfs, FILE)).containsExactly(1, 1, 1, 1, 2, 2, 2, 2);
        }
    }

    @Test
    void shouldBreakAnyFileSystemInTheProcessButRefuseABreakageOfTheCrashImageOutOfMemory() throws IOException {
        MemVfs memory = new MemVfs();
        memory.mkdirs(DIR);
        Vfs notInMemory = new FaultyVfs(memory); // any file system that is not a MemVfs
        BrokenVfs vfs = new BrokenVfs(notInMemory, Breakage.FORCE_DOES_NOTHING, 0);
        try (VfsFile f = vfs.create(FILE)) {
            memory.syncDirectory(DIR);
            write(f, 0, bytes(4, 1));
            f.force();
            assertThat(memory.crashClone().readAll(FILE)).isEmpty(); // the force never reached the file system
        }
        assertThatThrownBy(vfs::base).isInstanceOf(IllegalStateException.class);
        for (Breakage b : Breakage.values()) {
            if (b.atTheCrash()) {
                assertThatThrownBy(() -> new BrokenVfs(notInMemory, b, 0)).as("%s", b)
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs a MemVfs");
            } else {
                new BrokenVfs(notInMemory, b, 0);
            }
        }
    }
}
