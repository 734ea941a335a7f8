package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.wal.Wal;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A damaged log record (checksum good, payload not a batch) whose key the user's keyspace router refuses: the open
 * fails with the record's damage, as when each record was decoded whole before any key was routed. Found by a review
 * of 7994078, which routed each operation as it was read and failed this open with the router's exception.
 */
class ReplayErrorOrderReviewTest {
    private static volatile boolean armed;

    @Test
    void shouldReportADamagedRecordsDamageBeforeWhatItsKeysRoutingThrows() throws Exception {
        MemVfs vfs = new MemVfs();
        Path dir = Path.of("/db");
        KvOptions options = KvOptions.builder().vfs(vfs).durability(Durability.SYNC).keyspaceRouter(key -> {
            if (armed && key.length > 0 && key[0] == 'X') {
                throw new IllegalStateException("router refuses key");
            }
            return 0;
        }).build();
        try (LsmStore kv = LsmStore.open(dir, options)) {
            kv.put(new byte[] {1}, new byte[] {1});
        }
        try (Wal wal = Wal.open(vfs, dir.resolve(Recovery.WAL_DIR), options.wal())) {
            byte[] payload = BatchCodec.encode(
                    List.of(new WriteBatch.Op(WriteBatch.KIND_PUT, new byte[] {'X'}, new byte[] {2})), 0, 0);
            wal.append(Arrays.copyOf(payload, payload.length + 1), Durability.NONE); // a byte after the batch
            wal.sync();
        }
        armed = true;
        assertThatThrownBy(() -> LsmStore.open(dir, options).close()).isInstanceOf(CorruptionException.class)
                .hasMessageContaining("trailing bytes");
    }
}
