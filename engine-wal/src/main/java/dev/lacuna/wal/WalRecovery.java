package dev.lacuna.wal;

import dev.lacuna.storage.RecoveryMode;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * Validates the segments found in a log directory and leaves them all sealed: every record is read and
 * checked, a torn tail of the last segment is cut off (in {@link RecoveryMode#TOLERATE_TORN_TAIL}), and
 * damage anywhere else is a {@link CorruptionException}.
 */
final class WalRecovery {
    /**
     * What recovery found.
     *
     * @param segments    surviving segments: number → first LSN, ascending
     * @param nextLsn     the LSN the next appended record gets
     * @param nextSegment the number the next segment gets
     * @param droppedTail bytes cut from the end of the last segment (0 if it ended cleanly)
     */
    record Result(TreeMap<Long, Long> segments, long nextLsn, long nextSegment, long droppedTail) {
    }

    private WalRecovery() {
    }

    static Result recover(Vfs vfs, Path dir, WalOptions options) throws IOException {
        List<Long> numbers = new ArrayList<>();
        for (String name : vfs.list(dir)) {
            long n = WalFormat.parseSegmentName(name);
            if (n >= 0) {
                numbers.add(n);
            }
        }
        TreeMap<Long, Long> segments = new TreeMap<>();
        long nextLsn = 1;
        long droppedTail = 0;
        for (int i = 0; i < numbers.size(); i++) {
            long number = numbers.get(i);
            boolean last = i == numbers.size() - 1;
            Path path = dir.resolve(WalFormat.segmentName(number));
            if (i > 0 && number != numbers.get(i - 1) + 1) {
                throw new CorruptionException(dir.resolve(WalFormat.segmentName(numbers.get(i - 1) + 1)).toString(), 0,
                        "write-ahead log: segment " + (numbers.get(i - 1) + 1) + " is missing");
            }
            try (VfsFile file = vfs.open(path)) {
                SegmentHeader header = SegmentHeader.read(file, number);
                if (header == null) {
                    if (!last || options.recoveryMode() == RecoveryMode.ABSOLUTE) {
                        throw new CorruptionException(path.toString(), 0, "write-ahead log: segment shorter than its header");
                    }
                    droppedTail += file.size();
                    file.close();
                    vfs.delete(path); // its creation was cut short by a crash: it never held a record
                    vfs.syncDirectory(dir);
                    continue;
                }
                if (!segments.isEmpty() && header.firstLsn() != nextLsn) {
                    throw new CorruptionException(path.toString(), WalFormat.FIRST_LSN_OFFSET, "write-ahead log: segment starts at LSN "
                            + header.firstLsn() + " but the one before it ends at " + (nextLsn - 1));
                }
                SegmentReader reader = scan(file, header, last, options.recoveryMode());
                long validEnd = reader.validEnd();
                long size = file.size();
                if (last && size > validEnd) {
                    droppedTail += countNonZero(file, validEnd, size);
                    file.truncate(validEnd);
                    file.force();
                }
                segments.put(number, header.firstLsn());
                nextLsn = reader.expectedLsn();
            }
        }
        // A last segment whose creation was cut short was deleted above: its number is used again, so
        // the numbers stay consecutive.
        long nextSegment = !segments.isEmpty() ? segments.lastKey() + 1 : numbers.isEmpty() ? 1 : numbers.get(0);
        if (nextSegment > WalFormat.MAX_SEGMENT) {
            throw new CorruptionException(dir.toString(), 0, "write-ahead log: segment numbers exhausted");
        }
        return new Result(segments, nextLsn, nextSegment, droppedTail);
    }

    /**
     * Reads every record of a segment; returns the reader, positioned just past the last good record and
     * expecting the LSN after it.
     */
    private static SegmentReader scan(VfsFile file, SegmentHeader header, boolean last, RecoveryMode mode) throws IOException {
        SegmentReader reader = new SegmentReader(file, header.segment(), header.blockSize(), header.firstLsn());
        long size = file.size();
        try {
            while (reader.next(size) != null) {
                // every record is decoded and checked; the engine replays them through a reader later
            }
        } catch (CorruptionException e) {
            if (last && mode == RecoveryMode.TOLERATE_TORN_TAIL) {
                return reader;
            }
            throw e;
        }
        if (reader.end() == SegmentReader.End.ZERO_FILL) {
            if (!last) {
                throw new CorruptionException(file.name(), reader.validEnd(),
                        "write-ahead log: zero fill inside a sealed segment");
            }
            if (mode == RecoveryMode.ABSOLUTE && countNonZero(file, reader.validEnd(), size) > 0) {
                throw new CorruptionException(file.name(), reader.validEnd(),
                        "write-ahead log: data after the end of the log");
            }
        }
        return reader;
    }

    private static long countNonZero(VfsFile file, long from, long to) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
        long count = 0;
        for (long pos = from; pos < to; ) {
            buffer.clear().limit((int) Math.min(buffer.capacity(), to - pos));
            int n = file.read(buffer, pos);
            if (n < 0) {
                break;
            }
            for (int i = 0; i < n; i++) {
                if (buffer.get(i) != 0) {
                    count++;
                }
            }
            pos += n;
        }
        return count;
    }
}
