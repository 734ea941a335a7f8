package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.FaultyVfs;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Found by the review of 56951dd: a group-commit leader whose fsync fails with anything but an IOException (here an
 * UncheckedIOException from a Vfs; the same holds for an Error) ends its fsync as failed on the segment
 * (forceEnded(false)), which stops a seal, but the log is not failed: the next leader's fsync succeeds (fsyncgate:
 * the pages the failed fsync dropped are clean) and publishes durable the records the failed one lost, and every
 * record after them is then cut with them at recovery.
 */
class WalUncheckedFsyncFailureTest {
    private static final Path DIR = WalTest.DIR;

    @Test
    void shouldNotCallDurableWhatAFailedFsyncDropped() {
        MemVfs mem = new MemVfs();
        FaultyVfs faulty = new FaultyVfs(mem);
        faulty.failedForceDropsWrites(true);
        ForwardingVfs vfs = new ForwardingVfs(faulty) {
            @Override
            protected VfsFile wrap(VfsFile file) {
                return new ForwardingVfs.File(file) {
                    @Override
                    public void force() throws IOException {
                        try {
                            super.force();
                        } catch (IOException e) {
                            throw new UncheckedIOException(e); // a Vfs outside the contract, or an Error
                        }
                    }
                };
            }
        };
        long a;
        long b;
        Wal wal = Wal.open(vfs, DIR, WalTest.SMALL);
        try {
            a = wal.appendNoWait(WalTest.payload(1, 40), 0, 40, Durability.SYNC);
            faulty.failNth(FaultyVfs.Op.FORCE, 1);
            Throwable aFailure = null;
            try {
                wal.awaitDurable(a);
            } catch (Throwable t) {
                aFailure = t;
            }
            assertThat(aFailure).as("writer A is told its fsync failed").isNotNull();
            b = wal.append(WalTest.payload(2, 40), Durability.SYNC); // acknowledged
            System.out.println("A lsn " + a + " failed with " + aFailure + "; B lsn " + b + " acknowledged; durableLsn "
                    + wal.durableLsn());
            MemVfs image = mem.crashClone();
            List<WalRecord> recovered;
            try (Wal again = Wal.open(image, DIR, WalTest.SMALL)) {
                recovered = WalTest.readAll(again, 1);
            }
            assertThat(recovered).as("acknowledged record B (LSN %d) survives the crash", b)
                    .anyMatch(r -> r.lsn() == b);
        } finally {
            try {
                wal.close();
            } catch (RuntimeException e) {
                System.out.println("close: " + e); // the seal refuses the segment of the failed fsync
            }
        }
    }
}
