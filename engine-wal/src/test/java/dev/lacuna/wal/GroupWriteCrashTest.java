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
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A failed group write's records, whose writers were told it failed, must not come back after a crash: the cut
 * of what the write left in the file is fsynced before anyone is told (found by the review of the grouped write:
 * without that fsync, the kernel's writeback or another thread's fsync could make the cut bytes durable).
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class GroupWriteCrashTest {
    private static final Path DIR = Path.of("/db/wal");
    private static final WalOptions OPTIONS = WalOptions.defaults().withBlockSize(128).withSegmentSize(4096)
            .withPreallocate(4096);
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void tearDown() throws InterruptedException {
        threads.shutdownNow();
        threads.awaitTermination(30, TimeUnit.SECONDS);
    }

    /**
     * A concurrent fsync leader's fsync runs after the group's bytes reached the file and before the failed group
     * is truncated away: the truncate is never fsynced, so a crash (durable content only) keeps the records whose
     * writers were told their write failed.
     */
    @Test
    void failedGroupMustNotReplayAfterAConcurrentFsyncAndACrash() throws Exception {
        MemVfs disk = new MemVfs();
        Hook hook = new Hook(disk);
        byte[] p0 = WalTest.payload(0, 200);
        byte[] p1 = WalTest.payload(1, 200);
        byte[] p2 = WalTest.payload(2, 200);
        MemVfs crashed;
        try (Wal wal = Wal.open(hook, DIR, OPTIONS)) {
            wal.append(p0, Durability.NONE); // LSN 1: written, not durable
            CountDownLatch inForce = new CountDownLatch(1);
            CountDownLatch goForce = new CountDownLatch(1);
            CountDownLatch forceDone = new CountDownLatch(1);
            hook.force.set(() -> {
                inForce.countDown();
                goForce.await();
            });
            hook.afterForce.set(forceDone::countDown);
            Future<?> syncer = threads.submit(() -> wal.awaitDurable(1)); // the fsync leader, in its force
            inForce.await();
            ReservedRecord a = wal.reserve(p1, 0, p1.length, Durability.NONE);
            ReservedRecord b = wal.reserve(p2, 0, p2.length, Durability.NONE);
            // The group's write lands whole, then reports an error (EIO after the copy); meanwhile the fsync runs.
            hook.afterWrite.set(() -> {
                goForce.countDown();
                forceDone.await();
                throw new IOException("injected: the write reported an error after its bytes reached the file");
            });
            assertThatThrownBy(() -> wal.write(a)).isInstanceOf(StorageIOException.class);
            assertThatThrownBy(() -> wal.write(b)).isInstanceOf(StorageIOException.class);
            syncer.get(30, TimeUnit.SECONDS);
            crashed = disk.crashClone(); // power loss before the next append repairs the log
        }
        assertThat(payloads(crashed)).as("records whose writers were told failed").containsExactly(p0);
    }

    /**
     * No concurrent fsync: the OS writes back the pages of the failed write but not the (unsynced) truncate that
     * was meant to cut them. crashClone(Random) keeps a prefix of the unsynced operations.
     */
    @Test
    void failedGroupMustNotReplayWhenTheTruncateIsLostInACrash() throws Exception {
        byte[] p0 = WalTest.payload(0, 200);
        byte[] p1 = WalTest.payload(1, 200);
        byte[] p2 = WalTest.payload(2, 200);
        MemVfs disk = new MemVfs();
        Hook hook = new Hook(disk);
        try (Wal wal = Wal.open(hook, DIR, OPTIONS)) {
            wal.append(p0, Durability.SYNC);
            ReservedRecord a = wal.reserve(p1, 0, p1.length, Durability.NONE);
            ReservedRecord b = wal.reserve(p2, 0, p2.length, Durability.NONE);
            hook.afterWrite.set(() -> {
                throw new IOException("injected: the write reported an error after its bytes reached the file");
            });
            assertThatThrownBy(() -> wal.write(a)).isInstanceOf(StorageIOException.class);
            assertThatThrownBy(() -> wal.write(b)).isInstanceOf(StorageIOException.class);
            int resurrected = 0;
            for (int seed = 0; seed < 64; seed++) {
                List<byte[]> got = payloads(disk.crashClone(new Random(seed)));
                if (got.size() > 1) {
                    resurrected++;
                }
            }
            assertThat(resurrected).as("crash states (of 64) replaying records told failed").isZero();
        }
    }

    /** A torn group write (FaultyVfs TORN_WRITE: half its bytes land) leaves whole records of the group behind. */
    @Test
    void tornGroupWriteMustNotReplayWhenTheTruncateIsLostInACrash() throws Exception {
        byte[][] p = new byte[4][];
        for (int i = 0; i < 4; i++) {
            p[i] = WalTest.payload(i, 200);
        }
        MemVfs disk = new MemVfs();
        dev.lacuna.vfs.FaultyVfs faulty = new dev.lacuna.vfs.FaultyVfs(disk);
        try (Wal wal = Wal.open(faulty, DIR, OPTIONS)) {
            wal.append(p[0], Durability.SYNC);
            ReservedRecord a = wal.reserve(p[1], 0, p[1].length, Durability.NONE);
            ReservedRecord b = wal.reserve(p[2], 0, p[2].length, Durability.NONE);
            ReservedRecord c = wal.reserve(p[3], 0, p[3].length, Durability.NONE);
            faulty.failOperation(1, dev.lacuna.vfs.FaultyVfs.Fault.TORN_WRITE);
            assertThatThrownBy(() -> wal.write(a)).isInstanceOf(StorageIOException.class);
            assertThatThrownBy(() -> wal.write(b)).isInstanceOf(StorageIOException.class);
            assertThatThrownBy(() -> wal.write(c)).isInstanceOf(StorageIOException.class);
            int resurrected = 0;
            for (int seed = 0; seed < 64; seed++) {
                if (payloads(disk.crashClone(new Random(seed))).size() > 1) {
                    resurrected++;
                }
            }
            assertThat(resurrected).as("crash states (of 64) replaying records told failed").isZero();
        }
    }

    private static List<byte[]> payloads(MemVfs disk) {
        try (Wal wal = Wal.open(disk, DIR, OPTIONS)) {
            return WalTest.readAll(wal, 1).stream().map(WalRecord::payload).toList();
        }
    }

    interface Action {
        void run() throws Exception;
    }

    private static final class Hook extends ForwardingVfs {
        final AtomicReference<Action> afterWrite = new AtomicReference<>();
        final AtomicReference<Action> force = new AtomicReference<>();
        final AtomicReference<Action> afterForce = new AtomicReference<>();

        Hook(Vfs inner) {
            super(inner);
        }

        private static void run(AtomicReference<Action> ref) throws IOException {
            Action a = ref.getAndSet(null);
            if (a == null) {
                return;
            }
            try {
                a.run();
            } catch (IOException e) {
                throw e;
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        }

        @Override
        protected VfsFile wrap(VfsFile f) {
            return new ForwardingVfs.File(f) {
                @Override
                public void write(ByteBuffer src, long position) throws IOException {
                    boolean record = f.name().endsWith(".wal") && position > 0 && !zeros(src);
                    super.write(src, position);
                    if (record) {
                        run(afterWrite);
                    }
                }

                @Override
                public void force() throws IOException {
                    if (f.name().endsWith(".wal")) {
                        run(force);
                    }
                    super.force();
                    if (f.name().endsWith(".wal")) {
                        run(afterForce);
                    }
                }
            };
        }

        private static boolean zeros(ByteBuffer src) {
            for (int i = 0; i < src.limit(); i++) {
                if (src.get(i) != 0) {
                    return false;
                }
            }
            return true;
        }
    }
}
