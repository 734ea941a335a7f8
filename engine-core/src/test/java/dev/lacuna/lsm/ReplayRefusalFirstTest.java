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
 * A log the owner refuses takes precedence over a record that does
 * not decode (Recovery.LogFeed). The coverage callback now also waits for the decoding; nothing pinned that
 * logCovers runs first (found by a review: swapping the two in the callback failed no test; this one fails then).
 */
class ReplayRefusalFirstTest {
    @Test
    void shouldReportTheRefusedLogBeforeARecordThatDoesNotDecode() {
        MemVfs vfs = new MemVfs();
        Path dir = Path.of("/db");
        KvOptions options = KvOptions.builder().vfs(vfs).durability(Durability.SYNC).build();
        try (Wal wal = Wal.open(vfs, dir.resolve(Recovery.WAL_DIR), options.wal())) { // no CURRENT: a "new" store
            byte[] payload = BatchCodec.encode(
                    List.of(new WriteBatch.Op(WriteBatch.KIND_PUT, new byte[] {2}, new byte[] {2})), 0, 0);
            wal.append(Arrays.copyOf(payload, payload.length + 1), Durability.SYNC); // a byte after the batch
        }
        assertThatThrownBy(() -> LsmStore.open(dir, options).close()).isInstanceOf(CorruptionException.class)
                .hasMessageContaining("no CURRENT");
    }
}
