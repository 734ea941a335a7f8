package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import dev.lacuna.wal.Wal;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * An open that fails on a log record whose payload does not decode (its checksum good) leaves the store's files as it
 * found them: no new manifest, no {@code CURRENT} pointing at one, no table deleted, the log not
 * followed by a new segment. The record was found to be damaged only after the open had repaired the log, started a
 * new manifest and deleted the tables the old one did not name (seen failing: [000999.sst, CURRENT, LOCK,
 * MANIFEST-000001] became [CURRENT, LOCK, MANIFEST-000002]); the decoding is now waited for in the log's coverage
 * check, before any of them.
 */
class ReplayDamageWritesNothingTest {
    private static final Path DIR = Path.of("/db");

    /** Every file of the store, its log's included, with its bytes. */
    private static Map<String, String> storeFiles(MemVfs vfs) throws Exception {
        Map<String, String> files = new TreeMap<>();
        for (String name : vfs.list(DIR)) {
            if (name.equals(Recovery.WAL_DIR)) {
                for (String segment : vfs.list(DIR.resolve(name))) {
                    Path path = DIR.resolve(name).resolve(segment);
                    files.put(name + "/" + segment, Arrays.toString(vfs.readAll(path)));
                }
            } else {
                files.put(name, Arrays.toString(vfs.readAll(DIR.resolve(name))));
            }
        }
        return files;
    }

    @Test
    void shouldLeaveTheManifestAndTablesAsFoundWhenARecordDoesNotDecode() throws Exception {
        MemVfs vfs = new MemVfs();
        KvOptions options = KvOptions.builder().vfs(vfs).durability(Durability.SYNC).build();
        try (LsmStore kv = LsmStore.open(DIR, options)) {
            kv.put(new byte[] {1}, new byte[] {1});
        }
        try (Wal wal = Wal.open(vfs, DIR.resolve(Recovery.WAL_DIR), options.wal())) {
            byte[] payload = BatchCodec.encode(
                    List.of(new WriteBatch.Op(WriteBatch.KIND_PUT, new byte[] {2}, new byte[] {2})), 0, 0);
            wal.append(Arrays.copyOf(payload, payload.length + 1), Durability.SYNC); // a byte after the batch
        }
        // A table no manifest names: what a flush cut short leaves, deleted by an open that goes on.
        try (VfsFile orphan = vfs.create(DIR.resolve("000999.sst"))) {
            orphan.write(ByteBuffer.wrap(new byte[] {7, 7, 7}), 0);
            orphan.force();
        }
        Map<String, String> before = storeFiles(vfs);

        assertThatThrownBy(() -> LsmStore.open(DIR, options).close()).isInstanceOf(CorruptionException.class)
                .hasMessageContaining("trailing bytes");

        assertThat(storeFiles(vfs).keySet()).as("the store's files after the failed open")
                .isEqualTo(before.keySet());
        assertThat(storeFiles(vfs)).as("their bytes").isEqualTo(before);
    }
}
