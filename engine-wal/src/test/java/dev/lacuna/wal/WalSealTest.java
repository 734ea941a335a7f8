package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.Durability;
import dev.lacuna.storage.RecoveryMode;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The seal that ends every closed segment (format version 2), and logs written before it (version 1). */
class WalSealTest {
    private static final Path DIR = WalTest.DIR;
    private static final WalOptions OPTIONS = WalTest.SMALL;
    private static final Path SEGMENT_1 = DIR.resolve(WalFormat.segmentName(1));
    private static final Path SEGMENT_2 = DIR.resolve(WalFormat.segmentName(2));

    /** A closed log of two segments: segment 1 holds {@code records} records, segment 2 none. */
    private static MemVfs closedLog(int records) {
        MemVfs vfs = new MemVfs();
        try (Wal wal = Wal.open(vfs, DIR, OPTIONS)) {
            for (int i = 0; i < records; i++) {
                wal.append(WalTest.payload(i, 30), Durability.SYNC);
            }
        }
        try (Wal wal = Wal.open(vfs, DIR, OPTIONS)) {
            assertThat(wal.lastLsn()).isEqualTo(records); // reopened and closed again: segment 2 exists
        }
        return vfs;
    }

    @Test
    void shouldEndEveryClosedSegmentWithASeal() throws IOException {
        MemVfs vfs = closedLog(3);
        for (Path segment : new Path[] {SEGMENT_1, SEGMENT_2}) {
            byte[] bytes = vfs.readAll(segment);
            int seal = bytes.length - WalFormat.FRAGMENT_HEADER_SIZE;
            assertThat(bytes[seal + WalFormat.FRAGMENT_TYPE_OFFSET]).isEqualTo(WalFormat.SEAL);
            assertThat(WalFormat.getInt(bytes, WalFormat.VERSION_OFFSET)).isEqualTo(WalFormat.VERSION);
        }
    }

    @Test
    void shouldSealTheSegmentThatRecoveryCut() throws IOException {
        MemVfs vfs = new MemVfs();
        MemVfs crashed;
        try (Wal wal = Wal.open(vfs, DIR, OPTIONS)) {
            wal.append(WalTest.payload(1, 30), Durability.SYNC);
            crashed = vfs.crashClone(); // segment 1 live: zero fill, no seal
        }
        try (Wal wal = Wal.open(crashed, DIR, OPTIONS)) {
            assertThat(wal.lastLsn()).isEqualTo(1);
        }
        byte[] bytes = crashed.readAll(SEGMENT_1);
        assertThat(bytes[bytes.length - WalFormat.FRAGMENT_HEADER_SIZE + WalFormat.FRAGMENT_TYPE_OFFSET])
                .isEqualTo(WalFormat.SEAL);
    }

    @Test
    void shouldRefuseAnEarlierSegmentThatLostItsSeal() throws IOException {
        MemVfs vfs = closedLog(3);
        long sealAt = vfs.size(SEGMENT_1) - WalFormat.FRAGMENT_HEADER_SIZE;
        try (VfsFile f = vfs.open(SEGMENT_1)) {
            f.truncate(sealAt);
            f.force();
        }
        assertThatThrownBy(() -> Wal.open(vfs, DIR, OPTIONS))
                .isInstanceOfSatisfying(CorruptionException.class, e -> {
                    assertThat(e.file()).isEqualTo(SEGMENT_1.toString());
                    assertThat(e.offset()).isEqualTo(sealAt);
                    assertThat(e.getMessage()).contains("without its seal");
                });
    }

    @Test
    void shouldRefuseDataAfterTheSealOfAnEarlierSegment() throws IOException {
        MemVfs vfs = closedLog(3);
        long end = vfs.size(SEGMENT_1);
        try (VfsFile f = vfs.open(SEGMENT_1)) {
            f.write(end, new byte[] {0, 0, 0}, 0, 3);
            f.force();
        }
        assertThatThrownBy(() -> Wal.open(vfs, DIR, OPTIONS))
                .isInstanceOfSatisfying(CorruptionException.class, e -> {
                    assertThat(e.file()).isEqualTo(SEGMENT_1.toString());
                    assertThat(e.offset()).isEqualTo(end);
                });
    }

    @Test
    void shouldReadAndContinueAVersion1Log() throws IOException {
        MemVfs vfs = closedLog(3);
        // Version 1 closed a segment by cutting it after its last record: no seal.
        for (Path segment : new Path[] {SEGMENT_1, SEGMENT_2}) {
            downgradeToVersion1(vfs, segment);
        }
        try (Wal wal = Wal.open(vfs, DIR, OPTIONS.withRecoveryMode(RecoveryMode.ABSOLUTE))) {
            assertThat(WalTest.readAll(wal, 1)).extracting(WalRecord::lsn).containsExactly(1L, 2L, 3L);
            assertThat(wal.append(new byte[5], Durability.SYNC)).isEqualTo(4);
        }
        try (Wal wal = Wal.open(vfs, DIR, OPTIONS.withRecoveryMode(RecoveryMode.ABSOLUTE))) {
            assertThat(WalTest.readAll(wal, 1)).hasSize(4);
            assertThat(vfs.readAll(SEGMENT_2)).hasSize(WalFormat.HEADER_SIZE); // a version 1 segment stays one
        }
    }

    private static void downgradeToVersion1(MemVfs vfs, Path segment) throws IOException {
        byte[] bytes = vfs.readAll(segment);
        int sealAt = bytes.length - WalFormat.FRAGMENT_HEADER_SIZE;
        WalFormat.putInt(bytes, WalFormat.VERSION_OFFSET, 1);
        WalFormat.putInt(bytes, WalFormat.HEADER_CRC_OFFSET, WalFormat.crc(bytes, 0, WalFormat.HEADER_CRC_OFFSET));
        try (VfsFile f = vfs.open(segment)) {
            f.truncate(sealAt);
            f.write(0, bytes, 0, WalFormat.HEADER_SIZE);
            f.force();
        }
    }

    @Test
    void shouldRefuseASegmentHeaderWhoseReservedFieldIsNotZero() throws IOException {
        MemVfs vfs = closedLog(2);
        byte[] header = new byte[WalFormat.HEADER_SIZE];
        try (VfsFile f = vfs.open(SEGMENT_1)) {
            f.readFully(0, header, 0, header.length);
            // a field a newer writer might use, with a checksum that matches: only the field itself is wrong
            WalFormat.putInt(header, WalFormat.RESERVED_OFFSET, 7);
            WalFormat.putInt(header, WalFormat.HEADER_CRC_OFFSET, WalFormat.crc(header, 0, WalFormat.HEADER_CRC_OFFSET));
            f.write(java.nio.ByteBuffer.wrap(header), 0);
        }
        assertThatThrownBy(() -> Wal.open(vfs, DIR, OPTIONS)).isInstanceOf(CorruptionException.class)
                .hasMessageContaining(SEGMENT_1.getFileName().toString()).hasMessageContaining("reserved");
    }
}
