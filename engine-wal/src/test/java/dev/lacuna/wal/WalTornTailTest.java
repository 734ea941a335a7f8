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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Recovery of the last segment tells a torn tail (a bad region with nothing valid after it: a crash cut an
 * unsynced write short) from damage in the middle (valid records follow the bad bytes, so they were
 * written, and possibly fsynced, after them). The first is cut off; the second is refused with the file and
 * the offset of the damage, and no file is changed.
 */
class WalTornTailTest {
    private static final Path DIR = WalTest.DIR;
    private static final WalOptions OPTIONS = WalTest.SMALL; // 128-byte blocks, 512 bytes preallocated
    private static final Path SEGMENT_1 = DIR.resolve(WalFormat.segmentName(1));
    private static final int RECORDS = 6;
    private static final int PAYLOAD = 30; // 49-byte records: some of them span a block boundary

    /** Offset of record {@code index} (0-based) in a segment holding only {@link #PAYLOAD}-byte records. */
    private static long recordStart(int index) {
        long pos = WalFormat.HEADER_SIZE;
        for (int i = 0; i < index; i++) {
            pos = WalFormat.encodedEnd(pos, WalFormat.LSN_SIZE + PAYLOAD, OPTIONS.blockSize());
        }
        return pos;
    }

    /** Offset of the fragment that holds the end of record {@code index}. */
    private static long lastFragment(int index) {
        long pos = recordStart(index);
        long fragment = pos;
        for (long remaining = WalFormat.LSN_SIZE + PAYLOAD; remaining > 0; ) {
            int blockLeft = (int) (OPTIONS.blockSize() - pos % OPTIONS.blockSize());
            if (blockLeft < WalFormat.FRAGMENT_HEADER_SIZE) {
                pos += blockLeft; // block padding
                continue;
            }
            fragment = pos;
            long n = Math.min(remaining, blockLeft - WalFormat.FRAGMENT_HEADER_SIZE);
            pos += WalFormat.FRAGMENT_HEADER_SIZE + n;
            remaining -= n;
        }
        return fragment;
    }

    /**
     * A power loss while the log was open: {@link #RECORDS} synced records in segment 1, which is still the
     * live segment (zero fill after them, no seal).
     */
    private static MemVfs crashedLiveLog() {
        MemVfs vfs = new MemVfs();
        try (Wal wal = Wal.open(vfs, DIR, OPTIONS)) {
            for (int i = 0; i < RECORDS; i++) {
                wal.append(WalTest.payload(i, PAYLOAD), Durability.SYNC);
            }
            return vfs.crashClone();
        }
    }

    @Test
    void shouldRefuseABitFlipInTheMiddleOfTheLiveSegmentAndChangeNothing() throws IOException {
        MemVfs vfs = crashedLiveLog();
        WalTest.flipByte(vfs, SEGMENT_1, recordStart(1) + 14); // in record 2's data; records 3 to 6 follow
        assertRefusedUnchanged(vfs, recordStart(1));
    }

    @Test
    void shouldRefuseAZeroedFragmentHeaderInTheMiddleOfTheLiveSegment() throws IOException {
        MemVfs vfs = crashedLiveLog();
        // Zeros where record 2's header should be look like the end of the records (zero fill) to a reader;
        // the records after them show that they are not.
        write(vfs, SEGMENT_1, recordStart(1), new byte[WalFormat.FRAGMENT_HEADER_SIZE]);
        assertRefusedUnchanged(vfs, recordStart(1));
    }

    @Test
    void shouldRefuseABitFlipInTheLastRecordOfACleanlyClosedLog() throws IOException {
        MemVfs vfs = new MemVfs();
        try (Wal wal = Wal.open(vfs, DIR, OPTIONS)) {
            for (int i = 0; i < RECORDS; i++) {
                wal.append(WalTest.payload(i, PAYLOAD), Durability.SYNC);
            }
        }
        // The log was closed: every record was fsynced, the last one included.
        WalTest.flipByte(vfs, SEGMENT_1, recordStart(RECORDS) - 2);
        assertThatThrownBy(() -> Wal.open(vfs, DIR, OPTIONS))
                .isInstanceOfSatisfying(CorruptionException.class, e -> {
                    assertThat(e.file()).isEqualTo(SEGMENT_1.toString());
                    assertThat(e.offset()).isBetween(recordStart(RECORDS - 1), recordStart(RECORDS) - 2);
                });
    }

