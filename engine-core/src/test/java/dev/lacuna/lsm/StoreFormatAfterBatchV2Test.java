package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.manifest.Manifest;
import dev.lacuna.manifest.VersionEdit;
import dev.lacuna.vfs.MemVfs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Review of the streams branch: the log's batch record became version 2 (write time, flags) and the keyspace
 * descriptor version 4, but the directory format ({@link VersionSet#STORE_FORMAT}, "the formats of the manifest,
 * the log, the tables and the log records together", manifest/FORMAT.md) stayed 1. The Lacuna before the change
 * (9ef0839) therefore opens a store written after it as format 1 and fails in replay with
 * {@code CorruptionException: log record is not a key/value batch} (BatchCodec there accepts type 1 only), or
 * "unsupported descriptor version 4": a newer store reported as damaged, not refused as
 * {@code IncompatibleStoreException} ("written by a newer Lacuna") as the format contract promises.
 */
class StoreFormatAfterBatchV2Test {
    private static final Path DIR = Path.of("/db");

    @Test
    void shouldRaiseTheDirectoryFormatWhenTheLogRecordFormatChanges() {
        assertThat(BatchCodec.TYPE_KV_BATCH).isEqualTo(2);
        assertThat(VersionSet.STORE_FORMAT)
                .as("directory format of a store whose log holds batch type %d records, which format 1 readers refuse"
                        + " as corruption", BatchCodec.TYPE_KV_BATCH)
                .isGreaterThan(1);
    }

    /**
     * A format 1 store is still read, and is marked with the current format before anything is logged: what this
     * code logs there is a version 2 batch, which the older Lacuna must refuse, not misread. The open alone does
     * not mark it (FailedOpenKeepsFormatTest: an open may still fail after reading the manifest).
     */
    @Test
    void shouldReadAFormat1StoreAndMarkItWithTheCurrentFormatBeforeItsFirstWrite() throws Exception {
        MemVfs vfs = new MemVfs();
        byte[] k = "k".getBytes(StandardCharsets.UTF_8);
        byte[] v = "v".getBytes(StandardCharsets.UTF_8);
        try (LsmStore kv = LsmStore.open(DIR, KvOptions.builder().vfs(vfs).build())) {
            kv.put(k, v);
        }
        // What the older Lacuna's mark looks like: the same store, marked format 1.
        try (VersionSet set = VersionSet.open(vfs, DIR, KvOptions.builder().build().partitions(), 1 << 22, n -> { })) {
            set.startManifest();
            set.logAndApply(new VersionEdit().store(1, LsmStore.OWNER_KV), 0);
        }
        assertThat(storedFormat(vfs)).as("the store as the older Lacuna marked it").isEqualTo(1);
        try (LsmStore kv = LsmStore.open(DIR, KvOptions.builder().vfs(vfs).build())) {
            assertThat(storedFormat(vfs)).as("an open that writes nothing of format 2 keeps the mark").isEqualTo(1);
            assertThat(kv.get(k)).isEqualTo(v);
            kv.put(k, v);
            assertThat(storedFormat(vfs)).as("marked once a version 2 batch is logged").isEqualTo(VersionSet.STORE_FORMAT);
        }
        assertThat(storedFormat(vfs)).isEqualTo(VersionSet.STORE_FORMAT);
    }

    /** The directory format of the manifest's last mark (tag 14). */
    private static int storedFormat(MemVfs vfs) throws Exception {
        Integer format = null;
        for (VersionEdit e : Manifest.readCurrent(vfs, DIR).edits()) {
            if (e.storeFormat() != null) {
                format = e.storeFormat();
            }
        }
        assertThat(format).as("a directory format mark").isNotNull();
        return format;
    }
}
