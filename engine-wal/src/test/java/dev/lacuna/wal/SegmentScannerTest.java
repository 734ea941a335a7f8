package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.Durability;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link SegmentScanner}: one segment read on its own, each record with where it lies, damage named. */
class SegmentScannerTest {
    private static final Path DIR = Path.of("/db/wal");
    /** Small blocks, so that records span blocks and block ends are padded. */
    private static final WalOptions OPTIONS = WalOptions.defaults().withBlockSize(128).withSegmentSize(1 << 20)
            .withPreallocate(512);

    private static List<SegmentScanner.Record> scan(SegmentScanner s) throws Exception {
        List<SegmentScanner.Record> out = new ArrayList<>();
        for (SegmentScanner.Record r = s.next(); r != null; r = s.next()) {
            out.add(r);
        }
        return out;
    }

    @Test
    void shouldGiveEachRecordsOffsetsAndLsnAndEndAtTheSeal() throws Exception {
        MemVfs vfs = new MemVfs();
        List<byte[]> payloads = new ArrayList<>();
        try (Wal wal = Wal.open(vfs, DIR, OPTIONS)) {
            for (int i = 0; i < 12; i++) {
                byte[] p = WalTest.payload(i, 20 + i * 17); // up to 207 bytes: some span blocks
                payloads.add(p);
                wal.append(p, Durability.NONE);
            }
        }
        Path segment = DIR.resolve(WalFormat.segmentName(1));
        try (VfsFile file = vfs.openReadOnly(segment)) {
            SegmentScanner s = SegmentScanner.open(file, segment);
            assertThat(s.segment()).isEqualTo(1);
            assertThat(s.firstLsn()).isEqualTo(1);
            assertThat(s.blockSize()).isEqualTo(128);

            List<SegmentScanner.Record> records = scan(s);

            assertThat(records).hasSize(12);
            assertThat(records.get(0).offset()).isEqualTo(WalFormat.HEADER_SIZE);
            for (int i = 0; i < records.size(); i++) {
                SegmentScanner.Record r = records.get(i);
                assertThat(r.lsn()).isEqualTo(i + 1);
                assertThat(r.payload()).isEqualTo(payloads.get(i));
                assertThat(r.offset() % 128).as("a record never starts in a block's padding")
                        .isLessThanOrEqualTo(128 - WalFormat.FRAGMENT_HEADER_SIZE);
                if (i > 0) {
                    assertThat(r.offset()).isGreaterThanOrEqualTo(records.get(i - 1).end());
                }
                // The record's first fragment header is where the offset says: its type starts a record.
                ByteBuffer type = ByteBuffer.allocate(1);
                file.read(type, r.offset() + WalFormat.FRAGMENT_TYPE_OFFSET);
                assertThat(type.get(0)).isIn(WalFormat.FULL, WalFormat.FIRST);
            }
            assertThat(s.end()).isEqualTo(SegmentScanner.End.SEALED);
            assertThat(s.sealEnd()).isEqualTo(file.size());
        }
    }

    @Test
    void shouldTakeTheHeadersNumberForAFileNotNamedAsASegment() throws Exception {
        MemVfs vfs = new MemVfs();
        try (Wal wal = Wal.open(vfs, DIR, OPTIONS)) {
            wal.append(new byte[] {1, 2, 3}, Durability.NONE);
        }
        Path copy = Path.of("/db/copy.bin");
        vfs.rename(DIR.resolve(WalFormat.segmentName(1)), copy);
        try (VfsFile file = vfs.openReadOnly(copy)) {
            SegmentScanner s = SegmentScanner.open(file, copy);
            assertThat(s.segment()).isEqualTo(1);
            assertThat(scan(s)).singleElement().extracting(SegmentScanner.Record::lsn).isEqualTo(1L);
        }
    }

    @Test
    void shouldNameTheOffsetOfDamageAndOfAShortFile() throws Exception {
        MemVfs vfs = new MemVfs();
        try (Wal wal = Wal.open(vfs, DIR, OPTIONS)) {
            wal.append(new byte[] {1, 2, 3}, Durability.NONE);
            wal.append(new byte[] {4, 5, 6}, Durability.NONE);
        }
        Path segment = DIR.resolve(WalFormat.segmentName(1));
        long second;
        try (VfsFile file = vfs.openReadOnly(segment)) {
            SegmentScanner s = SegmentScanner.open(file, segment);
            s.next();
            second = s.next().offset();
        }
        try (VfsFile file = vfs.open(segment)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            file.read(b, second + 20);
            b.put(0, (byte) (b.get(0) ^ 1)).rewind();
            file.write(b, second + 20);
        }
        try (VfsFile file = vfs.openReadOnly(segment)) {
            SegmentScanner s = SegmentScanner.open(file, segment);
            assertThat(s.next().lsn()).isEqualTo(1);
            assertThatThrownBy(s::next).isInstanceOfSatisfying(CorruptionException.class,
                    e -> assertThat(e.offset()).isEqualTo(second)).hasMessageContaining("checksum mismatch");
        }

        Path tiny = Path.of("/db/tiny.wal");
        try (VfsFile file = vfs.create(tiny)) {
            file.write(ByteBuffer.wrap(new byte[10]), 0);
        }
        try (VfsFile file = vfs.openReadOnly(tiny)) {
            assertThatThrownBy(() -> SegmentScanner.open(file, tiny)).isInstanceOf(CorruptionException.class)
                    .hasMessageContaining("shorter than a segment header");
        }
    }
}
