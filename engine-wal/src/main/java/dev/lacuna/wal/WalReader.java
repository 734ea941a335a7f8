package dev.lacuna.wal;

import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.DatabaseClosedException;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Reads a {@link Wal}'s records in LSN order from a starting LSN, following the log as it grows: the
 * index updater, change streams and tests all consume the log through one of these. A reader sees a
 * record once it has been handed to the OS (which, for {@code SYNC} appends, is just before its fsync):
 * a consumer that persists what it derived from a record must not checkpoint past
 * {@link Wal#durableLsn()}.
 *
 * <p>Not thread-safe: one consumer thread owns it and closes it. The reader keeps its current segment
 * open, so trimming the log does not pull a file from under it; a reader that falls behind the log's
 * retention (no checkpoint held the segments it needs) fails with a {@link StorageIOException}.
 */
public final class WalReader implements AutoCloseable {
    private final Wal wal;
    private final Vfs vfs;
    private final long fromLsn;
    /** Where record {@code fromLsn} starts, if the opener knew (-1 if not, or once it proved wrong). */
    private long hintSegment;
    private long hintOffset;
    /** Whether the reader stands where the hint said and has not yet read a record there. */
    private boolean seeking;

    private long segment = -1;
    private VfsFile file;
    private SegmentReader reader;
    /** The size of {@link #segment} once it is sealed (it no longer changes), -1 before it is known. */
    private long sealedSize = -1;
    private long nextLsn;
    private boolean closed;
    /** Set by {@link #wake}: a wait for the next record ends at once, now and from then on. */
    private volatile boolean woken;

    WalReader(Wal wal, Vfs vfs, long fromLsn, long hintSegment, long hintOffset) {
        this.wal = wal;
        this.vfs = vfs;
        this.fromLsn = fromLsn;
        this.nextLsn = fromLsn;
        this.hintSegment = hintSegment;
        this.hintOffset = hintOffset;
    }

    /** LSN of the record the next successful {@link #next()} returns. */
    public long nextLsn() {
        return nextLsn;
    }

    /**
     * The segment the reader stands in (-1 before it has opened one): with {@link #offset()}, where the record after
     * the last one returned starts, which {@link Wal#reader(long, long, long)} can start at.
     */
    public long segment() {
        return reader == null ? -1 : segment;
    }

    /** The offset in {@link #segment()} just past the last record returned (-1 before a segment is open). */
    public long offset() {
        return reader == null ? -1 : reader.validEnd();
    }

    /**
     * The next record if one is visible now, else null (never blocks).
     *
     * @throws CorruptionException if a record is damaged
     * @throws StorageIOException  if the file system fails
     */
    public WalRecord next() {
        if (closed) {
            throw new IllegalStateException("reader is closed");
        }
        try {
            while (true) {
                Wal.Visible v = wal.visible();
                if (nextLsn > v.lastLsn()) {
                    return null;
                }
                if (reader == null) {
                    openSegmentContaining(nextLsn);
                }
                if (segment > v.segment()) {
                    return null; // cannot happen (nextLsn ≤ v.lastLsn lies in a visible segment); be safe
                }
                long limit;
                if (segment == v.segment()) {
                    limit = v.offset();
                } else {
                    if (sealedSize < 0) {
                        sealedSize = file.size(); // once, not for every record
                    }
                    limit = sealedSize;
                }
                WalRecord record;
                try {
                    record = reader.next(limit);
                } catch (CorruptionException e) {
                    if (!seeking) {
                        throw e;
                    }
                    record = null;
                }
                if (seeking) {
                    seeking = false;
                    if (record == null) {
                        // Record nextLsn is visible, so it was there to read: the hint was wrong. From the start.
                        hintSegment = -1;
                        closeFile();
                        continue;
                    }
                }
                if (record != null) {
                    if (record.lsn() < nextLsn) {
                        // Before where this reader starts, or already returned: a reader that lost its place reopens
                        // the segment holding nextLsn, and a look-up during a trim's put-back (readers take no lock)
                        // can find an older one.
                        continue;
                    }
                    nextLsn = record.lsn() + 1;
                    return record;
                }
                if (segment == v.segment()) {
                    throw new IllegalStateException("write-ahead log published LSN " + v.lastLsn()
                            + " but segment " + segment + " ends at LSN " + (reader.expectedLsn() - 1));
                }
                moveToSegment(segment + 1); // a closed segment ended (at its seal): its successor holds the rest
            }
        } catch (IOException e) {
            throw new StorageIOException("cannot read write-ahead log segment " + segment + ": " + e.getMessage(), e);
        }
    }

    /**
     * The next record, waiting up to {@code timeout} for one to be appended.
     *
     * @return the record, or null if none arrived in time
     * @throws InterruptedException    if the thread is interrupted while waiting
     * @throws DatabaseClosedException if the log was closed and every record has been read
     */
    public WalRecord next(Duration timeout) throws InterruptedException {
        // Saturates where Duration.toNanos() would throw (past ~292 years); the deadline may wrap, the
        // differences do not.
        long deadline = System.nanoTime() + TimeUnit.NANOSECONDS.convert(timeout);
        while (true) {
            WalRecord record = next();
            if (record != null) {
                return record;
            }
            if (wal.isClosed()) {
                throw new DatabaseClosedException("write-ahead log");
            }
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0 || woken) {
                return null;
            }
            wal.awaitVisible(nextLsn, remaining, this::isWoken);
        }
    }

    /**
     * Ends a wait in {@link #next(Duration)} under way in another thread, and every later one, at once: that call
     * returns what the log already holds, or null. For an owner closing the reader while its user waits (the reader
     * itself is not closed here: the waiting thread may still be reading its file).
     */
    public void wake() {
        woken = true;
        wal.wakeReaders();
    }

    private boolean isWoken() {
        return woken;
    }

    /** Closes the segment file this reader holds. Idempotent. */
    @Override
    public void close() {
        closed = true;
        closeFile();
    }

    private void openSegmentContaining(long lsn) throws IOException {
        Map.Entry<Long, Long> entry = wal.segmentContaining(lsn);
        if (entry == null) {
            throw new StorageIOException("write-ahead log no longer holds LSN " + lsn + " (trimmed by retention)",
                    (Throwable) null);
        }
        open(entry.getKey());
        if (hintSegment == entry.getKey() && lsn == fromLsn && hintOffset >= WalFormat.HEADER_SIZE) {
            reader.seek(hintOffset, lsn);
            seeking = true;
        }
    }

    private void moveToSegment(long number) throws IOException {
        closeFile();
        if (wal.firstLsnOf(number) == null) {
            throw new StorageIOException("write-ahead log segment " + number + " is gone (trimmed by retention)",
                    (Throwable) null);
        }
        open(number);
    }

    private void open(long number) throws IOException {
        VfsFile f = vfs.openReadOnly(wal.segmentPath(number));
        try {
            SegmentHeader header = SegmentHeader.read(f, number);
            if (header == null) {
                throw new CorruptionException(f.name(), 0, "write-ahead log: segment shorter than its header");
            }
            file = f;
            segment = number;
            reader = new SegmentReader(f, header);
        } catch (IOException | RuntimeException e) {
            SegmentWriter.closeQuietly(f, e);
            throw e;
        }
    }

    private void closeFile() {
        if (file != null) {
            try {
                file.close();
            } catch (IOException e) {
                // read-only handle: nothing was lost
            }
            file = null;
            reader = null;
            sealedSize = -1;
        }
    }
}
