package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A flush drops the versions of a key that a newer one hides. If the newer one were a SYNC write whose
 * writer has not yet seen its fsync (so not visible), a reader would find neither. The writer here is
 * caught between logging its write and waiting for it ({@code writeNoWait}), as a preempted thread is.
 */
class FlushVisibilityTest {
    @Test
    void shouldNotLoseTheVisibleVersionToAFlushOfAnInvisibleNewerOne() {
        byte[] key = "k".getBytes(StandardCharsets.UTF_8);
        try (LsmStore kv = LsmStore.open(Path.of("/db"), KvOptions.builder().vfs(new MemVfs())
                .durability(Durability.SYNC).partitions(1).build())) {
            kv.put(key, new byte[] {1});
            long lsn = kv.writeNoWait(new WriteBatch().put(key, new byte[] {2}), Durability.SYNC);
            kv.flush(); // forces the log; the writer has not looked yet

            assertThat(kv.get(key)).as("the key after the flush").isNotNull();
            kv.awaitDurable(lsn, Durability.SYNC);
            assertThat(kv.get(key)).isEqualTo(new byte[] {2});
        }
    }
}
