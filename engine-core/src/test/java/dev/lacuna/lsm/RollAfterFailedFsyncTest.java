package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvStoreTest.DIR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.FaultyVfs;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import dev.lacuna.wal.Wal;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * flush() with nothing to write seals the log's segment (rollIfNotEmpty) while a writer's group-commit leader
 * fsyncs the same segment outside the write lock. If the leader's fsync fails and drops the unsynced pages
 * (fsyncgate), the seal's own fsync then succeeds and the roll marked the dropped records durable (found by an
 * adversarial review: the writer was told "cannot fsync", yet durableLsn covered its record and the crash image
 * refused to open with "zero fill inside a sealed segment"). The seal now waits for the leader's fsync and refuses
 * to seal over a failed one.
 */
class RollAfterFailedFsyncTest {
    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldNotSealOverALeadersFailedFsync() throws Exception {
        MemVfs mem = new MemVfs();
        FaultyVfs faulty = new FaultyVfs(mem);
        faulty.failedForceDropsWrites(true);
        AtomicBoolean armed = new AtomicBoolean();
        CountDownLatch dropped = new CountDownLatch(1);
        CountDownLatch rolled = new CountDownLatch(1);
        ForwardingVfs hook = new ForwardingVfs(faulty) {
            @Override
            protected VfsFile wrap(VfsFile file) {
                return new ForwardingVfs.File(file) {
                    @Override
                    public void force() throws IOException {
                        try {
                            super.force();
                        } catch (IOException e) {
                            if (armed.compareAndSet(true, false)) {
                                dropped.countDown(); // pages dropped; fail() not yet called
                                try {
                                    rolled.await(2, TimeUnit.SECONDS); // the fixed roll waits for this fsync instead
                                } catch (InterruptedException ie) {
                                    Thread.currentThread().interrupt();
                                }
                            }
                            throw e;
                        }
                    }
                };
            }
        };
        long lsn;
        Throwable reopenFailure = null;
        Wal wal;
        try (LsmStore kv = LsmStore.open(DIR, KvStoreTest.small(mem, 1).toBuilder().vfs(hook)
                .durability(Durability.NONE).build())) {
            kv.put(b("a"), b("1"));
            kv.flush();
            java.lang.reflect.Field f = LsmStore.class.getDeclaredField("db");
            f.setAccessible(true);
            Db db = (Db) f.get(kv);
            wal = db.wal;
            armed.set(true);
            faulty.failNth(FaultyVfs.Op.FORCE, 1);
            AtomicReference<Throwable> writeFailure = new AtomicReference<>();
            Thread writer = new Thread(() -> {
                try {
                    kv.write(new WriteBatch().put(b("k1"), b("v1")), Durability.SYNC);
                } catch (Throwable t) {
                    writeFailure.set(t);
                }
            });
            writer.start();
            assertThat(dropped.await(10, TimeUnit.SECONDS)).isTrue();
            lsn = wal.lastLsn();
            // What flush() does when it has nothing to write (a concurrent write landing after its switch loop).
            Object r;
            try {
                r = wal.rollIfNotEmpty();
            } catch (RuntimeException e) {
                r = e; // refusing to seal over the failed fsync is right; the next append recovers the log
            }
            rolled.countDown();
            long durableAfterRoll = wal.durableLsn();
            writer.join(10_000);
            assertThat(writeFailure.get()).as("the writer whose fsync failed is told so").isNotNull();
            System.out.println("roll: " + r + "; record lsn " + lsn + "; durableLsn after the roll "
                    + durableAfterRoll);
            MemVfs image = mem.crashClone();
            byte[] got = null;
            try (LsmStore again = LsmStore.open(DIR, KvStoreTest.small(image, 1).toBuilder().vfs(image)
                    .durability(Durability.NONE).build())) {
                got = again.get(b("k1"));
            } catch (Throwable t) {
                reopenFailure = t;
            }
            assertThat(reopenFailure).as("the crash image opens").isNull();
            if (durableAfterRoll >= lsn) {
                assertThat(got).as("the log called k1's record durable: the crash image holds it").isEqualTo(b("v1"));
            }
            kv.put(b("k2"), b("v2")); // the log recovers and goes on
        }
        try (LsmStore again = LsmStore.open(DIR, KvStoreTest.small(mem, 1).toBuilder().vfs(mem)
                .durability(Durability.NONE).build())) {
            assertThat(again.get(b("k2"))).isEqualTo(b("v2"));
        }
    }
}
