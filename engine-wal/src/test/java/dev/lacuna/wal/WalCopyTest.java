package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link Wal#sync()} and {@link Wal#copyTo} (what a checkpoint of the store copies) against a power loss:
 * what they return having made durable must survive {@link MemVfs#crashClone()}. (PIT: neither was covered
 * by engine-wal's own tests, so removing the fsync of {@code sync()}, or the forces and the directory sync of
 * {@code copyTo}, went unnoticed in a per-module run.) Also what a roll of an empty segment may claim durable.
 */
class WalCopyTest {
    private static final Path DIR = Path.of("/db/wal");

    private static List<byte[]> appendNone(Wal wal, int from, int count) {
        List<byte[]> out = new ArrayList<>();
        for (int i = from; i < from + count; i++) {
            byte[] p = WalTest.payload(i, 60);
            wal.append(p, Durability.NONE);
            out.add(p);
        }
        return out;
    }

    @Test
    void shouldMakeEveryRecordAppendedDurableOnSync() {
        MemVfs vfs = new MemVfs();
        List<byte[]> appended;
        MemVfs afterPowerLoss;
        try (Wal wal = Wal.open(vfs, DIR, WalTest.SMALL)) {
            appended = appendNone(wal, 0, 5); // within one segment: no roll makes them durable
            wal.sync();
            assertThat(wal.durableLsn()).isEqualTo(5);
            afterPowerLoss = vfs.crashClone();
        }
        try (Wal reopened = Wal.open(afterPowerLoss, DIR, WalTest.SMALL)) {
            assertThat(WalTest.readAll(reopened, 1)).extracting(WalRecord::payload).containsExactlyElementsOf(appended);
        }
    }

    @Test
    void shouldCopyTheLogFromTheSegmentHoldingTheLsnDurably() throws IOException {
        MemVfs vfs = new MemVfs();
        Path whole = Path.of("/db/copy-whole");
        Path tail = Path.of("/db/copy-tail");
        vfs.mkdirs(whole);
        vfs.mkdirs(tail);
        List<byte[]> appended;
        MemVfs afterPowerLoss;
        try (Wal wal = Wal.open(vfs, DIR, WalTest.SMALL)) {
            appended = appendNone(wal, 0, 40); // several segments, the last one unsealed
            wal.sync();
            assertThat(wal.stats().segmentsCreated()).isGreaterThan(3);
            assertThat(wal.copyTo(whole, 1)).isEqualTo(40);
            assertThat(wal.copyTo(tail, 30)).isEqualTo(40);
            afterPowerLoss = vfs.crashClone();
        }
        try (Wal copy = Wal.open(afterPowerLoss, whole, WalTest.SMALL)) {
            assertThat(copy.firstLsn()).isEqualTo(1);
            assertThat(WalTest.readAll(copy, 1)).extracting(WalRecord::payload).containsExactlyElementsOf(appended);
        }
        try (Wal copy = Wal.open(afterPowerLoss, tail, WalTest.SMALL)) {
            long first = copy.firstLsn();
            assertThat(first).as("the copy starts at the segment holding LSN 30").isBetween(2L, 30L);
            assertThat(WalTest.readAll(copy, first)).extracting(WalRecord::payload)
                    .containsExactlyElementsOf(appended.subList((int) first - 1, 40));
        }
    }

    /**
     * The first record of a new log is larger than a segment: the append rolls the empty segment first. That
     * roll fsyncs no record, so it must not raise the durable LSN; the record is acknowledged only after its
     * own fsync, and survives a power loss. (PIT: with a new segment's last LSN set past its first, the roll
     * reported the coming record durable, and the {@code SYNC} append returned without an fsync.)
     */
    @Test
    void shouldNotCountARollOfAnEmptySegmentAsMakingTheNextRecordDurable() {
        MemVfs vfs = new MemVfs();
        byte[] large = WalTest.payload(7, 5_000); // larger than SMALL's 1,024-byte segments
        MemVfs afterPowerLoss;
        try (Wal wal = Wal.open(vfs, DIR, WalTest.SMALL)) {
            assertThat(wal.durableLsn()).isZero();
            assertThat(wal.append(large, Durability.SYNC)).isEqualTo(1);
            assertThat(wal.durableLsn()).isEqualTo(1);
            afterPowerLoss = vfs.crashClone();
        }
        try (Wal reopened = Wal.open(afterPowerLoss, DIR, WalTest.SMALL)) {
            assertThat(WalTest.readAll(reopened, 1)).extracting(WalRecord::payload).containsExactly(large);
        }
    }
}
