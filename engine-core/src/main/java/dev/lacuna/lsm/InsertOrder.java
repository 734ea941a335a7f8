package dev.lacuna.lsm;

/**
 * Publishes, in log order, writes whose memtable inserts run outside the commit lock (RocksDB's concurrent
 * memtable writes). Under the commit lock a writer appends its record and {@link #begin}s; it then inserts
 * without the lock, in parallel with other writers, and {@link #finish}es: a write reaches {@link Visibility}
 * only once every write begun before it has finished its inserts, so reads never see an LSN without every
 * earlier one, and a writer returns only once its own write is published (reads-your-writes).
 *
 * <p>{@link #drain} lets a holder of the commit lock wait until no insert is in flight ({@link CommitLock}):
 * with no write begun while it holds the lock, everything logged is then in the memtables and published, as
 * when the inserts ran under the lock. An unlogged apply (an index's entries) asks {@link #insertingInto} its
 * partitions instead, and drains only if a write in flight goes there or before it switches a memtable.
 * Thread-safe; lock order: commit lock, this, {@link Visibility}.
 */
final class InsertOrder {
    /** Spins before a writer whose write is not yet published parks: an earlier insert takes microseconds. */
    private static final int SPINS = 200;

    /** One write whose inserts may run outside the commit lock. */
    static final class Ticket {
        private long lsn;
        private boolean sync;
        /** The partitions (tree ids) its inserts go into; null if not told (then: any). */
        private int[] trees;
        private boolean inserted; // guarded by the InsertOrder
        private volatile boolean published;
    }

    private final Visibility visibility;
    /**
     * Writes begun and not yet published, in LSN order: a ring ({@link #first}, {@link #count}; its length a power of
     * two) that {@link #makeRoom} grows before a write's log reservation, so that {@link #begin}, between the
     * reservation and the log write, allocates nothing: an {@link OutOfMemoryError} there left the reserved record
     * to the next grouped write, which logged it while its writer was told it failed.
     */
    private Ticket[] inFlight = new Ticket[16];
    private int first;
    private int count;
    /** Threads waiting in {@link #finish} or {@link #drain}. */
    private int waiters;
    /** The LSN of the last write begun; written and read under the commit lock. */
    private long lastBegun;

    InsertOrder(Visibility visibility) {
        this.visibility = visibility;
    }

    /**
     * Under the commit lock, before a write's record is reserved in the log: makes room for its {@link #begin}, which
     * then allocates nothing (writers in flight only leave the queue meanwhile).
     */
    synchronized void makeRoom() {
        if (count == inFlight.length) {
            Ticket[] bigger = new Ticket[inFlight.length * 2];
            for (int i = 0; i < count; i++) {
                bigger[i] = at(i);
            }
            inFlight = bigger;
            first = 0;
        }
    }

    /**
     * Under the commit lock, right after {@code lsn} was appended: its inserts are in flight. The ticket is
     * made before the append, and room for it by {@link #makeRoom}, so that nothing here allocates.
     */
    synchronized void begin(Ticket ticket, long lsn, boolean sync) {
        begin(ticket, lsn, sync, null);
    }

    /** {@link #begin(Ticket, long, boolean)}, told the partitions ({@code trees}) its inserts go into. */
    synchronized void begin(Ticket ticket, long lsn, boolean sync, int[] trees) {
        while (count > 0 && at(count - 1).lsn >= lsn) {
            // The log handed out this LSN again: the writes at and after it failed their log write, and their
            // writers, not yet back in abandon, insert nothing. They are dropped unpublished.
            set(count - 1, null);
            count--;
        }
        ticket.lsn = lsn;
        ticket.sync = sync;
        ticket.trees = trees;
        makeRoom(); // a no-op when the caller made room first, as a writer does
        set(count, ticket);
        count++;
        lastBegun = lsn;
    }

    /**
     * Whether a write in flight has inserts still to make into one of {@code trees} (or did not say where its
     * go). Under the commit lock, so that no write begins meanwhile: if none has, none will until it is released.
     */
    boolean insertingInto(int[] trees) {
        if (visibility.isVisible(lastBegun)) {
            // Every write begun is published, so inserted: no need to enter the monitor, which the writer that
            // just woke the caller (an index updater, woken by its publication) may still hold in finish.
            return false;
        }
        synchronized (this) {
            return inFlightInto(trees);
        }
    }

    /** The {@code i}th write in flight, oldest first. */
    private Ticket at(int i) {
        return inFlight[(first + i) & (inFlight.length - 1)];
    }

    private void set(int i, Ticket t) {
        inFlight[(first + i) & (inFlight.length - 1)] = t;
    }

    private boolean inFlightInto(int[] trees) {
        for (int i = 0; i < count; i++) {
            Ticket t = at(i);
            if (t.inserted) {
                continue;
            }
            if (t.trees == null) {
                return true;
            }
            for (int a : t.trees) {
                for (int b : trees) {
                    if (a == b) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * The inserts of {@code ticket}'s write are done (or failed: it is published all the same, as a failed
     * insert under the lock left its record to be published by the next write): publishes every write at the
     * head of the queue whose inserts are done, then waits until {@code ticket}'s is published.
     */
    void finish(Ticket ticket) {
        synchronized (this) {
            ticket.inserted = true;
            boolean published = false;
            Ticket head;
            try {
                while (count > 0 && (head = at(0)).inserted) {
                    set(0, null);
                    first = (first + 1) & (inFlight.length - 1);
                    count--;
                    try {
                        visibility.logged(head.lsn, head.sync);
                    } finally {
                        head.published = true; // never leaves its writer waiting, even on an Error
                        published = true;
                    }
                }
            } finally {
                // Even when publishing threw: the writers already marked published must be woken.
                if (published && waiters > 0) {
                    notifyAll();
                }
            }
            if (ticket.published) {
                return;
            }
        }
        for (int i = 0; i < SPINS && !ticket.published; i++) {
            Thread.onSpinWait();
        }
        if (!ticket.published) {
            awaitPublished(ticket);
        }
    }

    private synchronized void awaitPublished(Ticket ticket) {
        boolean interrupted = false;
        waiters++;
        try {
            while (!ticket.published) {
                try {
                    wait(); // the writer before it is inserting: it publishes this one when done
                } catch (InterruptedException e) {
                    interrupted = true; // the write is logged: it must be published before its writer returns
                }
            }
        } finally {
            waiters--;
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The log write of {@code ticket}'s write failed: it was cut from the log with every write begun after it, so
     * it is dropped unpublished (its LSN is handed out again) and inserts nothing. Wakes a {@link #drain} waiting
     * for it.
     */
    synchronized void abandon(Ticket ticket) {
        for (int i = count - 1; i >= 0; i--) {
            if (at(i) == ticket) {
                for (int j = i; j < count - 1; j++) {
                    set(j, at(j + 1));
                }
                set(count - 1, null);
                count--;
                if (waiters > 0) {
                    notifyAll();
                }
                return;
            }
        }
    }

    /**
     * Waits until every write begun is published. Called holding the commit lock, so none begins meanwhile;
     * the writers it waits for need no lock to finish.
     */
    synchronized void drain() {
        if (count == 0) {
            return;
        }
        boolean interrupted = false;
        waiters++;
        try {
            while (count > 0) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true; // inserts in flight end in microseconds, and nothing may see them half done
                }
            }
        } finally {
            waiters--;
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Whether no write is in flight; for tests. */
    synchronized boolean idle() {
        return count == 0;
    }
}
