package dev.lacuna.wal;

import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * Where the records recovery checks go, from LSN {@link #fromLsn} on ({@link Wal#open(Vfs, Path, WalOptions,
 * Wal.Coverage, long, LongConsumer, LentRecords)}), lent to their owner, and what it is told of their size: once,
 * before the first record handed over, the bytes of the log's segments from that record to the end of its last
 * record. Records before {@code fromLsn} are checked without being handed over.
 *
 * <p>What the owner's callbacks throw leaves recovery as {@link OwnerFailure}, and {@link WalRecovery#recover} throws
 * the owner's exception itself: recovery takes a {@code CorruptionException} met in the last segment for a torn
 * tail, and cut the log after the record an owner's callback refused with one (records acknowledged as durable
 * were lost; WalReplaySizeReviewTest).
 */
final class WalReplay {
    private final long fromLsn;
    /** Null: no size wanted, and the segments are not sized. */
    private final LongConsumer size;
    private final LentRecords records;
    /** Whether {@link #size} was told (recovery's thread only). */
    private boolean sized;

    WalReplay(long fromLsn, LongConsumer size, LentRecords records) {
        this.fromLsn = fromLsn;
        this.size = size;
        this.records = records;
    }

    /** An owner that keeps each record: its payload copied into an array of its own. */
    static LentRecords copying(Consumer<WalRecord> records) {
        return (lsn, bytes, from, length) -> records.accept(new WalRecord(lsn, Arrays.copyOfRange(bytes, from,
                from + length)));
    }

    long fromLsn() {
        return fromLsn;
    }

    /**
     * Hands the record {@code reader} just read (lent: {@link SegmentReader#lend}) to the owner, first telling it the
     * log's size from the record on if it wants it and was not told: {@code rest}, the bytes of the record's segment
     * from the record's start, and those of the segments after it ({@code later}), less the zeros the log's last
     * segment ends in (its preallocation: up to {@link WalOptions#preallocate()}, which a user may set to a
     * segment's size).
     */
    void hand(SegmentReader reader, long rest, Vfs vfs, Path dir, List<Long> later, long lastSegment,
              WalOptions options) {
        long bytes = -1;
        if (size != null && !sized) {
            bytes = Math.max(0, rest + segmentsBytes(vfs, dir, later, options)
                    - zeroTail(vfs, dir.resolve(WalFormat.segmentName(lastSegment))));
        }
        try {
            if (bytes >= 0) {
                sized = true;
                size.accept(bytes);
            }
            reader.lend(records);
        } catch (RuntimeException e) {
            throw new OwnerFailure(e);
        }
    }

    /** The bytes of the segments numbered {@code numbers}; one that cannot be sized counts as a full segment. */
    private static long segmentsBytes(Vfs vfs, Path dir, List<Long> numbers, WalOptions options) {
        long total = 0;
        for (long n : numbers) {
            try {
                total += vfs.size(dir.resolve(WalFormat.segmentName(n)));
            } catch (IOException e) {
                total += options.segmentSize(); // a size is an estimate: not worth failing the open (as Wal.sizes)
            }
        }
        return total;
    }

    /**
     * The zero bytes {@code segment} ends in, read backwards until one is not (0 if it cannot be read: the log's own
     * reading of it fails the open then). Zeros that end the last record's payload count too: at most a fragment's
     * data, under a block, since a fragment's header is never all zeros.
     */
    private static long zeroTail(Vfs vfs, Path segment) {
        try (VfsFile file = vfs.openReadOnly(segment)) {
            long fileSize = file.size();
            ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
            byte[] zeros = new byte[buffer.capacity()];
            for (long end = fileSize; end > 0; ) {
                int n = (int) Math.min(buffer.capacity(), end);
                long from = end - n;
                buffer.clear().limit(n);
                while (buffer.hasRemaining() && file.read(buffer, from + buffer.position()) > 0) {
                    // until the stretch is read (what a read leaves unread counts as zeros: the size only drops)
                }
                int last = lastNonZero(buffer.array(), buffer.position(), zeros);
                if (last >= 0) {
                    return fileSize - (from + last + 1);
                }
                end = from;
            }
            return fileSize;
        } catch (IOException e) {
            return 0;
        }
    }

    /**
     * Where the last byte of {@code b[0, n)} that is not zero lies, or -1. Stretches are compared with {@code zeros}
     * whole, halving the one that holds it: a loop over up to a megabyte of bytes ran interpreted through much of a
     * small log's first open.
     */
    static int lastNonZero(byte[] b, int n, byte[] zeros) {
        if (Arrays.mismatch(b, 0, n, zeros, 0, n) < 0) {
            return -1;
        }
        int from = 0; // b[from, to) holds the last byte that is not zero
        int to = n;
        while (to - from > 64) {
            int middle = (from + to) >>> 1;
            if (Arrays.mismatch(b, middle, to, zeros, 0, to - middle) >= 0) {
                from = middle;
            } else {
                to = middle;
            }
        }
        for (int i = to - 1; ; i--) {
            if (b[i] != 0) {
                return i;
            }
        }
    }

    /** An exception of the owner's callbacks, carried out of recovery past its torn-tail catch. */
    static final class OwnerFailure extends RuntimeException {
        OwnerFailure(RuntimeException owners) {
            super(owners);
        }

        RuntimeException owners() {
            return (RuntimeException) getCause();
        }
    }
}
