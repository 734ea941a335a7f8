package dev.lacuna.lsm;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The commit lock ({@link Db#commitLock}): orders writes. A writer whose batch holds only puts takes it with
 * {@link #lockForAppend()} to reserve its record in the log, and writes it (joining a group of log writes)
 * and inserts into the memtables after releasing it ({@link InsertOrder}); every other holder takes it with
 * {@link #lock()}, which also waits until no such write is in flight. So whoever holds it through
 * {@link #lock()} finds every logged write in the memtables and published, and no memtable written meanwhile,
 * as when every insert ran under the lock: switching and
 * flushing memtables, deletions (which read what the writes before them left), checkpoints, a read's one
 * sequence across partitions, close.
 *
 * <p>An unlogged apply (an index's entries, {@link WritePath#applyUnlogged}) also takes it with
 * {@link #lockForAppend()}: it writes only its own partitions, which logged writes normally do not go into, so
 * the inserts of other writers in flight do not concern it, and it does not wait for them (an index updater
 * waited there for the writer it follows, preempted in the middle of its insert: issue 13,
 * {@code IndexLagProfile}). It
 * drains them ({@link InsertOrder#drain}, still holding the lock) before anything that needs every logged write
 * in the memtables: if a write in flight goes into one of its partitions after all, and before it switches any
 * memtable (its own at their size trigger, or the largest for the memory budget).
 */
final class CommitLock extends ReentrantLock {
    private static final long serialVersionUID = 1L;
    /** How long {@link #lockForAppend()} spins before it parks. */
    private static final long SPIN_NANOS = 20_000;

    private final transient Db db;

    CommitLock(Db db) {
        this.db = db;
    }

    /** Takes the lock and waits until no write's inserts are in flight. */
    @Override
    public void lock() {
        super.lock();
        try {
            db.inserts.drain();
        } catch (RuntimeException | Error e) {
            super.unlock();
            throw e;
        }
    }

    /**
     * Takes the lock without waiting for inserts in flight: for a writer that only appends its record and
     * begins its inserts ({@link InsertOrder#begin}) under it.
     */
    void lockForAppend() {
        if (super.tryLock()) {
            return;
        }
        // Held for a reservation, microseconds: spin a little before parking, as waking a parked thread costs as much
        // again (with two writers on two processors, parking on every collision halved their throughput).
        long deadline = System.nanoTime() + SPIN_NANOS;
        do {
            Thread.onSpinWait();
            if (!isLocked() && super.tryLock()) {
                return;
            }
        } while (System.nanoTime() < deadline);
        super.lock();
    }

    @Override
    public void lockInterruptibly() {
        throw new UnsupportedOperationException("the commit lock is taken with lock()");
    }

    @Override
    public boolean tryLock() {
        throw new UnsupportedOperationException("the commit lock is taken with lock()");
    }

    @Override
    public boolean tryLock(long timeout, java.util.concurrent.TimeUnit unit) {
        throw new UnsupportedOperationException("the commit lock is taken with lock()");
    }
}
