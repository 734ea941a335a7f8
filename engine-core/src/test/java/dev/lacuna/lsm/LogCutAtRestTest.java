package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The end of the last log segment cut at rest (a lost write, a file system that lost the file's tail) looks to
 * the log alone exactly like a torn tail, which recovery cuts: acknowledged records were dropped silently.
 * The manifest records how far the log was durable with every edit, and an edit at close: an open refuses a
 * log that ends before that, naming the segment. Found by the corruption-at-rest suite (engine-index).
 */
class LogCutAtRestTest {
    private static final Path DIR = Path.of("/db");
    private static final Path WAL = DIR.resolve("wal");

    @Test
    void shouldRefuseAClosedStoreWhoseLastSegmentWasCut() throws IOException {
        MemVfs vfs = new MemVfs();
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            put(kv, 0, 20);
        }
        Path last = lastSegment(vfs);
        cut(vfs, last, vfs.size(last) / 2);
        refuses(vfs, last.getFileName().toString());
    }

    @Test
    void shouldRefuseALogCutBelowWhatTheManifestLastSawDurable() throws IOException {
        MemVfs vfs = new MemVfs();
        MemVfs crashed;
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            put(kv, 0, 20);
            kv.setLogCheckpoint("reader", 5); // a manifest edit, with the log durable through LSN 20
            put(kv, 20, 5);
            crashed = vfs.crashClone();
        }
        Path last = lastSegment(crashed);
        cut(crashed, last, 60); // inside the first record
        refuses(crashed, last.getFileName().toString());
    }

    @Test
    void shouldStillCutATornTailAfterWhatTheManifestLastSawDurable() throws IOException {
        MemVfs vfs = new MemVfs();
        MemVfs crashed;
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            put(kv, 0, 20);
            kv.setLogCheckpoint("reader", 5);
            put(kv, 20, 1);
            crashed = vfs.crashClone();
        }
        // The 21st record torn as a crash tears it: its first bytes written, the zero fill after them.
        Path last = lastSegment(crashed);
        int records = recordsEnd(crashed.readAll(last));
        try (VfsFile f = crashed.open(last)) {
            f.write(records - 20, new byte[20], 0, 20);
            f.force();
        }
        try (LsmStore kv = LsmStore.open(DIR, options(crashed))) {
            for (int i = 0; i < 20; i++) {
                assertThat(kv.get(key(i))).as("key %d", i).isNotNull();
            }
            assertThat(kv.get(key(20))).as("the torn record").isNull();
        }
    }

    private static void put(LsmStore kv, int from, int n) {
        for (int i = from; i < from + n; i++) {
            byte[] value = new byte[40];
            java.util.Arrays.fill(value, (byte) 7);
            kv.put(key(i), value);
        }
    }

    private static byte[] key(int i) {
        return ("key" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static Path lastSegment(MemVfs vfs) throws IOException {
        List<String> names = new ArrayList<>();
        for (String name : vfs.list(WAL)) {
            if (name.endsWith(".wal")) {
                names.add(name);
            }
        }
        names.sort(null);
        return WAL.resolve(names.get(names.size() - 1));
    }

    /** Where a live segment's records end: the last non-zero byte, plus one. */
    private static int recordsEnd(byte[] segment) {
        int end = segment.length;
        while (end > 0 && segment[end - 1] == 0) {
            end--;
        }
        return end;
    }

    private static void cut(MemVfs vfs, Path file, long size) throws IOException {
        try (VfsFile f = vfs.open(file)) {
            f.truncate(size);
            f.force();
        }
    }

    private static void refuses(MemVfs vfs, String named) throws IOException {
        Map<String, byte[]> before = files(vfs);
        assertThatThrownBy(() -> LsmStore.open(DIR, options(vfs)).close())
                .isInstanceOf(CorruptionException.class)
                .hasMessageContaining(named);
        Map<String, byte[]> after = files(vfs);
        assertThat(after.keySet()).as("the files after the refused open").isEqualTo(before.keySet());
        before.forEach((name, bytes) -> assertThat(after.get(name)).as(name).isEqualTo(bytes));
    }

    private static Map<String, byte[]> files(MemVfs vfs) throws IOException {
        Map<String, byte[]> files = new TreeMap<>();
        for (String name : vfs.list(DIR)) {
            if (!name.equals("wal") && !name.equals("LOCK")) {
                files.put(name, vfs.readAll(DIR.resolve(name)));
            }
        }
        for (String name : vfs.list(WAL)) {
            if (!name.equals("LOCK")) {
                files.put("wal/" + name, vfs.readAll(WAL.resolve(name)));
            }
        }
        return files;
    }

    private static KvOptions options(dev.lacuna.vfs.Vfs vfs) {
        return KvOptions.builder().vfs(vfs).durability(Durability.SYNC).partitions(1).build();
    }
}
