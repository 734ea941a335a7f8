package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The batched-durability syncer's fsync failing with something other than a LacunaException (an UncheckedIOException
 * from the Vfs, an Error, a hook's refused close) must not end batched syncing: it ended the syncer's thread for
 * good, and as its field still named that thread no syncer was started again, so later batched records were never
 * made durable by their deadline (found by the session's durability review).
 */
class BatchedSyncerSurvivesUncheckedFsyncFailureTest {
    private static final Path DIR = WalTest.DIR;

    @Test
    void shouldStillSyncBatchedRecordsAfterAnUncheckedFailureInTheSyncer() throws Exception {
        MemVfs mem = new MemVfs();
        AtomicBoolean armed = new AtomicBoolean(true);
        ForwardingVfs vfs = new ForwardingVfs(mem) {
            @Override
            protected VfsFile wrap(VfsFile file) {
                return new ForwardingVfs.File(file) {
                    @Override
                    public void force() throws IOException {
                        if (Thread.currentThread().getName().startsWith("lacuna-wal-sync")
                                && armed.compareAndSet(true, false)) {
                            throw new UncheckedIOException(new IOException("injected, unchecked"));
                        }
                        super.force();
                    }
                };
            }
        };
        Durability batched = Durability.batched(Duration.ofMillis(1));
        try (Wal wal = Wal.open(vfs, DIR, WalTest.SMALL)) {
            wal.append(WalTest.payload(1, 10), batched);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (armed.get() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(armed.get()).as("the syncer reached its fsync").isFalse();
            long b = -1;
            for (int i = 0; i < 1000 && b < 0; i++) { // the log may refuse appends until it recovered
                try {
                    b = wal.append(WalTest.payload(2, 10), batched);
                } catch (RuntimeException e) {
                    // the failed log refuses this append and recovers for the next
                }
            }
            assertThat(b).isPositive();
            deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (wal.durableLsn() < b && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(wal.durableLsn()).as("a batched record after the syncer's failure is made durable")
                    .isGreaterThanOrEqualTo(b);
        }
    }
}