    @Test
    void shouldRefuseABitFlipInTheLastRecordOfTheLiveSegment() throws IOException {
        MemVfs vfs = crashedLiveLog();
        // Nothing follows the last record but zero fill; a torn write does not flip bits, though.
        long at = recordStart(RECORDS) - 5;
        write(vfs, SEGMENT_1, at, new byte[] {(byte) (vfs.readAll(SEGMENT_1)[(int) at] ^ 0x04)});
        assertRefusedUnchanged(vfs, lastFragment(RECORDS - 1));
    }

    @Test
    void shouldCutABytesWorthOfDamageToTheLastFragmentOfTheLiveSegment() throws IOException {
        // The known limit: damage of more than one bit there, with nothing after it, is what a torn write
        // might have left, and the last record is cut (FORMAT.md, "Limits of the rule").
        MemVfs vfs = crashedLiveLog();
        WalTest.flipByte(vfs, SEGMENT_1, recordStart(RECORDS) - 5); // four bits
        try (Wal wal = Wal.open(vfs, DIR, OPTIONS)) {
            assertThat(WalTest.readAll(wal, 1)).hasSize(RECORDS - 1);
        }
    }

    @Test
    void shouldCutAClearedLastBitAsATornTail() throws IOException {
        // The last record ends in the byte 0x01. Clearing that bit leaves what a crash that cut the write
        // just before that byte would leave: recovery cannot tell the two apart and cuts the record.
        MemVfs vfs = new MemVfs();
        MemVfs crashed;
        byte[] last = WalTest.payload(9, PAYLOAD);
        last[PAYLOAD - 1] = 1;
        try (Wal wal = Wal.open(vfs, DIR, OPTIONS)) {
            for (int i = 0; i < RECORDS - 1; i++) {
                wal.append(WalTest.payload(i, PAYLOAD), Durability.SYNC);
            }
            wal.append(last, Durability.SYNC);
            crashed = vfs.crashClone();
        }
        write(crashed, SEGMENT_1, recordStart(RECORDS) - 1, new byte[] {0});
        try (Wal wal = Wal.open(crashed, DIR, OPTIONS)) {
            assertThat(WalTest.readAll(wal, 1)).hasSize(RECORDS - 1);
        }
        // Set a bit instead, and it is damage: a cut leaves zeros, it does not set bits.
        MemVfs again = new MemVfs();
        try (Wal wal = Wal.open(again, DIR, OPTIONS)) {
            for (int i = 0; i < RECORDS - 1; i++) {
                wal.append(WalTest.payload(i, PAYLOAD), Durability.SYNC);
            }
            wal.append(last, Durability.SYNC);
            crashed = again.crashClone();
        }
        write(crashed, SEGMENT_1, recordStart(RECORDS) - 1, new byte[] {3});
        assertRefusedUnchanged(crashed, lastFragment(RECORDS - 1));
    }

    @Test
    void shouldCutAGenuineTornTail() throws IOException {
        MemVfs vfs = new MemVfs();
        MemVfs crashed;
        try (Wal wal = Wal.open(vfs, DIR, OPTIONS)) {
            for (int i = 0; i < RECORDS; i++) {
                wal.append(WalTest.payload(i, PAYLOAD), Durability.SYNC);
            }
            wal.append(WalTest.payload(99, 200), Durability.NONE); // written to the OS, never synced
            crashed = vfs.crashClone();
            // The power loss tore that write: the first 150 of its bytes reached the disk.
            byte[] current = vfs.readAll(SEGMENT_1);
            long from = recordStart(RECORDS);
            write(crashed, SEGMENT_1, from, Arrays.copyOfRange(current, (int) from, (int) from + 150));
        }
        try (Wal wal = Wal.open(crashed, DIR, OPTIONS)) {
            assertThat(wal.droppedTailBytes()).isPositive();
            assertThat(WalTest.readAll(wal, 1)).hasSize(RECORDS);
            assertThat(wal.append(new byte[3], Durability.SYNC)).isEqualTo(RECORDS + 1);
        }
        try (Wal wal = Wal.open(crashed, DIR, OPTIONS.withRecoveryMode(RecoveryMode.ABSOLUTE))) {
            assertThat(WalTest.readAll(wal, 1)).hasSize(RECORDS + 1); // recovery left a clean log
        }
    }

