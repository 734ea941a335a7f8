package dev.lacuna.vfs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The crash simulation of {@link MemVfs}: what survives {@link MemVfs#crashClone()} and its random variant. */
final class MemVfsTest {
    private static final Path DIR = Path.of("/db");

    private MemVfs vfs;

    @BeforeEach
    void setUp() throws IOException {
        vfs = new MemVfs();
        vfs.mkdirs(DIR);
    }

    private static ByteBuffer bytes(String text) {
        return ByteBuffer.wrap(text.getBytes(UTF_8));
    }

    private static String text(byte[] content) {
        return new String(content, UTF_8);
    }

    /** Creates {@code name} with {@code text}, forces it and syncs the directory: fully durable. */
    private Path durableFile(String name, String text) throws IOException {
        Path path = DIR.resolve(name);
        try (VfsFile file = vfs.create(path)) {
            file.append(bytes(text));
            file.force();
        }
        vfs.syncDirectory(DIR);
        return path;
    }

    @Test
    void shouldLoseUnforcedBytesAndKeepForcedOnesOnCrash() throws IOException {
        Path path = DIR.resolve("a.log");
        try (VfsFile file = vfs.create(path)) {
            vfs.syncDirectory(DIR);
            file.append(bytes("durable"));
            file.force();
            file.append(bytes("+lost"));

            MemVfs crashed = vfs.crashClone();

            assertThat(text(crashed.readAll(path))).isEqualTo("durable");
            assertThat(crashed.size(path)).isEqualTo(7);
            assertThat(text(vfs.readAll(path))).isEqualTo("durable+lost");
        }
    }

    @Test
    void shouldLoseAnUnforcedOverwriteOfForcedBytes() throws IOException {
        Path path = durableFile("a.log", "abcdef");
        try (VfsFile file = vfs.open(path)) {
            file.write(bytes("XY"), 2);
        }

        assertThat(text(vfs.crashClone().readAll(path))).isEqualTo("abcdef");
        assertThat(text(vfs.readAll(path))).isEqualTo("abXYef");
    }

    @Test
    void shouldDropACreatedFileWhoseDirectoryWasNotSynced() throws IOException {
        Path path = DIR.resolve("a.log");
        try (VfsFile file = vfs.create(path)) {
            file.append(bytes("data"));
            file.force();
        }

        MemVfs crashed = vfs.crashClone();

        assertThat(crashed.exists(path)).isFalse();
        assertThat(crashed.list(DIR)).isEmpty();
        assertThat(vfs.exists(path)).isTrue();
    }

    @Test
    void shouldKeepACreatedFileOnceItsDirectoryIsSynced() throws IOException {
        Path path = durableFile("a.log", "data");

        MemVfs crashed = vfs.crashClone();

        assertThat(crashed.list(DIR)).containsExactly("a.log");
        assertThat(text(crashed.readAll(path))).isEqualTo("data");
    }

    @Test
    void shouldKeepDirectoriesDurableFromCreation() throws IOException {
        vfs.mkdirs(DIR.resolve("sub/deeper"));

        MemVfs crashed = vfs.crashClone();

        assertThat(crashed.list(DIR)).containsExactly("sub");
        assertThat(crashed.exists(DIR.resolve("sub/deeper"))).isTrue();
    }

    @Test
    void shouldRevertARenameThatWasNotSynced() throws IOException {
        Path current = durableFile("CURRENT", "old");
        Path temporary = durableFile("CURRENT.tmp", "new");
        vfs.rename(temporary, current);

        MemVfs crashed = vfs.crashClone();
        assertThat(text(crashed.readAll(current))).isEqualTo("old");
        assertThat(text(crashed.readAll(temporary))).isEqualTo("new");

        vfs.syncDirectory(DIR);
        MemVfs synced = vfs.crashClone();
        assertThat(text(synced.readAll(current))).isEqualTo("new");
        assertThat(synced.list(DIR)).containsExactly("CURRENT");
    }

    @Test
    void shouldBringBackADeletedFileWhoseDirectoryWasNotSynced() throws IOException {
        Path path = durableFile("old.log", "history");
        vfs.delete(path);

        assertThat(text(vfs.crashClone().readAll(path))).isEqualTo("history");

        vfs.syncDirectory(DIR);
        assertThat(vfs.crashClone().exists(path)).isFalse();
    }

    @Test
    void shouldRevertAnUnforcedTruncateAndKeepAForcedOne() throws IOException {
        Path path = durableFile("a.log", "abcdef");
        try (VfsFile file = vfs.open(path)) {
            file.truncate(2);
            assertThat(text(vfs.crashClone().readAll(path))).isEqualTo("abcdef");

            file.force();
            assertThat(text(vfs.crashClone().readAll(path))).isEqualTo("ab");
        }
    }

    @Test
    void shouldKeepTheCloneIndependentOfTheOriginal() throws IOException {
        Path path = durableFile("a.log", "shared");
        MemVfs crashed = vfs.crashClone();

        try (VfsFile original = vfs.open(path); VfsFile cloned = crashed.open(path)) {
            original.append(bytes("+original"));
            original.force();
            cloned.write(bytes("S"), 0);
            cloned.force();
        }
        crashed.delete(path);
        crashed.syncDirectory(DIR);

        assertThat(text(vfs.readAll(path))).isEqualTo("shared+original");
        assertThat(text(vfs.crashClone().readAll(path))).isEqualTo("shared+original");
        assertThat(crashed.exists(path)).isFalse();
    }

    @Test
    void shouldNotCarryLocksIntoAClone() throws IOException {
        Path lockFile = DIR.resolve("LOCK");
        try (VfsLock held = vfs.lock(lockFile)) {
            MemVfs crashed = vfs.crashClone();

            try (VfsLock relocked = crashed.lock(lockFile)) {
                assertThat(relocked).isNotSameAs(held);
            }
        }
    }

    @Test
    void shouldLeaveOnlyPrefixesOfPendingWritesInRandomCrashes() throws IOException {
        byte[] full = new byte[4000];
        new Random(42).nextBytes(full);
        int chunk = 100;
        int forcedLength = 1500;
        Path path = DIR.resolve("a.log");
        try (VfsFile file = vfs.create(path)) {
            vfs.syncDirectory(DIR);
            for (int offset = 0; offset < full.length; offset += chunk) {
                file.append(ByteBuffer.wrap(full, offset, chunk));
                if (offset + chunk == forcedLength) {
                    file.force();
                }
            }
        }

        Set<Integer> lengths = new TreeSet<>();
        for (long seed = 0; seed < 500; seed++) {
            byte[] content = vfs.crashClone(new Random(seed)).readAll(path);

            assertThat(content.length).as("seed %d", seed).isBetween(forcedLength, full.length);
            assertThat(content).as("seed %d", seed).isEqualTo(Arrays.copyOf(full, content.length));
            lengths.add(content.length);
        }
        // The seeds must actually explore: nothing pending kept, everything kept, and torn writes.
        assertThat(lengths).contains(forcedLength, full.length);
        assertThat(lengths).anyMatch(length -> length > forcedLength && length < forcedLength + chunk);
        assertThat(lengths).anyMatch(length -> length % chunk != 0);
        assertThat(vfs.readAll(path)).isEqualTo(full);
    }

    @Test
    void shouldReplayPendingTruncatesAndWritesInOrderInRandomCrashes() throws IOException {
        Path path = durableFile("a.log", "0123456789");
        try (VfsFile file = vfs.open(path)) {
            file.truncate(4);
            file.append(bytes("xyz"));
        }
        Set<String> allowed = Set.of("0123456789", "0123", "0123x", "0123xy", "0123xyz");

        Set<String> seen = new HashSet<>();
        for (long seed = 0; seed < 300; seed++) {
            String content = text(vfs.crashClone(new Random(seed)).readAll(path));
            assertThat(content).as("seed %d", seed).isIn(allowed);
            seen.add(content);
        }
        assertThat(seen).isEqualTo(allowed);
    }

    @Test
    void shouldLeaveOnlyPrefixesOfPendingNamespaceOperationsInRandomCrashes() throws IOException {
        for (String name : List.of("a", "b", "c")) {
            try (VfsFile file = vfs.create(DIR.resolve(name))) {
                file.append(bytes(name));
                file.force();
            }
        }
        Set<List<String>> allowed = Set.of(List.of(), List.of("a"), List.of("a", "b"), List.of("a", "b", "c"));

        Set<List<String>> seen = new HashSet<>();
        for (long seed = 0; seed < 200; seed++) {
            List<String> names = vfs.crashClone(new Random(seed)).list(DIR);
            assertThat(names).as("seed %d", seed).isIn(allowed);
            seen.add(names);
        }
        assertThat(seen).isEqualTo(allowed);
    }

    @Test
    void shouldReproduceTheSameCrashFromTheSameSeed() throws IOException {
        Path path = DIR.resolve("a.log");
        try (VfsFile file = vfs.create(path)) {
            for (int i = 0; i < 50; i++) {
                file.append(bytes("record-" + i + ";"));
            }
        }

        for (long seed = 0; seed < 20; seed++) {
            MemVfs first = vfs.crashClone(new Random(seed));
            MemVfs second = vfs.crashClone(new Random(seed));
            assertThat(second.exists(path)).isEqualTo(first.exists(path));
            if (first.exists(path)) {
                assertThat(second.readAll(path)).isEqualTo(first.readAll(path));
            }
        }
    }

    @Test
    void shouldLoseNothingInRandomCrashesOnceEverythingIsSynced() throws IOException {
        Path path = durableFile("a.log", "all synced");
        vfs.mkdirs(DIR.resolve("sub"));

        for (long seed = 0; seed < 50; seed++) {
            MemVfs crashed = vfs.crashClone(new Random(seed));
            assertThat(crashed.list(DIR)).containsExactly("a.log", "sub");
            assertThat(text(crashed.readAll(path))).isEqualTo("all synced");
        }
    }

    @Test
    void shouldKeepOneFileBehindTwoNamesLeftByACrashedCrossDirectoryRename() throws IOException {
        Path other = Path.of("/other");
        vfs.mkdirs(other);
        Path source = durableFile("f", "content");
        Path target = other.resolve("f");
        vfs.rename(source, target);

        MemVfs bothNames = null;
        for (long seed = 0; seed < 200 && bothNames == null; seed++) {
            MemVfs crashed = vfs.crashClone(new Random(seed));
            if (crashed.exists(source) && crashed.exists(target)) {
                bothNames = crashed;
            }
        }

        assertThat(bothNames).as("some crash leaves both names").isNotNull();
        try (VfsFile file = bothNames.open(source)) {
            file.append(bytes("+shared"));
        }
        assertThat(text(bothNames.readAll(target))).isEqualTo("content+shared");
    }

    @Test
    void shouldLeaveNothingOfADurablyDeletedFileEvenIfForcedThroughAnOpenHandle() throws IOException {
        Path path = durableFile("a.log", "abc");
        try (VfsFile file = vfs.open(path)) {
            vfs.delete(path);
            vfs.syncDirectory(DIR);
            file.append(bytes("def"));
            file.force();

            // Unlinked durably: no name leads to the inode, so the crash leaves nothing.
            assertThat(vfs.crashClone().list(DIR)).isEmpty();
            byte[] content = new byte[6];
            file.readFully(0, content, 0, 6);
            assertThat(text(content)).isEqualTo("abcdef");
        }
    }
}
