package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.FaultyVfs;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Review of 56951dd: the other ways a roll can meet a group-commit leader whose fsync fails and drops its pages
 * (RollAfterFailedFsyncTest covers rollIfNotEmpty): a size roll in appendNoWait, and close(). Neither may publish
 * the dropped record durable, and the crash image must open. Expected to pass (checks that the fix holds).
 */
class WalRollRacesFailedFsyncTest {
    enum Racer { SIZE_ROLL, CLOSE }

    @Test
    void sizeRollShouldNotSealOverAFailingLeader() throws Exception {
        run(Racer.SIZE_ROLL);
    }

    @Test
    void closeShouldNotSealOverAFailingLeader() throws Exception {
        run(Racer.CLOSE);
    }

    private void run(Racer racer) throws Exception {
        MemVfs mem = new MemVfs();
        FaultyVfs faulty = new FaultyVfs(mem);
        faulty.failedForceDropsWrites(true);
        AtomicBoolean armed = new AtomicBoolean();
        CountDownLatch dropped = new CountDownLatch(1);
        CountDownLatch raced = new CountDownLatch(1);
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
                                dropped.countDown(); // pages dropped; the leader has not reported yet
                                try {
                                    raced.await(2, TimeUnit.SECONDS); // a roll that waits for us times this out
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
        Wal wal = Wal.open(hook, WalTest.DIR, WalTest.SMALL);
        for (int i = 0; i < 3; i++) {
            wal.append(WalTest.payload(i, 30), Durability.SYNC);
        }
        armed.set(true);
        faulty.failNth(FaultyVfs.Op.FORCE, 1);
        AtomicReference<Throwable> writeFailure = new AtomicReference<>();
        AtomicLong lsn = new AtomicLong();
        Thread writer = new Thread(() -> {
            try {
                long l = wal.appendNoWait(WalTest.payload(99, 30), 0, 30, Durability.SYNC);
                lsn.set(l);
                wal.awaitDurable(l);
            } catch (Throwable t) {
                writeFailure.set(t);
            }
        });
        writer.start();
        assertThat(dropped.await(10, TimeUnit.SECONDS)).isTrue();
        Object outcome;
        try {
            if (racer == Racer.SIZE_ROLL) {
                outcome = wal.append(WalTest.payload(7, 900), Durability.NONE); // does not fit: rolls first
            } else {
                wal.close();
                outcome = "closed";
            }
        } catch (RuntimeException e) {
            outcome = e;
        }
        raced.countDown();
        long durable = wal.durableLsn();
        writer.join(10_000);
        System.out.println(racer + ": " + outcome + "; record " + lsn.get() + "; durableLsn " + durable
                + "; writer: " + writeFailure.get());
        assertThat(writeFailure.get()).as("the writer whose fsync failed is told so").isNotNull();
        MemVfs image = mem.crashClone();
        List<WalRecord> records;
        try (Wal again = Wal.open(image, WalTest.DIR, WalTest.SMALL)) {
            records = WalTest.readAll(again, 1);
        }
        if (durable >= lsn.get()) {
            assertThat(records).as("the log called LSN %d durable", lsn.get()).anyMatch(r -> r.lsn() == lsn.get());
        }
        assertThat(records).hasSizeGreaterThanOrEqualTo(3);
        if (racer == Racer.SIZE_ROLL) {
            long next = wal.append(WalTest.payload(8, 30), Durability.SYNC); // the log recovers and goes on
            assertThat(next).isGreaterThan(lsn.get());
        }
        try {
            wal.close();
        } catch (RuntimeException e) {
            System.out.println("close: " + e);
        }
    }
}
