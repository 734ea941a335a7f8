package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.storage.Durability;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.FaultyVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A log checkpoint whose manifest write fails must not move the checkpoint the log's retention uses: the
 * durable one is still the old, and a flush that then trims the log must keep every record after it, or a
 * restart leaves the consumer (an index, a stream) nothing to resume from.
 */
class CheckpointWriteFailureTest {
    private static final Path DIR = Path.of("/db");

    @Test
    void aFailedCheckpointWriteKeepsTheLogTheDurableCheckpointNeeds() throws Exception {
        MemVfs mem = new MemVfs();
        FaultyVfs faulty = new FaultyVfs(mem);
        try (LsmStore kv = LsmStore.open(DIR, options(faulty))) {
            kv.setLogCheckpoint("consumer", 1);
            for (int i = 0; i < 400; i++) {
                kv.put(b("key" + i), new byte[64]); // many small log segments
            }
            long last = kv.lastSequence();
            faulty.failNth(FaultyVfs.Op.WRITE, 1); // the checkpoint's manifest append (nothing else writes now)
            assertThatThrownBy(() -> kv.setLogCheckpoint("consumer", last)).isInstanceOf(StorageIOException.class);
            assertThat(faulty.injectedCount()).isEqualTo(1);
            assertThat(kv.logCheckpoints().get("consumer")).isEqualTo(1);

            kv.flush(); // transient error: the store goes on; the flush's edit is durable and it trims the log
            try (KvLogReader log = kv.logReader(2)) {
                assertThat(log.next()).as("the record after the durable checkpoint, live").isNotNull();
            }
            try (LsmStore recovered = LsmStore.open(DIR, options(mem.crashClone()))) {
                assertThat(recovered.logCheckpoints().get("consumer")).isEqualTo(1);
                try (KvLogReader log = recovered.logReader(2)) {
                    assertThat(log.next()).as("the record after the durable checkpoint, after a power loss")
                            .isNotNull();
                }
            }
            kv.setLogCheckpoint("consumer", last); // healed: it moves now
            assertThat(kv.logCheckpoints().get("consumer")).isEqualTo(last);
        }
    }

    private static KvOptions options(Vfs vfs) {
        return KvOptions.builder().vfs(vfs).durability(Durability.SYNC).partitions(1)
                .wal(WalOptions.defaults().withBlockSize(1024).withSegmentSize(4096).withPreallocate(0)).build();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
