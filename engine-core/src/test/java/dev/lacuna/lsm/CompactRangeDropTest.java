package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvStoreTest.DIR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KeyspaceRouter;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * compactRange works through a copy of the live trees; a keyspace dropped meanwhile claims its trees' compaction
 * slots for good, so compactRange must skip them rather than wait for the slot forever.
 */
class CompactRangeDropTest {
    @Test
    void compactRangeRacingADropEnds() throws Exception {
        ControlledVfs vfs = new ControlledVfs(new MemVfs(), ".sst");
        try (LsmStore kv = LsmStore.open(DIR, KvStoreTest.small(new MemVfs(), 1).toBuilder().vfs(vfs)
                .keyspaceRouter(KeyspaceRouter.FIRST_FOUR_BYTES).durability(Durability.NONE).build())) {
            int id = kv.createKeyspace(1, new byte[] {1}).id();
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 50; i++) {
                    kv.put(KvKeyspaceTest.key(0, "k" + i), KvKeyspaceTest.bytes("v" + round + i));
                }
                kv.flush(); // two overlapping level-0 tables: compactRange rewrites them; keyspace id is empty
            }
            vfs.hold(); // the compaction's output table waits in its fsync
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread compactor = new Thread(() -> {
                try {
                    kv.compactRange(null, null);
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "compactRange");
            compactor.start();
            assertThat(vfs.awaitHeld(30_000_000_000L)).isTrue(); // compactRange is in partition 0, with its copy of the trees (keyspace id's included)
            kv.dropKeyspaces(List.of(id), List.of()); // claims the dropped tree's compaction slot for good
            vfs.release();
            compactor.join(20_000);
            System.out.println("compactRange still running 20 s after the drop: " + compactor.isAlive()
                    + (compactor.isAlive() ? " at " + compactor.getStackTrace()[3] : ""));
            assertThat(compactor.isAlive()).as("compactRange hangs on the dropped keyspace's tree").isFalse();
            assertThat(failure.get()).isNull();
        }
    }
}
