package dev.lacuna.lsm;

import java.util.ArrayDeque;
import java.util.function.BooleanSupplier;

/**
 * When logged writes become visible to readers (RocksDB's order): a write made with {@code SYNC} only once
 * the log is durable up to it, so that a reader never sees a write a crash then loses; a write made with
 * {@code NONE} or {@code BATCHED} at once, as its caller chose — unless a {@code SYNC} write logged before
 * it is still waiting for its fsync, since visibility is a prefix of the log ({@link Db#visibleSequence}).
 *
 * <p>{@link #logged} is called in LSN order, under the commit lock or by {@link InsertOrder} (which holds no
 * write back while one is under the lock); {@link #durable} by whoever saw the log made durable. Thread-safe.
 */
final class Visibility {
    private final Db db;
    /** LSNs of {@code SYNC} records logged and not yet known durable, ascending. */
    private final ArrayDeque<Long> unsynced = new ArrayDeque<>();
    /** The highest LSN applied to the memtables. */
    private long logged;

    Visibility(Db db) {
        this.db = db;
    }

    /** Starts from a recovered log whose records up to {@code lsn} are all durable and visible. */
    synchronized void recovered(long lsn) {
        unsynced.clear();
        logged = lsn;
        db.loggedSequence = lsn;
        db.visibleSequence = lsn;
    }

    /** Record {@code lsn} is in the memtables; if {@code sync}, it waits for the log's fsync to be seen. */
    synchronized void logged(long lsn, boolean sync) {
        logged = lsn;
        db.loggedSequence = lsn;
        if (sync) {
            unsynced.addLast(lsn);
        }
        publish();
    }

    /** The log is durable up to {@code durableLsn}. */
    synchronized void durable(long durableLsn) {
        while (!unsynced.isEmpty() && unsynced.peekFirst() <= durableLsn) {
            unsynced.pollFirst();
        }
        publish();
    }

    /** Whether reads see the write at {@code lsn}. */
    boolean isVisible(long lsn) {
        return db.visibleSequence >= lsn;
    }

    /**
     * Waits up to {@code nanos} until reads see the write at {@code lsn} (a log reader that is ahead of them), or
     * the store closes ({@link #closed}).
     */
    synchronized void awaitVisible(long lsn, long nanos) throws InterruptedException {
        awaitVisible(lsn, nanos, () -> false);
    }

    /** {@link #awaitVisible(long, long)}, ending early too once {@code woken} holds (see {@link #wake}). */
    synchronized void awaitVisible(long lsn, long nanos, BooleanSupplier woken) throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        while (db.visibleSequence < lsn && !db.closed && !woken.getAsBoolean()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            wait(Math.max(1, left / 1_000_000));
        }
    }

    /** The store is closing ({@link Db#closed} set): a log reader waiting for a write goes back to its log. */
    synchronized void closed() {
        notifyAll();
    }

    /** Wakes the waits of {@link #awaitVisible(long, long, BooleanSupplier)}, whose condition the caller just set. */
    synchronized void wake() {
        notifyAll();
    }

    private void publish() {
        // Everything below the oldest SYNC record still waiting for its fsync is visible; all of it if none.
        long visible = unsynced.isEmpty() ? logged : unsynced.peekFirst() - 1;
        if (visible > db.visibleSequence) {
            db.visibleSequence = visible;
            notifyAll();
        }
    }
}
