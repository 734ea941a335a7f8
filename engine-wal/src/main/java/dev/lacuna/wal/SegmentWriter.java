package dev.lacuna.wal;

import dev.lacuna.storage.WalOptions;
import static dev.lacuna.wal.WalFormat.FRAGMENT_CRC_OFFSET;
import static dev.lacuna.wal.WalFormat.FRAGMENT_HEADER_SIZE;
import static dev.lacuna.wal.WalFormat.FRAGMENT_LENGTH_OFFSET;
import static dev.lacuna.wal.WalFormat.FRAGMENT_SEGMENT_OFFSET;
import static dev.lacuna.wal.WalFormat.FRAGMENT_TYPE_OFFSET;
import static dev.lacuna.wal.WalFormat.HEADER_SIZE;
import static dev.lacuna.wal.WalFormat.LSN_SIZE;

import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Frames records into the segment being written. Records are encoded into an in-memory buffer and
 * written to the file by {@link #flush()}, so that one write (and one fsync) can carry a whole group of
 * records. Not thread-safe: the {@link Wal} calls it under its write lock, except {@link #force()}, which
 * may run concurrently with appends (positional file operations are thread-safe), and {@link #write(Taken)}, which
 * the leader of a grouped write runs without the lock while no one else writes the file ({@link WriteGroup}).
 */
final class SegmentWriter {
    private static final byte[] ZEROS = new byte[64 * 1024];

    private final VfsFile file;
    private final long number;
    private final long firstLsn;
    private final int blockSize;
    private final long preallocate;
    private final CRC32C crc = new CRC32C();

    private long written;   // bytes of the file holding records (or the header), handed to the OS
    private long allocated; // bytes of the file extended with zeros, at least written
    private byte[] pending = new byte[16 * 1024];
    private int pendingLength;
    /** Bytes {@link #take taken} for a write without the log's lock, not yet {@link #written} or {@link #cut}. */
    private int inFlight;
    /** The buffer of the last write that ended, reused by the next {@link #take}; null if in flight. */
    private byte[] spare;
    private long lastLsn;
    /** Offset up to which the file is known durable: the end of what the last fsync that succeeded covered. */
    private volatile long syncedTo;
    /** Where the seal was handed to the OS, if it was and the seal's fsync has not succeeded yet; else -1. */
    private long sealAt = -1;
    private boolean sealed;

    private SegmentWriter(VfsFile file, long number, long firstLsn, int blockSize, long preallocate) {
        this.file = file;
        this.number = number;
        this.firstLsn = firstLsn;
        this.blockSize = blockSize;
        this.preallocate = preallocate;
        this.lastLsn = firstLsn - 1;
    }

    /**
     * Creates segment {@code number} in {@code dir}, writes and fsyncs its header and first preallocation,
     * and makes its directory entry durable, so that records later synced in it survive a power loss.
     */
    static SegmentWriter create(Vfs vfs, Path dir, long number, long firstLsn, WalOptions options)
            throws IOException {
        VfsFile file = vfs.create(dir.resolve(WalFormat.segmentName(number)));
        try {
            SegmentWriter writer = new SegmentWriter(file, number, firstLsn, options.blockSize(),
                    Math.min(options.preallocate(), options.segmentSize()));
            byte[] header = new byte[HEADER_SIZE];
            WalFormat.encodeHeader(header, options.blockSize(), number, firstLsn);
            file.write(0, header, 0, header.length);
            writer.written = HEADER_SIZE;
            writer.allocated = HEADER_SIZE;
            writer.extendTo(HEADER_SIZE + writer.preallocate);
            file.force();
            writer.syncedTo = HEADER_SIZE;
            vfs.syncDirectory(dir);
            return writer;
        } catch (IOException | RuntimeException | Error e) {
            closeQuietly(file, e);
            throw e;
        }
    }

    long number() {
        return number;
    }

    long firstLsn() {
        return firstLsn;
    }

    /** LSN of the last record added, or {@code firstLsn - 1} if none. */
    long lastLsn() {
        return lastLsn;
    }

    boolean isEmpty() {
        return lastLsn < firstLsn;
    }

    /** Offset just past the last record added (written or pending). */
    long end() {
        return written + inFlight + pendingLength;
    }

    /** Offset just past the last record handed to the OS. */
    long written() {
        return written;
    }

    /** Offset up to which the file is known durable (for the log's sync event). */
    long syncedTo() {
        return syncedTo;
    }

    int pendingBytes() {
        return pendingLength;
    }

    /**
     * Records handed to a write made without the log's lock: {@code length} bytes of {@code bytes}, to go at
     * {@code offset}.
     */
    record Taken(byte[] bytes, int length, long offset, long lastLsn) {
    }

    /**
     * Takes the pending records for a write made without the log's lock ({@link #write(Taken)}): records added
     * meanwhile go into a new buffer, placed after them. Ended by {@link #written} or {@link #cut}; until then
     * nothing else may write the file.
     */
    Taken take() {
        if (inFlight != 0 || pendingLength == 0) {
            throw new IllegalStateException("segment " + number + ": a write is in flight or nothing is pending");
        }
        Taken taken = new Taken(pending, pendingLength, written, lastLsn);
        byte[] next = spare != null ? spare : new byte[Math.max(16 * 1024, pending.length)];
        spare = null;
        pending = next;
        inFlight = pendingLength;
        pendingLength = 0;
        return taken;
    }

    /** Writes what {@link #take} took (one positional write), extending the preallocation first. */
    void write(Taken taken) throws IOException {
        extendTo(taken.offset() + taken.length());
        file.write(ByteBuffer.wrap(taken.bytes(), 0, taken.length()), taken.offset());
    }

    /** The write of {@code taken} returned: its records are handed to the OS. */
    void written(Taken taken) {
        written += taken.length();
        inFlight = 0;
        spare = taken.bytes();
    }

    /**
     * Forgets every record from {@code fromLsn} on, taken or pending, none of which was handed to the OS whole:
     * their writers are told their write failed. What a failed write of them left in the file (past
     * {@link #written()}) is cut by {@link #truncateToWritten}.
     */
    void cut(long fromLsn, Taken taken) {
        if (taken != null) {
            spare = taken.bytes();
        }
        inFlight = 0;
        pendingLength = 0;
        lastLsn = fromLsn - 1;
    }

    /**
     * Cuts the file after its records (and its zero fill with them) and fsyncs the cut: what a failed write left
     * there goes, durably, before its writers are told it failed. Not fsynced, the cut bytes could still reach the
     * disk (the kernel's writeback, a group-commit leader's fsync of this segment running meanwhile), and a crash
     * before the log's repair would replay whole records of a group write reported failed. If that fsync fails,
     * this segment counts as holding a failed fsync: it is written again before it is sealed.
     */
    void truncateToWritten() throws IOException {
        file.truncate(written);
        allocated = written;
        boolean synced = false;
        try {
            file.force();
            synced = true;
        } finally {
            if (!synced) {
                synchronized (forces) {
                    forces.failed = true;
                    forces.failures++;
                }
            }
        }
    }

    /** Offset the segment would end at if a record with {@code payloadLength} bytes were added now. */
    long endAfter(int payloadLength) {
        return WalFormat.encodedEnd(end(), LSN_SIZE + (long) payloadLength, blockSize);
    }

    /** Encodes one record into the pending buffer. */
    void add(long lsn, byte[] payload, int offset, int length) {
        ensurePending((int) (endAfter(length) - end()));
        int bodyLength = LSN_SIZE + length;
        int done = 0; // body bytes framed so far
        boolean first = true;
        while (done < bodyLength) {
            long pos = end();
            int blockLeft = (int) (blockSize - pos % blockSize);
            if (blockLeft < FRAGMENT_HEADER_SIZE) {
                Arrays.fill(pending, pendingLength, pendingLength + blockLeft, (byte) 0);
                pendingLength += blockLeft;
                continue;
            }
            int n = Math.min(bodyLength - done, blockLeft - FRAGMENT_HEADER_SIZE);
            boolean last = done + n == bodyLength;
            byte type = first ? (last ? WalFormat.FULL : WalFormat.FIRST) : (last ? WalFormat.LAST : WalFormat.MIDDLE);
            int h = pendingLength;
            int data = h + FRAGMENT_HEADER_SIZE;
            // The body is the LSN followed by the payload; copy the part of each that falls in this fragment.
            int fromLsn = Math.max(0, Math.min(LSN_SIZE - done, n));
            for (int i = 0; i < fromLsn; i++) {
                pending[data + i] = (byte) (lsn >>> (8 * (done + i))); // little-endian, as getLong reads it
            }
            int payloadStart = Math.max(0, done - LSN_SIZE);
            System.arraycopy(payload, offset + payloadStart, pending, data + fromLsn, n - fromLsn);
            WalFormat.putShort(pending, h + FRAGMENT_LENGTH_OFFSET, n);
            pending[h + FRAGMENT_TYPE_OFFSET] = type;
            WalFormat.putInt(pending, h + FRAGMENT_SEGMENT_OFFSET, (int) number);
            crc.reset();
            crc.update(pending, h + FRAGMENT_TYPE_OFFSET, FRAGMENT_HEADER_SIZE - FRAGMENT_TYPE_OFFSET + n);
            WalFormat.putInt(pending, h + FRAGMENT_CRC_OFFSET, (int) crc.getValue());
            pendingLength = data + n;
            done += n;
            first = false;
        }
        lastLsn = lsn;
    }

    /** Hands the pending records to the OS (one positional write), extending the preallocation first. */
    void flush() throws IOException {
        if (inFlight != 0) {
            throw new IllegalStateException("segment " + number + ": a write is in flight");
        }
        if (pendingLength == 0) {
            return;
        }
        extendTo(written + pendingLength);
        file.write(ByteBuffer.wrap(pending, 0, pendingLength), written);
        written += pendingLength;
        pendingLength = 0;
    }

    /**
     * Counts a group-commit leader's fsync of this segment as in flight; called under the log's write lock, when
     * the leader takes the segment, and ended by {@link #forceEnded}. The leader fsyncs without the lock, so a roll
     * could otherwise seal this segment while that fsync runs; if it then failed, the pages it dropped would be
     * gone from the disk although the seal's own fsync succeeds (Linux marks the pages of a failed writeback
     * clean: "fsyncgate"), and the seal would count their records durable. {@link #seal} waits for it instead,
     * and refuses to seal over one that failed. Counted from the capture, not from the fsync's start: a roll
     * between the two would otherwise seal concurrently with it.
     */
    int forceStarting() {
        synchronized (forces) {
            forces.inFlight++;
            return forces.failures;
        }
    }

    /**
     * Fsyncs what has been written, after {@link #forceStarting}; {@code written} is what the caller saw written
     * before it, {@code failuresSeen} what {@code forceStarting} returned. Throws if another fsync of this segment
     * (a failed write's cut, another leader's) failed meanwhile: Linux reports a lost writeback once per file, so
     * that fsync may have taken the error for pages this one counts durable.
     */
    void force(long written, int failuresSeen) throws IOException {
        file.force();
        synchronized (forces) {
            if (forces.failures != failuresSeen) {
                throw new IOException("another fsync of write-ahead log segment " + number + " failed meanwhile");
            }
        }
        if (written > syncedTo) {
            syncedTo = written; // a race with another force only makes it lower than it could be
        }
    }

    /** Ends what {@link #forceStarting} began; {@code succeeded}: its {@link #force} returned. */
    void forceEnded(boolean succeeded) {
        synchronized (forces) {
            forces.inFlight--;
            forces.failed |= !succeeded;
            if (!succeeded) {
                forces.failures++;
            }
            forces.notifyAll();
        }
    }

    /** Leaders' fsyncs of this segment in flight, and whether one failed since the last rewrite; guarded by itself. */
    private static final class Forces {
        int inFlight;
        boolean failed;
        int failures;
    }

    private final Forces forces = new Forces();

    /**
     * Waits (uninterruptibly: the caller holds the log's write lock, and the wait is one fsync) until no leader's
     * fsync of this segment is in flight, and throws if one failed since the last {@link #rewriteAfterFailure}: its
     * unsynced bytes may be gone from the disk, and a seal over them would count them durable.
     */
    private void checkNoFailedForce() throws IOException {
        boolean interrupted = false;
        synchronized (forces) {
            while (forces.inFlight > 0) {
                try {
                    forces.wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            if (forces.failed) {
                throw new IOException("an fsync of write-ahead log segment " + number + " failed: what it held"
                        + " unsynced may be gone from the disk, so it is written again before the segment is sealed");
            }
        }
    }

    boolean isSealed() {
        return sealed;
    }

    /**
     * After a write or fsync of this segment failed: makes every record added so far durable, or throws. The
     * file may end in garbage (part of a write that failed, a seal whose fsync failed), and what was handed
     * to the OS since the last fsync that succeeded may not be on disk, even if a later fsync succeeds (Linux
     * marks the pages of a failed writeback clean: "fsyncgate"). So the garbage is cut, those bytes are
     * written again as read back (which makes their pages dirty again), the records still pending follow,
     * and after the fsync every record is read back and checked before the segment is sealed.
     *
     * <p>Every write here goes at the end of the records, and rewritten bytes are the bytes already there:
     * a crash at any point leaves records followed by a prefix of the pending ones, which recovery takes
     * for a torn tail.
     *
     * @throws dev.lacuna.storage.CorruptionException if records read back are not the ones written (lost
     *                                                from the OS's cache): no fsync can bring them back
     */
    void rewriteAfterFailure() throws IOException {
        if (sealAt >= 0) {
            written = sealAt; // the seal is written again by seal(), after the records
            sealAt = -1;
        }
        file.truncate(written);
        allocated = written;
        byte[] chunk = new byte[64 * 1024];
        for (long pos = syncedTo; pos < written; ) {
            int n = (int) Math.min(chunk.length, written - pos);
            ByteBuffer b = ByteBuffer.wrap(chunk, 0, n);
            while (b.hasRemaining()) {
                if (file.read(b, pos + b.position()) < 0) {
                    throw new java.io.EOFException("segment " + number + " ends before offset " + written);
                }
            }
            file.write(ByteBuffer.wrap(chunk, 0, n), pos);
            pos += n;
        }
        flush();
        long end = written;
        file.force();
        syncedTo = end;
        synchronized (forces) {
            forces.failed = false; // every byte since the last good fsync was written again and is now synced
        }
        SegmentHeader header = SegmentHeader.read(file, number);
        SegmentReader reader = new SegmentReader(file, header);
        long lsn = firstLsn;
        WalRecord record;
        while ((record = reader.next(end)) != null) {
            if (record.lsn() != lsn) {
                break;
            }
            lsn++;
        }
        if (lsn != lastLsn + 1 || reader.validEnd() != end) {
            throw new dev.lacuna.storage.CorruptionException(file.name(), reader.validEnd(), "write-ahead log:"
                    + " records written before a failed write or fsync read back wrong after it (LSN " + lsn
                    + " expected up to " + lastLsn + "); they are not on disk, and the log refuses appends");
        }
    }

    /**
     * Offset the segment would end at, sealed, if a record with {@code payloadLength} bytes were added now:
     * what must stay within the segment size.
     */
    long sealedEndAfter(int payloadLength) {
        long end = endAfter(payloadLength);
        return end + WalFormat.sealLength(end, blockSize);
    }

    /**
     * Writes the seal after the last record, cuts the zero fill after it and fsyncs: the segment is final.
     * The seal tells recovery that every record before it was fsynced, so that damage to the last record
     * of the last segment is not mistaken for a torn tail.
     */
    void seal() throws IOException {
        checkNoFailedForce();
        byte[] seal = WalFormat.seal(end(), number, blockSize);
        ensurePending(seal.length);
        int mark = pendingLength;
        long recordsEnd = end();
        System.arraycopy(seal, 0, pending, pendingLength, seal.length);
        pendingLength += seal.length;
        try {
            flush();
        } catch (IOException e) {
            pendingLength = mark; // the seal is not a record: a retry adds it again, once
            throw e;
        }
        sealAt = recordsEnd;
        file.truncate(written);
        file.force();
        syncedTo = written;
        sealAt = -1;
        sealed = true;
        allocated = written;
    }

    void close() throws IOException {
        file.close();
    }

    private void extendTo(long needed) throws IOException {
        if (preallocate == 0 || needed <= allocated) {
            return;
        }
        long target = Math.max(needed, allocated + preallocate);
        // Zeros, not a sparse hole: fsync of an overwritten, already allocated block need not touch
        // the file's metadata, which is where a synced log spends its time.
        long pos = Math.max(allocated, written);
        while (pos < target) {
            int n = (int) Math.min(ZEROS.length, target - pos);
            file.write(ByteBuffer.wrap(ZEROS, 0, n), pos);
            pos += n;
        }
        allocated = target;
    }

    private void ensurePending(int more) {
        if (pendingLength + more > pending.length) {
            pending = Arrays.copyOf(pending, Math.max(pending.length * 2, pendingLength + more));
        }
    }

    static void closeQuietly(VfsFile file, Throwable primary) {
        try {
            file.close();
        } catch (IOException e) {
            primary.addSuppressed(e);
        }
    }
}
