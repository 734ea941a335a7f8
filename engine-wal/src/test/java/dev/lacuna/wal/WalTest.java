package dev.lacuna.wal;

import dev.lacuna.storage.RecoveryMode;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.storage.WalStats;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.DatabaseClosedException;
import dev.lacuna.storage.Durability;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.NioVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WalTest {
    static final Path DIR = Path.of("/db/wal");
    static final WalOptions SMALL = WalOptions.defaults().withBlockSize(128).withSegmentSize(1024).withPreallocate(512);

    static byte[] payload(long seed, int length) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    static List<WalRecord> readAll(Wal wal, long from) {
        List<WalRecord> out = new ArrayList<>();
        try (WalReader reader = wal.reader(from)) {
            for (WalRecord r = reader.next(); r != null; r = reader.next()) {
                out.add(r);
            }
        }
        return out;
    }

    @Test
    void shouldNumberRecordsFromOneAndReadThemBack() {
        MemVfs vfs = new MemVfs();
        try (Wal wal = Wal.open(vfs, DIR, SMALL)) {
            for (int i = 0; i < 50; i++) {
                assertThat(wal.append(payload(i, i * 7), Durability.NONE)).isEqualTo(i + 1);
            }
            List<WalRecord> records = readAll(wal, 1);
            assertThat(records).hasSize(50);
            for (int i = 0; i < 50; i++) {
                assertThat(records.get(i).lsn()).isEqualTo(i + 1);
                assertThat(records.get(i).payload()).isEqualTo(payload(i, i * 7));
            }
        }
    }

    @Test
    void shouldFrameRecordsOfEverySizeAcrossBlocksAndSegments() {
        MemVfs vfs = new MemVfs();
        int n = 0;
        try (Wal wal = Wal.open(vfs, DIR, SMALL)) {
            for (int size = 0; size <= 3 * 128 + 20; size++) {
                wal.append(payload(size, size), Durability.NONE);
                n++;
            }
            wal.append(payload(-1, 5000), Durability.SYNC); // larger than a segment: one of its own
            n++;
            assertThat(wal.stats().segmentsCreated()).isGreaterThan(10);
        }
        try (Wal wal = Wal.open(vfs, DIR, SMALL)) {
            List<WalRecord> records = readAll(wal, 1);
            assertThat(records).hasSize(n);
            for (int size = 0; size <= 3 * 128 + 20; size++) {
                assertThat(records.get(size).payload()).isEqualTo(payload(size, size));
            }
            assertThat(records.get(n - 1).payload()).isEqualTo(payload(-1, 5000));
            assertThat(wal.append(new byte[1], Durability.SYNC)).isEqualTo(n + 1);
        }
    }

    @Test
    void shouldContinueNumberingAfterReopen() {
        MemVfs vfs = new MemVfs();
        try (Wal wal = Wal.open(vfs, DIR, SMALL)) {
            wal.append(payload(1, 10), Durability.SYNC);
            wal.append(payload(2, 10), Durability.SYNC);
        }
        try (Wal wal = Wal.open(vfs, DIR, SMALL)) {
            assertThat(wal.lastLsn()).isEqualTo(2);
            assertThat(wal.durableLsn()).isEqualTo(2);
            assertThat(wal.append(payload(3, 10), Durability.SYNC)).isEqualTo(3);
            assertThat(readAll(wal, 2)).extracting(WalRecord::lsn).containsExactly(2L, 3L);
        }
    }

    @Test
    void shouldWorkOnTheRealFileSystem(@TempDir Path tmp) {
        Path dir = tmp.resolve("wal");
        try (Wal wal = Wal.open(new NioVfs(), dir, SMALL)) {
            for (int i = 0; i < 100; i++) {
                wal.append(payload(i, 50), Durability.SYNC);
            }
        }
        try (Wal wal = Wal.open(new NioVfs(), dir, SMALL)) {
            assertThat(readAll(wal, 1)).hasSize(100);
            assertThat(wal.droppedTailBytes()).isZero();
        }
    }

    @Test
    void shouldRefuseASecondOpenOfTheSameDirectory(@TempDir Path tmp) {
        try (Wal wal = Wal.open(new NioVfs(), tmp, SMALL)) {
            assertThatThrownBy(() -> Wal.open(new NioVfs(), tmp, SMALL))
                    .isInstanceOf(StorageIOException.class)
                    .hasMessageContaining("LOCK");
        }
    }

    @Test
    void shouldShareFsyncsAmongConcurrentSyncWriters() throws Exception {
        MemVfs vfs = new MemVfs();
        try (Wal wal = Wal.open(vfs, DIR, WalOptions.defaults())) {
            Thread[] threads = new Thread[8];
            for (int t = 0; t < threads.length; t++) {
                threads[t] = new Thread(() -> {
                    for (int i = 0; i < 200; i++) {
                        wal.append(new byte[100], Durability.SYNC);
                    }
                });
                threads[t].start();
            }
            for (Thread t : threads) {
                t.join();
            }
            WalStats stats = wal.stats();
            assertThat(stats.appends()).isEqualTo(1600);
            assertThat(stats.syncedRecords()).isEqualTo(1600);
            assertThat(wal.durableLsn()).isEqualTo(1600);
            assertThat(stats.fsyncs()).isLessThanOrEqualTo(1600);
        }
    }

    @Test
    void shouldMakeBatchedRecordsDurableWithinTheInterval() {
        MemVfs vfs = new MemVfs();
        try (Wal wal = Wal.open(vfs, DIR, SMALL)) {
            long lsn = wal.append(payload(1, 10), Durability.batched(Duration.ofMillis(5)));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (wal.durableLsn() < lsn && System.nanoTime() < deadline) {
                Thread.onSpinWait(); // a condition wait on the durable LSN, bounded by the deadline
            }
            assertThat(wal.durableLsn()).isEqualTo(lsn);
            MemVfs crashed = vfs.crashClone();
            try (Wal recovered = Wal.open(crashed, DIR, SMALL)) {
                assertThat(recovered.lastLsn()).isEqualTo(lsn);
            }
        }
    }

    @Test
    void shouldLoseUnsyncedRecordsOnPowerLossButKeepSyncedOnes() {
        MemVfs vfs = new MemVfs();
        try (Wal wal = Wal.open(vfs, DIR, SMALL)) {
            wal.append(payload(1, 30), Durability.SYNC);
            wal.append(payload(2, 30), Durability.NONE);
            try (Wal recovered = Wal.open(vfs.crashClone(), DIR, SMALL)) {
                assertThat(readAll(recovered, 1)).extracting(WalRecord::lsn).containsExactly(1L);
            }
        }
    }

    @Test
    void shouldCutADamagedSealAndReportItsSize() throws IOException {
        MemVfs vfs = new MemVfs();
        try (Wal wal = Wal.open(vfs, DIR, SMALL)) {
            wal.append(payload(1, 30), Durability.SYNC);
            wal.append(payload(2, 30), Durability.SYNC);
        }
        Path last = lastSegment(vfs);
        flipByte(vfs, last, vfs.size(last) - 3); // in the seal, the last fragment: nothing written follows it
        try (Wal wal = Wal.open(vfs, DIR, SMALL)) {
            assertThat(wal.droppedTailBytes()).isGreaterThan(0);
            assertThat(readAll(wal, 1)).extracting(WalRecord::lsn).containsExactly(1L, 2L);
            assertThat(wal.append(payload(3, 30), Durability.SYNC)).isEqualTo(3);
        }
    }

    @Test
    void shouldRejectATornTailInAbsoluteMode() throws IOException {
        MemVfs vfs = new MemVfs();
        try (Wal wal = Wal.open(vfs, DIR, SMALL)) {
            wal.append(payload(1, 30), Durability.SYNC);
        }
        Path last = lastSegment(vfs);
        long offset = vfs.size(last) - 3;
        flipByte(vfs, last, offset);
        assertThatThrownBy(() -> Wal.open(vfs, DIR, SMALL.withRecoveryMode(RecoveryMode.ABSOLUTE)))
                .isInstanceOfSatisfying(CorruptionException.class, e -> {
                    assertThat(e.file()).isEqualTo(last.toString());
                    assertThat(e.offset()).isBetween(0L, offset);
                });
    }

    @Test
    void shouldReportDamageInAnEarlierSegmentWithFileAndOffset() throws IOException {
        MemVfs vfs = new MemVfs();
        try (Wal wal = Wal.open(vfs, DIR, SMALL)) {
            for (int i = 0; i < 40; i++) {
                wal.append(payload(i, 60), Durability.NONE);
            }
        }
        Path first = DIR.resolve(WalFormat.segmentName(1));
        flipByte(vfs, first, 200);
        assertThatThrownBy(() -> Wal.open(vfs, DIR, SMALL))
                .isInstanceOfSatisfying(CorruptionException.class, e -> {
                    assertThat(e.file()).isEqualTo(first.toString());
                    assertThat(e.offset()).isBetween(128L, 200L);
                    assertThat(e.getMessage()).contains(first.toString()).contains("offset");
                });
    }

    @Test
    void shouldReportAMissingSegment() throws IOException {
        MemVfs vfs = new MemVfs();
        try (Wal wal = Wal.open(vfs, DIR, SMALL)) {
            for (int i = 0; i < 40; i++) {
                wal.append(payload(i, 60), Durability.NONE);
            }
        }
        vfs.delete(DIR.resolve(WalFormat.segmentName(2)));
        assertThatThrownBy(() -> Wal.open(vfs, DIR, SMALL))
                .isInstanceOf(CorruptionException.class)
                .hasMessageContaining("segment 2 is missing");
    }

    @Test
    void shouldDeleteOnlySegmentsBelowEveryCheckpoint() {
        MemVfs vfs = new MemVfs();
        try (Wal wal = Wal.open(vfs, DIR, SMALL)) {
            for (int i = 0; i < 100; i++) {
                wal.append(payload(i, 60), Durability.NONE);
            }
            wal.setCheckpoint("index-a", 30);
            wal.setCheckpoint("stream-b", 70);
            wal.deleteObsoleteSegments(100);
            long first = wal.firstLsn();
            assertThat(first).isLessThanOrEqualTo(31).isGreaterThan(1);
            assertThat(readAll(wal, first)).first().extracting(WalRecord::lsn).isEqualTo(first);
            assertThatThrownBy(() -> wal.reader(first - 1)).isInstanceOf(IllegalArgumentException.class);

            wal.removeCheckpoint("index-a");
            wal.deleteObsoleteSegments(50);
            assertThat(wal.firstLsn()).isLessThanOrEqualTo(51).isGreaterThan(first);
            assertThat(wal.stats().segmentsDeleted()).isGreaterThan(0);
        }
        try (Wal wal = Wal.open(vfs, DIR, SMALL)) {
            assertThat(readAll(wal, wal.firstLsn())).last().extracting(WalRecord::lsn).isEqualTo(100L);
        }
    }

    @Test
    void shouldRefuseUseAfterClose() {
        Wal wal = Wal.open(new MemVfs(), DIR, SMALL);
        wal.close();
        wal.close();
        assertThatThrownBy(() -> wal.append(new byte[1], Durability.NONE)).isInstanceOf(DatabaseClosedException.class);
        assertThatThrownBy(() -> wal.reader(1)).isInstanceOf(DatabaseClosedException.class);
    }

    @Test
    void shouldWakeAWaitingReaderAndTimeOutWhenNothingComes() throws Exception {
        MemVfs vfs = new MemVfs();
        try (Wal wal = Wal.open(vfs, DIR, SMALL); WalReader reader = wal.reader(1)) {
            assertThat(reader.next(Duration.ofMillis(1))).isNull();
            Thread writer = new Thread(() -> wal.append(payload(9, 9), Durability.SYNC));
            writer.start();
            WalRecord record = reader.next(Duration.ofSeconds(30));
            writer.join();
            assertThat(record).isNotNull();
            assertThat(record.payload()).isEqualTo(payload(9, 9));
        }
    }

    static Path lastSegment(MemVfs vfs) throws IOException {
        List<String> names = vfs.list(DIR);
        String last = null;
        for (String name : names) {
            if (WalFormat.parseSegmentName(name) >= 0) {
                // the newest segment is empty (opened fresh); the data sits in the one before it
                last = name;
            }
        }
        List<String> segments = names.stream().filter(n -> WalFormat.parseSegmentName(n) >= 0).toList();
        return DIR.resolve(segments.size() > 1 ? segments.get(segments.size() - 2) : last);
    }

    static void flipByte(MemVfs vfs, Path file, long offset) throws IOException {
        try (VfsFile f = vfs.open(file)) {
            byte[] b = new byte[1];
            f.readFully(offset, b, 0, 1);
            b[0] ^= 0x5A;
            f.write(offset, b, 0, 1);
            f.force();
        }
    }
}
