package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.storage.Durability;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Another writer's failed write lands while a SYNC writer, whose own write and fsync never failed, is about
 * to lead the group commit: the class comment says only "the caller whose append or fsync failed is told
 * so", and syncTo's comment says "a failure since the check above: recovery must run first". The SYNC writer
 * should get its record durable (the next append's repair makes it so anyway), not an error.
 */
class WalLeaderRefusedTest {
    private static final Path DIR = Path.of("/db/wal");

    @Test
    void shouldNotFailASyncWriterForAnotherWritersFailedWrite() throws Exception {
        MemVfs disk = new MemVfs();
        CountDownLatch inWrite = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        boolean[] armed = {false};
        ForwardingVfs vfs = new ForwardingVfs(disk) {
            @Override
            protected VfsFile wrap(VfsFile file) {
                return new File(file) {
                    @Override
                    public void write(ByteBuffer src, long position) throws IOException {
                        if (armed[0] && Thread.currentThread().getName().equals("none-writer")) {
                            armed[0] = false;
                            inWrite.countDown();
                            try {
                                release.await();
                            } catch (InterruptedException e) {
                                throw new IOException(e);
                            }
                            throw new IOException("injected: No space left on device");
                        }
                        super.write(src, position);
                    }
                };
            }
        };
        try (Wal wal = Wal.open(vfs, DIR, WalOptions.defaults())) {
            long lsn = wal.appendNoWait(new byte[] {1}, 0, 1, Durability.SYNC); // pending, not yet written
            armed[0] = true;
            Thread none = new Thread(() -> {
                try {
                    wal.append(new byte[] {2}, Durability.NONE);
                } catch (RuntimeException expected) {
                    // its own write failed: it is told so
                }
            }, "none-writer");
            none.start();
            assertThat(inWrite.await(10, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<Throwable> sync = new CompletableFuture<>();
            Thread syncer = new Thread(() -> {
                try {
                    wal.awaitDurable(lsn); // becomes leader, then waits for the write lock the NONE writer holds
                    sync.complete(null);
                } catch (Throwable t) {
                    sync.complete(t);
                }
            }, "sync-writer");
            syncer.start();
            // The only syncer takes the leader's role at once and parks on the write lock: wait until it does.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (syncer.getState() != Thread.State.WAITING && !sync.isDone() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(syncer.getState()).as("the syncer waits for the write lock").isEqualTo(Thread.State.WAITING);
            release.countDown();
            none.join();
            Throwable error = sync.get(10, TimeUnit.SECONDS);
            assertThat(error).as("the SYNC writer, whose write and fsync never failed").isNull();
            assertThat(wal.durableLsn()).isGreaterThanOrEqualTo(lsn);
        }
    }
}