    /**
     * Tears the unsynced writes at every byte, as a power loss may, with and without zero fill after them:
     * each tear must recover as a torn tail (never refused as damage), keeping every synced record. The
     * unsynced payloads end in bytes with a single bit set, the case a flipped bit could be mistaken for.
     */
    @Test
    void shouldTakeATearAtAnyByteForATornTail() throws IOException {
        byte[][] unsynced = {{1}, {5, 0, 0, 0x40}, WalTest.payload(3, 150), {(byte) 0x80, 0}, {0, 0, 2}};
        int tears = 0;
        for (WalOptions options : new WalOptions[] {OPTIONS, OPTIONS.withPreallocate(0)}) {
            MemVfs vfs = new MemVfs();
            MemVfs synced;
            byte[] current;
            try (Wal wal = Wal.open(vfs, DIR, options)) {
                for (int i = 0; i < RECORDS; i++) {
                    wal.append(WalTest.payload(i, PAYLOAD), Durability.SYNC);
                }
                for (byte[] p : unsynced) {
                    wal.append(p, Durability.NONE); // one write each, handed to the OS, never synced
                }
                synced = vfs.crashClone();
                current = vfs.readAll(SEGMENT_1);
            }
            long from = recordStart(RECORDS);
            for (int cut = (int) from; cut <= current.length; cut++) {
                MemVfs torn = copy(synced);
                write(torn, SEGMENT_1, from, Arrays.copyOfRange(current, (int) from, cut));
                try (Wal wal = Wal.open(torn, DIR, options)) {
                    List<WalRecord> records = WalTest.readAll(wal, 1);
                    assertThat(records.size()).as("records after a tear at %d", cut)
                            .isBetween(RECORDS, RECORDS + unsynced.length);
                    for (int i = RECORDS; i < records.size(); i++) {
                        assertThat(records.get(i).payload()).isEqualTo(unsynced[i - RECORDS]);
                    }
                }
                tears++;
            }
        }
        assertThat(tears).isGreaterThan(300);
    }

    private static MemVfs copy(MemVfs vfs) {
        return vfs.crashClone(); // everything in it is durable: the clone is an exact copy
    }

    @Test
    void shouldCutATornTailFollowedByGarbageThatHoldsNoRecord() throws IOException {
        MemVfs vfs = crashedLiveLog();
        byte[] garbage = WalTest.payload(7, 300); // not zero, but no well-formed fragment of this segment
        write(vfs, SEGMENT_1, recordStart(RECORDS) + 5, garbage);
        try (Wal wal = Wal.open(vfs, DIR, OPTIONS)) {
            assertThat(WalTest.readAll(wal, 1)).hasSize(RECORDS);
            assertThat(wal.droppedTailBytes()).isPositive();
        }
    }

    private static void assertRefusedUnchanged(MemVfs vfs, long damageOffset) throws IOException {
        TreeMap<String, byte[]> before = segments(vfs);
        assertThatThrownBy(() -> Wal.open(vfs, DIR, OPTIONS))
                .isInstanceOfSatisfying(CorruptionException.class, e -> {
                    assertThat(e.file()).isEqualTo(SEGMENT_1.toString());
                    assertThat(e.offset()).isEqualTo(damageOffset);
                });
        TreeMap<String, byte[]> after = segments(vfs);
        assertThat(after.keySet()).isEqualTo(before.keySet());
        for (String name : before.keySet()) {
            assertThat(after.get(name)).as("content of %s after the refused open", name).isEqualTo(before.get(name));
        }
    }

    private static TreeMap<String, byte[]> segments(MemVfs vfs) throws IOException {
        TreeMap<String, byte[]> out = new TreeMap<>();
        List<String> names = new ArrayList<>(vfs.list(DIR));
        for (String name : names) {
            if (WalFormat.parseSegmentName(name) >= 0) {
                out.put(name, vfs.readAll(DIR.resolve(name)));
            }
        }
        return out;
    }

    private static void write(MemVfs vfs, Path file, long offset, byte[] bytes) throws IOException {
        try (VfsFile f = vfs.open(file)) {
            f.write(offset, bytes, 0, bytes.length);
            f.force();
        }
    }
}
