package dev.lacuna.wal;

import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The records reserved in a log and not yet written, in LSN order, and the state of the grouped write (RocksDB's
 * write group): while one writer (the leader) writes every record pending when it began in one write, without the
 * log's write lock, later writers reserve theirs behind it and wait; when it ends, one of them writes all of
 * theirs. Each record ends either written, or cut with every record after it (a failed write). Guarded by the
 * log's write lock, which its waits release.
 */
final class WriteGroup {
    private final ArrayDeque<ReservedRecord> pending = new ArrayDeque<>();
    private final Condition ended;
    /** Records at the head of {@link #pending} being written without the lock; 0 if no write is in flight. */
    private int inFlight;
    /** The leader's thread while a write is in flight, else null. */
    private volatile Thread leader;
    /** Writes ended so far: a writer spinning without the lock watches it change. */
    private volatile long ends;

    WriteGroup(ReentrantLock writeLock) {
        this.ended = writeLock.newCondition();
    }

    void add(ReservedRecord record) {
        pending.addLast(record);
    }

    /** Takes back the record just {@link #add}ed, which could not be buffered. */
    void removeLast(ReservedRecord record) {
        if (pending.peekLast() == record) {
            pending.pollLast();
        }
    }

    boolean isEmpty() {
        return pending.isEmpty();
    }

    /** The LSN of the first record not yet written. */
    long firstLsn() {
        return pending.getFirst().lsn;
    }

    /** Whether a write runs without the lock: no one else may write the file until it ends. */
    boolean writing() {
        return inFlight > 0;
    }

    Thread leader() {
        return leader;
    }

    /**
     * Waits (releasing the lock) until no write is in flight. Uninterruptibly: the wait is one write, and its
     * outcome must be known before the caller goes on (the interrupt flag is set again on return).
     */
    void awaitIdle() {
        while (inFlight > 0) {
            ended.awaitUninterruptibly();
        }
    }

    /** Waits (releasing the lock) until the write in flight ends, or anything else changes a record's state. */
    void awaitEnd() {
        ended.awaitUninterruptibly();
    }

    /** The calling thread writes every pending record, without the lock; none may be in flight. */
    void begin(boolean unlocked) {
        inFlight = pending.size();
        if (unlocked) {
            leader = Thread.currentThread();
        }
    }

    /** The records the write took are written. */
    void written() {
        for (int i = 0; i < inFlight; i++) {
            pending.pollFirst().written = true;
        }
        end();
    }

    /** Every pending record (those a failed write took, and those reserved after them) is cut, for {@code cause}. */
    void cutAll(Throwable cause) {
        for (ReservedRecord r : pending) {
            r.cut = cause;
        }
        pending.clear();
        end();
    }

    /** Writes ended so far ({@link #end}); readable without the lock. */
    long ends() {
        return ends;
    }

    private void end() {
        inFlight = 0;
        leader = null;
        ends = ends + 1; // under the lock: one writer
        ended.signalAll();
    }
}
