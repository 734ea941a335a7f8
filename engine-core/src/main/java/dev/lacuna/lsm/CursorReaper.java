package dev.lacuna.lsm;

import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Frees what a cursor its user never closed still holds — pinned tables and versions, and its place in the
 * read tracker, which holds back the purge of put/delete pairs from memtables — once the cursor is garbage.
 * Polled when a cursor opens and when a flush runs, so it needs no thread of its own; a cursor left open and
 * still referenced is left alone. Thread-safe.
 */
final class CursorReaper {
    private static final System.Logger LOG = System.getLogger(CursorReaper.class.getName());

    private final ReferenceQueue<StoreCursor> queue = new ReferenceQueue<>();
    /** Keeps each registration reachable until its cursor is closed or reaped. */
    private final Set<Registration> live = ConcurrentHashMap.newKeySet();

    /** A cursor's iterator, closed if the cursor is collected unclosed. */
    final class Registration extends PhantomReference<StoreCursor> {
        private final UserIterator iterator;

        private Registration(StoreCursor cursor, UserIterator iterator) {
            super(cursor, queue);
            this.iterator = iterator;
        }

        /** The cursor was closed by its user: nothing left to reap. */
        void closed() {
            live.remove(this);
            clear();
        }
    }

    /** Watches {@code cursor}, whose resources {@code iterator} holds (and must not refer back to the cursor). */
    Registration watch(StoreCursor cursor, UserIterator iterator) {
        Registration r = new Registration(cursor, iterator);
        live.add(r);
        return r;
    }

    /** Closes the iterators of cursors collected without being closed; how many there were. */
    int reap() {
        int reaped = 0;
        for (Reference<? extends StoreCursor> r = queue.poll(); r != null; r = queue.poll()) {
            Registration registration = (Registration) r;
            if (live.remove(registration)) {
                reaped++;
                try {
                    registration.iterator.close();
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "freeing an unclosed cursor failed", e);
                }
            }
        }
        if (reaped > 0) {
            LOG.log(System.Logger.Level.WARNING, reaped + " cursor(s) were garbage-collected without being closed;"
                    + " what they held is freed now, but close every KvCursor (try-with-resources) so that"
                    + " memtables are purged and files deleted without waiting for the collector");
        }
        return reaped;
    }
}
