package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The open that hands records over tells, once and before the first, the bytes of the log's segments from that record
 * to the zeros the last ends in ({@link Wal#open(dev.lacuna.vfs.Vfs, java.nio.file.Path,
 * dev.lacuna.storage.WalOptions, Wal.Coverage, long, java.util.function.LongConsumer, java.util.function.Consumer)}):
 * recovery sizes the memtables it rebuilds from it. Segments before that record (kept by a checkpoint) are not
 * counted; nothing is told when no record is handed over.
 */
class WalReplaySizeTest {
    @Test
    void shouldTellTheBytesFromTheFirstRecordHandedOverToTheLogsEnd() throws Exception {
        MemVfs vfs = new MemVfs();
        Random random = new Random(5);
        int records = 400;
        try (Wal wal = Wal.open(vfs, WalTest.DIR, WalTest.SMALL)) {
            for (int i = 0; i < records; i++) {
                wal.append(new byte[20 + random.nextInt(300)], Durability.NONE);
            }
            wal.sync();
        }
        TreeMap<Long, long[]> written = segments(vfs); // number -> {first LSN, size}
        assertThat(written).as("segments").hasSizeGreaterThan(3);
        long second = written.higherEntry(written.firstKey()).getValue()[0];
        long last = written.lastEntry().getValue()[0];

        int checked = 0;
        for (long from : new long[] {1, second, last, last + 1, 200}) {
            TreeMap<Long, long[]> segments = segments(vfs); // each open ends in a new (empty, sealed) segment
            long holder = -1; // the segment holding LSN `from`: the last whose first LSN is not after it
            boolean first = false;
            for (var e : segments.entrySet()) {
                if (e.getValue()[0] <= from) {
                    holder = e.getKey();
                    first = e.getValue()[0] == from;
                }
            }
            List<Long> told = new ArrayList<>();
            List<Integer> handedBeforeTold = new ArrayList<>();
            List<WalRecord> handed = new ArrayList<>();
            try (Wal wal = Wal.open(vfs, WalTest.DIR, WalTest.SMALL, log -> { }, from, bytes -> {
                told.add(bytes);
                handedBeforeTold.add(handed.size());
            }, handed::add)) {
                assertThat(handed.get(0).lsn()).isEqualTo(from);
            }
            assertThat(told).as("told from LSN %d", from).hasSize(1);
            assertThat(handedBeforeTold).as("records handed over before the size").containsExactly(0);
            long fromHere = -zeroTail(vfs, segments.lastKey()); // from the segment holding LSN `from` to the zeros
            for (long[] s : segments.tailMap(holder, true).values()) {
                fromHere += s[1];
            }
            long framed = 0;
            for (WalRecord r : handed) {
                framed += r.payload().length + WalFormat.LSN_SIZE + WalFormat.FRAGMENT_HEADER_SIZE;
            }
            if (first) { // the segment's first record: right after its header
                assertThat(told.get(0)).as("from LSN %d", from).isEqualTo(fromHere - WalFormat.HEADER_SIZE);
            } else {
                assertThat(told.get(0)).as("from LSN %d", from).isBetween(framed, fromHere - WalFormat.HEADER_SIZE);
            }
            checked++;
        }
        assertThat(checked).isEqualTo(5);

        List<Long> told = new ArrayList<>();
        try (Wal wal = Wal.open(vfs, WalTest.DIR, WalTest.SMALL, log -> { }, records + 1, told::add, r -> { })) {
            assertThat(told).as("nothing handed over, nothing told").isEmpty();
        }
    }

    /** The zero bytes segment {@code number} ends in. */
    private static long zeroTail(MemVfs vfs, long number) throws Exception {
        try (VfsFile file = vfs.openReadOnly(WalTest.DIR.resolve(WalFormat.segmentName(number)))) {
            byte[] all = new byte[(int) file.size()];
            file.read(ByteBuffer.wrap(all), 0);
            int zeros = 0;
            while (zeros < all.length && all[all.length - 1 - zeros] == 0) {
                zeros++;
            }
            return zeros;
        }
    }

    private static TreeMap<Long, long[]> segments(MemVfs vfs) throws Exception {
        TreeMap<Long, long[]> segments = new TreeMap<>();
        for (String name : vfs.list(WalTest.DIR)) {
            long number = WalFormat.parseSegmentName(name);
            if (number >= 0) {
                try (VfsFile file = vfs.openReadOnly(WalTest.DIR.resolve(name))) {
                    segments.put(number, new long[] {SegmentHeader.read(file, number).firstLsn(), file.size()});
                }
            }
        }
        return segments;
    }
}
