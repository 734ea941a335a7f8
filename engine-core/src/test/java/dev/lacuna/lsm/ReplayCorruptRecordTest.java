package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.wal.Wal;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A log record whose payload is not a key/value batch, followed by a few thousand good records, must
 * fail the open with the CorruptionException that names it (as the sequential replay did).
 */
class ReplayCorruptRecordTest {
    @Test
    void anUndecodableRecordFailsTheOpenWithACorruptionException() {
        MemVfs vfs = new MemVfs();
        KvOptions options = KvOptions.builder().vfs(vfs).durability(Durability.SYNC).build();
        try (LsmStore kv = LsmStore.open(Path.of("/db"), options)) {
            kv.put(new byte[] {0, 0, 0, 0, 1}, new byte[] {1});
        }
        try (Wal wal = Wal.open(vfs, Path.of("/db").resolve(Recovery.WAL_DIR), options.wal())) {
            wal.append(new byte[] {(byte) 0xEE, 1, 2, 3}, Durability.NONE); // not a batch
            for (int i = 0; i < 5_000; i++) {
                byte[] good = BatchCodec.encode(new WriteBatch().put(new byte[] {0, 0, 0, 0, 2, (byte) i, (byte) (i >> 8)},
                        new byte[] {2}).ops(), 0, 0);
                wal.append(good, Durability.NONE);
            }
            wal.sync();
        }
        assertThatThrownBy(() -> LsmStore.open(Path.of("/db"), options).close())
                .isInstanceOf(CorruptionException.class);
    }
}
