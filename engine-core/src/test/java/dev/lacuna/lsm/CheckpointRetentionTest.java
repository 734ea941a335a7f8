package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.storage.Durability;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Moving a log consumer's checkpoint lets the log be trimmed past the old checkpoint only once the manifest
 * holds the new one: a flush that trims the log while the move is on its way to the manifest must keep
 * every record the durable checkpoint still needs, or a crash then leaves the consumer nothing to resume
 * from (an index would fail).
 */
class CheckpointRetentionTest {
    private static final Path DIR = Path.of("/db");

    @Test
    void shouldKeepTheLogTheDurableCheckpointNeedsWhileTheCheckpointMoves() throws Exception {
        MemVfs mem = new MemVfs();
        ControlledVfs vfs = new ControlledVfs(mem, "MANIFEST-");
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            kv.setLogCheckpoint("consumer", 1);
            for (int i = 0; i < 400; i++) {
                kv.put(b("key" + i), new byte[64]); // many small log segments
            }
            vfs.hold();
            CompletableFuture<Void> flush = CompletableFuture.runAsync(kv::flush);
            vfs.awaitHeld(1); // the flush's manifest edit waits for its fsync
            long last = kv.lastSequence();
            Thread[] mover = new Thread[1];
            CompletableFuture<Void> move = CompletableFuture.runAsync(() -> {
                mover[0] = Thread.currentThread();
                kv.setLogCheckpoint("consumer", last);
            });
            awaitBlocked(mover);
            vfs.releaseOne(); // the flush's edit is durable; it trims the log
            flush.get(30, TimeUnit.SECONDS);
            vfs.awaitHeld(2); // the checkpoint's edit waits for its fsync
            MemVfs crashed = mem.crashClone();
            vfs.release();
            move.get(30, TimeUnit.SECONDS);

            try (LsmStore recovered = LsmStore.open(DIR, options(crashed))) {
                assertThat(recovered.logCheckpoints().get("consumer")).isEqualTo(1);
                try (KvLogReader log = recovered.logReader(2)) {
                    assertThat(log.next()).as("the record after the durable checkpoint").isNotNull();
                }
            }
        }
    }

    /** Spins (no sleeping) until the thread waits for a monitor or lock. */
    private static void awaitBlocked(Thread[] thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (thread[0] == null || (thread[0].getState() != Thread.State.BLOCKED
                && thread[0].getState() != Thread.State.WAITING)) {
            assertThat(System.nanoTime()).as("the checkpoint move never waited").isLessThan(deadline);
            Thread.onSpinWait();
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
