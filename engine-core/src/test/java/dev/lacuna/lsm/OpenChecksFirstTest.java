package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * An open that refuses a damaged directory leaves it exactly as it found it: it checks everything (CURRENT,
 * every table the manifest names, the log) before it writes a manifest or deletes a file. Each case damages a
 * store, opens it, expects a refusal naming the file, and compares every file before and after.
 */
class OpenChecksFirstTest {
    private static final Path DIR = Path.of("/db");

    @Test
    void shouldRefuseADirectoryWithDataButNoCurrentAndDeleteNothing() throws IOException {
        MemVfs vfs = store();
        vfs.delete(DIR.resolve("CURRENT"));
        refuses(vfs, "CURRENT");
    }

    @Test
    void shouldRefuseAManifestNamingAMissingTableAndDeleteNothing() throws IOException {
        MemVfs vfs = store();
        String table = vfs.list(DIR).stream().filter(n -> n.endsWith(".sst")).findFirst().orElseThrow();
        vfs.delete(DIR.resolve(table));
        refuses(vfs, table);
    }

    @Test
    void shouldRefuseALogThatLostItsSegmentsAndDeleteNothing() throws IOException {
        MemVfs vfs = store();
        for (String segment : vfs.list(DIR.resolve("wal"))) {
            if (segment.endsWith(".wal")) {
                vfs.delete(DIR.resolve("wal").resolve(segment));
            }
        }
        refuses(vfs, "wal");
    }

