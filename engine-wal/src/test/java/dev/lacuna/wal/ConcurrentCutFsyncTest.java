package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.storage.Durability;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A group-commit leader's fsync runs while a failed group write's cut fsyncs the same segment and that fsync
 * fails (it consumed the write-back error: Linux reports it once per descriptor). The leader's fsync then returns
 * 0 though the pages it was to make durable may be gone: it must not acknowledge its SYNC record before the
 * log's repair has written them again.
 */
@Timeout(60)
class ConcurrentCutFsyncTest {
    private static final Path DIR = Path.of("/db/wal");
    private static final WalOptions OPTIONS = WalOptions.defaults().withBlockSize(128).withSegmentSize(4096)
            .withPreallocate(4096);

    @Test
    void leaderMustNotAckWhenACutFsyncFailedDuringItsFsync() throws Exception {
        MemVfs disk = new MemVfs();
        CountDownLatch leaderInForce = new CountDownLatch(1);
        CountDownLatch releaseLeader = new CountDownLatch(1);
        ThreadLocal<Boolean> failWrite = ThreadLocal.withInitial(() -> false);
        Vfs vfs = new ForwardingVfs(disk) {
            volatile boolean armed;
            @Override
            protected VfsFile wrap(VfsFile f) {
                return new ForwardingVfs.File(f) {
                    @Override
                    public void write(ByteBuffer src, long position) throws IOException {
                        if (failWrite.get()) {
                            throw new IOException("injected write failure");
                        }
                        super.write(src, position);
                    }

                    @Override
                    public void force() throws IOException {
                        boolean sync = false;
                        boolean cut = false;
                        for (StackTraceElement e : new Throwable().getStackTrace()) {
                            sync |= e.getMethodName().equals("syncTo");
                            cut |= e.getMethodName().equals("truncateToWritten");
                        }
                        if (cut) {
                            throw new IOException("EIO: write-back error (consumed by this fsync)");
                        }
                        if (sync && leaderInForce.getCount() > 0 && f.name().endsWith(".wal")) {
                            leaderInForce.countDown();
                            try {
                                releaseLeader.await();
                            } catch (InterruptedException e) {
                                throw new IOException(e);
                            }
                        }
                        super.force();
                    }
                };
            }
        };
        try (Wal wal = Wal.open(vfs, DIR, OPTIONS)) {
            wal.append(new byte[] {1}, Durability.NONE);
            CompletableFuture<Long> s = CompletableFuture.supplyAsync(() -> wal.append(new byte[] {2}, Durability.SYNC));
            assertThat(leaderInForce.await(10, TimeUnit.SECONDS)).isTrue();
            ReservedRecord r = wal.reserve(new byte[] {3}, 0, 1, Durability.NONE);
            failWrite.set(true);
            assertThatThrownBy(() -> wal.write(r)).isInstanceOf(StorageIOException.class);
            failWrite.set(false);
            releaseLeader.countDown();
            long lsn;
            try {
                lsn = s.get(10, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                return; // told it failed: acceptable
            }
            assertThat(lsn).isEqualTo(2);
            // Acknowledged durable: only acceptable if the repair wrote the segment again and sealed it.
            assertThat(disk.exists(DIR.resolve(WalFormat.segmentName(2))))
                    .as("SYNC record acked by an fsync that ran while another fsync of its segment failed, with no repair")
                    .isTrue();
        }
    }
}
