package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.storage.Durability;
import dev.lacuna.storage.LacunaException;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.FaultyVfs;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A fault at every operation of a run (an error, a full disk, a torn write), then power losses after every
 * file operation of the repair that the next append runs: each crashed disk must open, hold every record
 * acknowledged SYNC in order, number its records without a gap, and hold no record whose NONE append
 * failed (its writer was told so).
 */
class WalRepairCrashTest {
    private static final Path DIR = Path.of("/db/wal");
    private static final WalOptions OPTIONS = WalOptions.defaults().withBlockSize(128).withSegmentSize(2048).withPreallocate(512);

    /** Takes crash clones of the disk after each operation while {@link #tapping}. */
    private static final class Tap extends ForwardingVfs {
        final MemVfs disk;
        volatile boolean tapping;
        final List<MemVfs> clones = new ArrayList<>();
        int seed;

        Tap(MemVfs disk) {
            super(disk);
            this.disk = disk;
        }

        void after() {
            if (tapping) {
                clones.add(disk.crashClone());
                for (int i = 0; i < 3; i++) {
                    clones.add(disk.crashClone(new Random(seed++)));
                }
            }
        }

        @Override
        protected VfsFile wrap(VfsFile file) {
            return new File(file) {
                @Override
                public void write(ByteBuffer src, long position) throws IOException {
                    try {
                        super.write(src, position);
                    } finally {
                        after();
                    }
                }

                @Override
                public void force() throws IOException {
                    try {
                        super.force();
                    } finally {
                        after();
                    }
                }

                @Override
                public void truncate(long size) throws IOException {
                    try {
                        super.truncate(size);
                    } finally {
                        after();
                    }
                }
            };
        }

        @Override
        public VfsFile create(Path file) throws IOException {
            try {
                return super.create(file);
            } finally {
                after();
            }
        }

        @Override
        public void delete(Path file) throws IOException {
            try {
                super.delete(file);
            } finally {
                after();
            }
        }

        @Override
        public void syncDirectory(Path dir) throws IOException {
            try {
                super.syncDirectory(dir);
            } finally {
                after();
            }
        }
    }

    @Test
    void shouldOpenWithEveryAcknowledgedRecordAfterAPowerLossAnywhereInTheRepair() {
        int checked = 0;
        for (FaultyVfs.Fault fault : FaultyVfs.Fault.values()) {
            for (int n = 1; n <= 120; n++) {
                checked += run(fault, n);
            }
        }
        System.out.println("WalRepairCrashTest: crashed disks checked: " + checked);
    }

    private int run(FaultyVfs.Fault fault, int n) {
        MemVfs disk = new MemVfs();
        Tap tap = new Tap(disk);
        FaultyVfs faulty = new FaultyVfs(tap);
        List<byte[]> synced = new ArrayList<>();
        List<byte[]> failedNone = new ArrayList<>();
        List<byte[]> all = new ArrayList<>();
        Random random = new Random(n * 31L + fault.ordinal());
        Wal wal = Wal.open(faulty, DIR, OPTIONS);
        faulty.failOperation(n, fault);
        boolean failed = false;
        int i = 0;
        for (; i < 60 && !failed; i++) {
            byte[] p = WalTest.payload(fault.ordinal() * 100_000L + n * 1000L + i, 40 + random.nextInt(150));
            boolean sync = random.nextInt(3) == 0;
            all.add(p);
            try {
                wal.append(p, sync ? Durability.SYNC : Durability.NONE);
                if (sync) {
                    synced.add(p);
                }
            } catch (LacunaException e) {
                failed = true;
                if (!sync) {
                    failedNone.add(p);
                }
            }
        }
        faulty.heal();
        List<byte[]> ackedBeforeRepair = List.copyOf(synced);
        tap.tapping = true;
        byte[] after1 = WalTest.payload(-n - 1_000_000L * (fault.ordinal() + 1), 60);
        all.add(after1);
        wal.append(after1, Durability.NONE); // repairs
        byte[] after2 = WalTest.payload(-n - 2_000_000L * (fault.ordinal() + 1), 60);
        all.add(after2);
        wal.append(after2, Durability.SYNC);
        tap.tapping = false;
        wal.close();
        int checked = 0;
        for (int c = 0; c < tap.clones.size(); c++) {
            MemVfs clone = tap.clones.get(c);
            List<WalRecord> records;
            try (Wal reopened = Wal.open(clone, DIR, OPTIONS)) {
                records = WalTest.readAll(reopened, 1);
            } catch (RuntimeException e) {
                throw new AssertionError("fault " + fault + " at operation " + n + ", crash " + c + " of the repair: "
                        + "the log does not open: " + e, e);
            }
            for (int r = 0; r < records.size(); r++) {
                assertThat(records.get(r).lsn()).as("fault %s at %d, crash %d: LSN of record %d", fault, n, c, r)
                        .isEqualTo(r + 1);
            }
            List<byte[]> payloads = records.stream().map(WalRecord::payload).toList();
            assertThat(containsInOrder(payloads, ackedBeforeRepair))
                    .as("fault %s at %d, crash %d: every record acknowledged SYNC before the repair", fault, n, c).isTrue();
            for (byte[] f : failedNone) {
                assertThat(payloads.stream().noneMatch(p -> Arrays.equals(p, f)))
                        .as("fault %s at %d, crash %d: a record whose NONE append failed came back", fault, n, c).isTrue();
            }
            assertThat(containsInOrder(all, payloads))
                    .as("fault %s at %d, crash %d: records are appended ones, in order", fault, n, c).isTrue();
            checked++;
        }
        try (Wal reopened = Wal.open(disk.crashClone(), DIR, OPTIONS)) {
            List<byte[]> payloads = WalTest.readAll(reopened, 1).stream().map(WalRecord::payload).toList();
            List<byte[]> acked = new ArrayList<>(ackedBeforeRepair);
            acked.add(after2);
            assertThat(containsInOrder(payloads, acked)).as("fault %s at %d: after the repair", fault, n).isTrue();
        }
        return checked;
    }

    private static boolean containsInOrder(List<byte[]> haystack, List<byte[]> needles) {
        int j = 0;
        for (byte[] h : haystack) {
            if (j < needles.size() && Arrays.equals(h, needles.get(j))) {
                j++;
            }
        }
        return j == needles.size();
    }
}