    /**
     * A compaction's edit removes its inputs from the manifest and then deletes their files; a power loss can
     * take the deletions back (the directory was not synced since). Reading the manifest then adds each input
     * and removes it again, and the open must not act on that before it has checked the directory: found by
     * the corruption-at-rest suite, whose refused opens of power-loss images had deleted such tables.
     */
    @Test
    void shouldKeepTablesTheManifestRemovedWhenTheOpenIsRefused() throws IOException {
        MemVfs vfs = new MemVfs();
        java.util.Map<String, byte[]> inputs = new java.util.HashMap<>();
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            for (int i = 0; i < 90; i++) {
                kv.put(("key" + i).getBytes(StandardCharsets.UTF_8), new byte[100]);
                if (i % 30 == 29) {
                    kv.flush();
                }
            }
            for (String name : vfs.list(DIR)) {
                if (name.endsWith(".sst")) {
                    inputs.put(name, vfs.readAll(DIR.resolve(name)));
                }
            }
            kv.compactRange(null, null);
        }
        String output = null;
        for (String name : vfs.list(DIR)) {
            if (name.endsWith(".sst") && !inputs.containsKey(name)) {
                output = name;
            }
        }
        assertThat(output).as("the compaction's output").isNotNull();
        for (java.util.Map.Entry<String, byte[]> input : inputs.entrySet()) { // the deletions a power loss undid
            assertThat(vfs.exists(DIR.resolve(input.getKey()))).as(input.getKey() + " deleted").isFalse();
            try (dev.lacuna.vfs.VfsFile f = vfs.create(DIR.resolve(input.getKey()))) {
                f.write(0, input.getValue(), 0, input.getValue().length);
                f.force();
            }
        }
        vfs.delete(DIR.resolve(output)); // and a reason to refuse the open
        refuses(vfs, output);
    }

    /**
     * A manifest cut short at rest reads like one whose last append a crash tore: the edits after the cut are
     * ignored, and the state they leave needs log records the log has dropped since (or names tables a later
     * compaction deleted). The open refuses, and must name the manifest whose state does not fit the directory,
     * and say when it ended in a cut edit, the likelier culprit: found by the corruption-at-rest suite, whose
     * refusals named only the log directory or a missing table.
     */
    @Test
    void shouldNameTheManifestWhenItEndsInACutEditAndTheStateItLeavesIsRefused() throws IOException {
        MemVfs vfs = new MemVfs();
        // Small log segments, so that flushes let the log drop its first ones: the cut manifest's state needs them.
        try (LsmStore kv = LsmStore.open(DIR, options(vfs).toBuilder()
                .wal(dev.lacuna.storage.WalOptions.defaults().withBlockSize(1024).withSegmentSize(4096)).build())) {
            for (int i = 0; i < 90; i++) {
                kv.put(("key" + i).getBytes(StandardCharsets.UTF_8), new byte[100]);
                if (i % 30 == 29) {
                    kv.flush();
                }
            }
            kv.compactRange(null, null);
        }
        String manifest = null;
        for (String name : vfs.list(DIR)) {
            if (name.startsWith("MANIFEST-")) {
                manifest = name;
            }
        }
        byte[] bytes = vfs.readAll(DIR.resolve(manifest));
        int snapshotEnd = 16 + 8 + (bytes[16] & 0xFF | (bytes[17] & 0xFF) << 8);
        // Inside the first flush's edit (read as torn), or just before it (the file seems to end cleanly): that
        // edit and every later one are lost.
        for (int cut : new int[] {snapshotEnd + 30, snapshotEnd}) {
            MemVfs copy = vfs.crashClone();
            try (dev.lacuna.vfs.VfsFile f = copy.open(DIR.resolve(manifest))) {
                f.truncate(cut);
                f.force();
            }
            refuses(copy, manifest);
        }
    }

    /**
     * A log consumer's checkpoint keeps every record after it in the log. A manifest that lost its last edits
     * (cut at rest between two of them) can hold an older checkpoint than the one the log was trimmed by: the
     * records the consumer would read next are gone. The open refuses, naming the manifest, instead of opening
     * a store whose index can never catch up (found by the corruption-at-rest suite: GSIs FAILED with "LSN 675
     * is outside the log" after such opens).
     */
    @Test
    void shouldRefuseALogThatNoLongerHoldsWhatAConsumerCheckpointNeeds() throws IOException {
        MemVfs vfs = new MemVfs();
        int beforeCheckpoint;
        try (LsmStore kv = LsmStore.open(DIR, options(vfs).toBuilder()
                .wal(dev.lacuna.storage.WalOptions.defaults().withBlockSize(1024).withSegmentSize(4096)).build())) {
            kv.setLogCheckpoint("reader", 5);
            for (int i = 0; i < 60; i++) {
                kv.put(("key" + i).getBytes(StandardCharsets.UTF_8), new byte[100]);
            }
            kv.flush(); // the log keeps what the reader needs: from LSN 6 on
            beforeCheckpoint = vfs.readAll(DIR.resolve(manifest(vfs))).length;
            kv.setLogCheckpoint("reader", 60);
            kv.put("last".getBytes(StandardCharsets.UTF_8), new byte[100]);
            kv.flush(); // now the log drops its first segments
        }
        String manifest = manifest(vfs);
        try (dev.lacuna.vfs.VfsFile f = vfs.open(DIR.resolve(manifest))) {
            f.truncate(beforeCheckpoint); // the reader's checkpoint is 5 again, its next records gone
            f.force();
        }
        refuses(vfs, manifest);
    }

    private static String manifest(MemVfs vfs) throws IOException {
        for (String name : vfs.list(DIR)) {
            if (name.startsWith("MANIFEST-")) {
                return name;
            }
        }
        throw new AssertionError("no manifest");
    }

    /**
     * An edit that passes its checksum but does not fit the state before it (here: it removes a table that
     * is not there) is refused naming the manifest and the edit's offset, not {@code CURRENT} at offset 0 as
     * it was (found by the corruption-at-rest suite, through a file system that skipped a damaged edit).
     */
    @Test
    void shouldNameTheManifestAndOffsetOfAnEditThatDoesNotFit() throws IOException {
        MemVfs vfs = new MemVfs();
        vfs.mkdirs(DIR);
        dev.lacuna.manifest.Manifest.create(vfs, DIR, 99, new dev.lacuna.manifest.VersionEdit().treeCount(1)
                .nextFileNumber(100), new dev.lacuna.manifest.VersionEdit().deleteFile(0, 0, 12345)).close();
        byte[] manifest = vfs.readAll(DIR.resolve("MANIFEST-000099"));
        int second = 16 + 8 + (manifest[16] & 0xFF | (manifest[17] & 0xFF) << 8);
        refuses(vfs, "MANIFEST-000099");
        assertThatThrownBy(() -> LsmStore.open(DIR, options(vfs)).close())
                .hasMessageContaining("manifest removes file 12345").hasMessageContaining("offset " + second + ")");
    }

    @Test
    void shouldLeaveAnUnsealedLogAsFoundWhenTheOpenIsRefused() throws IOException {
        MemVfs vfs = new MemVfs();
        MemVfs crashed;
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            for (int i = 0; i < 10; i++) {
                kv.put(("key" + i).getBytes(StandardCharsets.UTF_8), new byte[10]);
            }
            crashed = vfs.crashClone(); // while open: the last segment has a tail recovery would cut and seal
        }
        crashed.delete(DIR.resolve("CURRENT")); // no tables, but log records: not a new store
        refuses(crashed, "CURRENT");
    }

    @Test
    void shouldOpenAStoreWhoseFirstOpenFailedBeforeItsCurrentWasWritten() {
        MemVfs mem = new MemVfs();
        ControlledVfs vfs = new ControlledVfs(mem, "none");
        vfs.failCreates("CURRENT"); // the first open makes its log and manifest, then cannot name it
        assertThatThrownBy(() -> LsmStore.open(DIR, options(vfs)).close()).isInstanceOf(RuntimeException.class);
        vfs.failCreates(null);
        try (LsmStore kv = LsmStore.open(DIR, KvOptions.builder().vfs(mem.crashClone()).durability(Durability.SYNC)
                .partitions(1).build())) {
            kv.put("k".getBytes(StandardCharsets.UTF_8), new byte[] {1});
            assertThat(kv.get("k".getBytes(StandardCharsets.UTF_8))).isEqualTo(new byte[] {1});
        }
    }

    /** A store with tables, a manifest and a log. */
    private static MemVfs store() {
        MemVfs vfs = new MemVfs();
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            for (int i = 0; i < 100; i++) {
                kv.put(("key" + i).getBytes(StandardCharsets.UTF_8), new byte[100]);
                if (i % 40 == 39) {
                    kv.flush();
                }
            }
        }
        return vfs;
    }

    private static void refuses(MemVfs vfs, String named) throws IOException {
        TreeMap<String, Long> before = files(vfs);
        assertThatThrownBy(() -> LsmStore.open(DIR, options(vfs)).close()).isInstanceOf(CorruptionException.class)
                .hasMessageContaining(named);
        assertThat(files(vfs)).as("the files after the refused open").isEqualTo(before);
    }

    /** Every file of the store (the lock files aside) with its size. */
    private static TreeMap<String, Long> files(MemVfs vfs) throws IOException {
        TreeMap<String, Long> out = new TreeMap<>();
        for (String name : vfs.list(DIR)) {
            if (name.equals("wal")) {
                for (String segment : vfs.list(DIR.resolve("wal"))) {
                    if (!segment.equals("LOCK")) {
                        out.put("wal/" + segment, vfs.size(DIR.resolve("wal").resolve(segment)));
                    }
                }
            } else if (!name.equals("LOCK")) {
                out.put(name, vfs.size(DIR.resolve(name)));
            }
        }
        return out;
    }

    private static KvOptions options(dev.lacuna.vfs.Vfs vfs) {
        return KvOptions.builder().vfs(vfs).durability(Durability.SYNC).partitions(1).build();
    }
}
