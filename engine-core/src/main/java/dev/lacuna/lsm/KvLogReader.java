package dev.lacuna.lsm;

import dev.lacuna.kv.WriteBatch;
import dev.lacuna.wal.WalReader;
import dev.lacuna.wal.WalRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Reads the store's log in LSN order from a given LSN, following it as it grows ({@link LsmStore#logReader}).
 * Each record is one write batch. Not thread-safe: one consumer thread reads it.
 */
public final class KvLogReader implements AutoCloseable {
    /** What one logged operation did. */
    public enum Kind {
        /** Deleted the key. */ DELETE,
        /** Set the key. */ PUT,
        /** Single-deleted the key. */ SINGLE_DELETE,
        /** Logged beside the writes, not applied ({@link WriteBatch#logOnly}). */ LOG_ONLY
    }

    /** One logged operation. */
    public record Op(Kind kind, byte[] key, byte[] value) {
    }

    /**
     * One log record: a write batch and its LSN (the sequence number of its writes).
     *
     * @param writeTimeMillis when it was written, by the store's clock (epoch ms; 0 for a record written
     *                        before the log recorded it)
     * @param flags           the batch's {@link WriteBatch#flags()}
     */
    public record Batch(long lsn, List<Op> ops, long writeTimeMillis, int flags) {
        /** A record without write time or flags. */
        public Batch(long lsn, List<Op> ops) {
            this(lsn, ops, 0, 0);
        }
    }

    private final WalReader reader;
    private final String where;
    private final Visibility visibility;
    /** A record read from the log but not yet visible (a SYNC write waiting for its fsync). */
    private WalRecord held;
    /** Set by {@link #wake}: waits in {@link #next(Duration)} end at once, now and from then on. */
    private volatile boolean woken;

    KvLogReader(WalReader reader, String where, Visibility visibility) {
        this.reader = reader;
        this.where = where;
        this.visibility = visibility;
    }

    /** The next visible record, or null if the log holds no more yet. */
    public Batch next() {
        if (held == null) {
            held = reader.next();
        }
        return takeIfVisible();
    }

    /**
     * The next record, waiting up to {@code timeout} for one to be logged and visible; null if none came. A
     * record is returned only once reads see it: a consumer never acts on a write a crash could lose.
     */
    public Batch next(Duration timeout) throws InterruptedException {
        // Saturates where Duration.toNanos() would throw (past ~292 years); the deadline may wrap, the
        // differences do not.
        long deadline = System.nanoTime() + TimeUnit.NANOSECONDS.convert(timeout);
        if (held == null) {
            held = reader.next();
            if (held == null) {
                // Woken when the next record is published, not when it is appended: the log wakes its readers
                // inside the append, under the commit lock, before the record's inserts; a reader woken there
                // found the record not yet visible and waited a second time (two wake-ups per write for an
                // index updater following the log, and one taken from the writer holding the lock; issue 13).
                // A visible record is in the log (appended, and handed to the OS, before it was published).
                visibility.awaitVisible(reader.nextLsn(), deadline - System.nanoTime(), this::woken);
                held = reader.next(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            }
        }
        if (held != null) {
            visibility.awaitVisible(held.lsn(), deadline - System.nanoTime(), this::woken);
        }
        return takeIfVisible();
    }

    private boolean woken() {
        return woken;
    }

    private Batch takeIfVisible() {
        if (held == null || !visibility.isVisible(held.lsn())) {
            return null;
        }
        WalRecord r = held;
        held = null;
        return decode(r);
    }

    private Batch decode(WalRecord r) {
        List<Op> ops = new ArrayList<>();
        BatchCodec.Decoded d = BatchCodec.decode(r.payload(), where + " LSN " + r.lsn());
        for (WriteBatch.Op op : d.ops()) {
            ops.add(new Op(Kind.values()[op.kind()], op.key(), op.value()));
        }
        return new Batch(r.lsn(), ops, d.writeTimeMillis(), d.flags());
    }

    /**
     * Where a log record starts: its segment and its offset in it ({@link #position()}), a hint for
     * {@link LsmStore#logReader(long, Position)}.
     */
    public record Position(long segment, long offset) {
    }

    /**
     * Where the record after the last one {@link #next} returned starts in the log, for
     * {@link LsmStore#logReader(long, Position)}. Asked right after {@code next} returned a record; {@code null}
     * if it is not known (no segment open yet, or a record read but not yet visible is held).
     */
    public Position position() {
        if (held != null || reader.segment() < 0) {
            return null;
        }
        return new Position(reader.segment(), reader.offset());
    }

    /**
     * Ends a wait in {@link #next(Duration)} under way in another thread, and every later one, at once (see
     * {@link dev.lacuna.wal.WalReader#wake}); for a close while a stream poll waits.
     */
    public void wake() {
        woken = true; // before the wake-ups: a wait that starts after them sees it
        reader.wake();
        visibility.wake(); // a wait for the next record to be published (next(Duration)) waits there
    }

    @Override
    public void close() {
        reader.close();
    }
}
