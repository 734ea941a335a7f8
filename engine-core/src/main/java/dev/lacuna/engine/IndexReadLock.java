package dev.lacuna.engine;

import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.StampedLock;
import java.util.function.Supplier;

/**
 * What makes a reader of an index see each batch the updater applies whole ({@link TableIndexContext#apply} holds
 * it exclusively while it inserts a batch's entries): a page is read first without blocking the updater, and
 * kept only if no apply began meanwhile ({@link StampedLock}'s optimistic read); otherwise it is read again
 * holding the lock shared, as every read was before. Readers holding the lock across a page blocked the updater
 * behind them (a reader of the queue partition: 557 of 1,337 ms of the updater's lock waits in one 20 s
 * {@code IndexLagProfile} run, issue 13); a read that saw part of a batch could return an item moved by one write
 * twice, or not at all.
 */
final class IndexReadLock {
    private final StampedLock lock = new StampedLock();

    /** Held by the updater while it applies a batch. */
    Lock writeLock() {
        return lock.asWriteLock();
    }

    /** Held by a reader that must block the updater (tests; a read that could not be validated). */
    Lock readLock() {
        return lock.asReadLock();
    }

    /**
     * Reads a page with {@code read} (which must have no effect but its result, as it may run twice): first
     * optimistically, kept if no apply began or ran meanwhile; else again holding the lock shared. An exception
     * of the optimistic attempt is thrown only if the attempt saw a consistent index.
     */
    <T> T read(Supplier<T> read) {
        long stamp = lock.tryOptimisticRead();
        if (stamp != 0) {
            T page;
            try {
                page = read.get();
            } catch (RuntimeException | Error e) { // an Error too: an assertion may trip on half a batch
                if (lock.validate(stamp)) {
                    throw e;
                }
                page = null; // saw part of a batch: read again under the lock
            }
            if (lock.validate(stamp)) {
                return page;
            }
        }
        long held = lock.readLock();
        try {
            return read.get();
        } finally {
            lock.unlockRead(held);
        }
    }
}
