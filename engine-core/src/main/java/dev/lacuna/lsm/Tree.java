package dev.lacuna.lsm;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * One partition's LSM tree: its active memtable, the frozen memtables waiting to be flushed (newest
 * first), and flags that keep at most one flush and one compaction of it running. Its SSTables live in
 * the {@link VersionSet}, which tells the tree of each new version of them ({@link #installVersion}).
 * Thread-safe: state changes are made under this object's monitor, and each publishes a new {@link View}
 * that readers take without any lock ({@link #acquire}, and for a point read {@link #borrow}).
 */
final class Tree {
    /**
     * What a reader reads (RocksDB's super-version): the memtables and the version of one moment, immutable,
     * published through a volatile field. Reference-counted: the tree holds one reference while the view is
     * current, and each reader one until it closes the view; the last release releases the version, so no
     * file the view names is deleted while someone reads it ({@link Version}). A count of zero is final: a
     * reader that finds it so takes the newer view instead.
     */
    static final class Shared {
        private final int tree;
        private final Memtable mem;
        private final List<Memtable> immutables;
        private final Version version;
        private final AtomicInteger refs = new AtomicInteger(1); // the tree's, while current

        /** Takes a reference to {@code version} of its own. */
        private Shared(int tree, Memtable mem, List<Memtable> immutables, Version version) {
            this.tree = tree;
            this.mem = mem;
            this.immutables = immutables;
            this.version = version;
            version.ref();
            mem.viewOpened();
            immutables.forEach(Memtable::viewOpened);
        }

        /** Takes a reference unless the view was released for good; returns whether it did. */
        private boolean tryRef() {
            while (true) {
                int r = refs.get();
                if (r == 0) {
                    return false;
                }
                if (refs.compareAndSet(r, r + 1)) {
                    return true;
                }
            }
        }

        private void unref() {
            int left = refs.decrementAndGet();
            if (left == 0) {
                mem.viewClosed();
                immutables.forEach(Memtable::viewClosed);
                version.unref();
            } else if (left < 0) {
                throw new IllegalStateException("view of tree " + tree + " released more often than referenced");
            }
        }

        /** The active memtable of the moment (it may receive newer writes; readers filter by sequence). */
        Memtable mem() {
            return mem;
        }

        /** Frozen memtables, newest first. */
        List<Memtable> immutables() {
            return immutables;
        }

        /** The tree's SSTables, referenced as long as the view is. */
        Version version() {
            return version;
        }
    }

    /**
     * One reader's use of a view, from {@link Tree#acquire} to {@link #close}. Each acquire gets its own, so
     * that a second close is refused (it would drop another reader's or the tree's reference: the view's
     * version could be released while it is still current, and every later acquire would spin on its count
     * of zero). Its close may come from any thread (a cursor reaper's, say).
     */
    static final class View implements AutoCloseable {
        private final Shared shared;
        private boolean closed; // guarded by this view's monitor

        private View(Shared shared) {
            this.shared = shared;
        }

        /** The tree's id. */
        int tree() {
            return shared.tree;
        }

        /** The active memtable of the moment (it may receive newer writes; readers filter by sequence). */
        Memtable mem() {
            return shared.mem;
        }

        /** Frozen memtables, newest first. */
        List<Memtable> immutables() {
            return shared.immutables;
        }

        /** The tree's SSTables, referenced as long as the view is. */
        Version version() {
            return shared.version;
        }

        /**
         * Ends this use of the view (once per {@link Tree#acquire}).
         *
         * @throws IllegalStateException if it was closed already; nothing is released then
         */
        @Override
        public void close() {
            synchronized (this) {
                if (closed) {
                    throw new IllegalStateException("view of tree " + shared.tree + " released twice");
                }
                closed = true;
            }
            shared.unref();
        }
    }

    final int id;
    /** Set when its keyspace is being dropped: no compaction starts any more. */
    volatile boolean dropped;
    private Memtable mem = new Memtable();
    private List<Memtable> immutables = List.of();
    /** The current version of the tree's tables, referenced; set by {@link #installVersion}. */
    private Version version;
    /** The view readers take; replaced (under the monitor) by every change of the three fields above. */
    private volatile Shared current;
    /**
     * References to the current view kept for point reads, one slot per stripe of threads (by thread id), each a
     * cache line from the next: RocksDB's per-thread super-version. A point read takes its slot's view and gives it
     * back ({@link #borrow}, {@link #giveBack}) with two atomic operations on a line its own core holds, where
     * {@link #acquire} and a close change the count every reader shares, whose line then moved between the readers'
     * cores at every read. A slot holds a view with a reference of its own, the thread that borrowed from it (until
     * it gives back), or null. Every new view empties the slots ({@link #release}), so no slot keeps an old view,
     * its memtables or its files for longer than a read of it.
     */
    private final AtomicReferenceArray<Object> slots = new AtomicReferenceArray<>(SLOTS * SLOT_SPACING);
    private static final int SLOTS = 16;
    private static final int SLOT_SPACING = 16; // references: 64 bytes or more
    private boolean flushRunning;
    private boolean compactionRunning;
    private boolean flushSlot;      // a flush job is queued or running
    private boolean compactionSlot; // a compaction job is queued or running
    private boolean compactionAskedAgain; // asked for while the slot was taken: run again after
    private final byte[][] compactPointer = new byte[Version.LEVELS][];

    private Tree(int id) {
        this.id = id;
    }

    /**
     * Tree {@code id}, told of every version of its tables {@code versions} installs from now on (and given
     * the current one at once), so that its view always holds the current version.
     */
    static Tree open(int id, VersionSet versions) {
        Tree tree = new Tree(id);
        versions.subscribe(id, tree::installVersion);
        return tree;
    }

    /**
     * The current view, referenced for the caller, who closes it. Takes no lock: the view is read from a
     * volatile field and referenced with a compare-and-set, which fails only if the view was replaced and
     * released meanwhile (then the newer one is taken).
     */
    View acquire() {
        while (true) {
            Shared v = current;
            if (v.tryRef()) {
                return new View(v);
            }
        }
    }

    /**
     * The current view, referenced for a short read on this thread, which gives it back with {@link #giveBack} on the
     * same thread, once. Takes the reference its thread's slot holds when that is the current view's: then no count
     * another core reads changes.
     */
    Shared borrow() {
        Thread me = Thread.currentThread();
        Object held = slots.getAndSet(slot(me), me); // before current is read: see release
        Shared v = current;
        if (held == v) {
            return v; // the slot's reference is the reader's now
        }
        if (held instanceof Shared old) {
            old.unref();
        }
        while (!v.tryRef()) {
            v = current;
        }
        return v;
    }

    /**
     * Ends a read of {@code view}, which {@link #borrow} gave this thread: its reference goes to the thread's slot,
     * or is dropped if the slot changed meanwhile (a new view emptied it, or another thread of its stripe took it).
     */
    void giveBack(Shared view) {
        Thread me = Thread.currentThread();
        if (!slots.compareAndSet(slot(me), me, view)) {
            view.unref();
        }
    }

    private static int slot(Thread thread) {
        return (int) (thread.getId() % SLOTS) * SLOT_SPACING;
    }

    /** Whether {@code view} (from {@link #borrow}) is still the current one: see {@link #isCurrent(View)}. */
    boolean isCurrent(Shared view) {
        return current == view;
    }

    /**
     * Whether {@code view} is still the current one. A read at the latest sequence takes the view, then reads
     * the visible sequence, then checks this: if true, every write visible at that sequence is in the view.
     * A write goes into the active memtable of the view current when it is made, before it becomes visible;
     * a later view holds that memtable or (after its flush) the table made of it. The other order (the
     * sequence first) would be wrong: a flush that ran in between may have dropped a version the read needs,
     * hidden by one made visible after the sequence was read.
     */
    boolean isCurrent(View view) {
        return current == view.shared;
    }

    /**
     * Makes {@code next} the tree's version and publishes a view with it. Called by the {@link VersionSet}
     * under its monitor whenever it installs a version of this tree, after it made {@code next} current and
     * before it drops its own reference to the one replaced.
     */
    private void installVersion(Version next) {
        Version previous;
        Shared old;
        synchronized (this) {
            next.ref();
            previous = version;
            version = next;
            old = publish();
        }
        release(old);
        if (previous != null) {
            previous.unref();
        }
    }

    /**
     * Publishes a view of the fields as they are now; returns the one it replaces, whose tree reference the
     * caller drops with {@link #release} once out of the monitor: the last release of a view releases its
     * version, which takes the version set's monitor, and the version set calls {@link #installVersion}
     * holding it, so this monitor is never held while that one is taken.
     */
    private Shared publish() {
        Shared old = current;
        current = new Shared(id, mem, immutables, version);
        return old;
    }

    /**
     * Drops the tree's reference to the view {@link #publish} replaced, and empties the point reads' slots, after the
     * publish: a read that takes a slot before this empties it finds its give-back refused and drops its reference
     * itself, and one that takes it after finds the new view current. So no slot keeps a replaced view.
     */
    private void release(Shared old) {
        for (int i = 0; i < SLOTS; i++) {
            if (slots.getAndSet(i * SLOT_SPACING, null) instanceof Shared held) {
                held.unref();
            }
        }
        if (old != null) {
            old.unref();
        }
    }

    /** The active memtable; the caller holds the commit lock, so it is not switched meanwhile. */
    synchronized Memtable mem() {
        return mem;
    }

    /**
     * Makes {@code recovered} (built by recovery, {@link Memtable#recovered}) the active memtable in place of the
     * empty one the tree started with. Called while the store opens, before any write or read.
     */
    void installRecovered(Memtable recovered) {
        Shared old;
        synchronized (this) {
            if (!mem.isEmpty() || !immutables.isEmpty()) {
                throw new IllegalStateException("tree " + id + " already holds writes");
            }
            mem = recovered;
            old = publish();
        }
        release(old);
    }

    /**
     * Freezes the active memtable (if it holds anything) for {@code reason} and starts a new one. Called under the
     * commit lock.
     */
    boolean switchMemtable(FlushReason reason) {
        Shared old;
        synchronized (this) {
            if (mem.isEmpty()) {
                return false;
            }
            mem.freeze(reason);
            List<Memtable> next = new ArrayList<>(immutables.size() + 1);
            next.add(mem);
            next.addAll(immutables);
            immutables = List.copyOf(next);
            mem = new Memtable();
            old = publish();
        }
        release(old);
        return true;
    }

    /**
     * Like {@link #switchMemtable}, but the keys whose newest version is above {@code keepAbove} go on in the
     * new active memtable (copied whole, see {@link Memtable#carryNewerThan}) instead of to the flush: for a
     * keyspace derived from the log, whose consumer's checkpoint at {@code keepAbove} needs only the others in
     * files. A memtable of more than {@code maxScan} entries is frozen whole instead (the copy walks it under
     * the commit lock). Called under the commit lock.
     *
     * @return the bytes the new memtable starts with (0 if nothing was carried), or -1 if nothing was frozen
     */
    long switchMemtableKeeping(long keepAbove, int maxScan) {
        return switchCarrying(m -> m.maxSequence() > keepAbove && m.liveEntries() <= maxScan ? m.carryNewerThan(keepAbove)
                : new Memtable(), FlushReason.KEYSPACE_FLUSH);
    }

    /**
     * Like {@link #switchMemtable}, but the keys whose only version is a put go on in the new active memtable (see
     * {@link Memtable#carryLive}) instead of to the flush: for a freeze called by dead entries, which must not push a
     * queue's open entries into files. Frozen whole instead if it holds a logged write, or more than {@code maxScan}
     * entries. Called under the commit lock, with no insert in flight.
     *
     * @return the bytes the new memtable starts with (0 if nothing was carried), or -1 if nothing was frozen
     */
    long switchMemtableCarryingLive(int maxScan, FlushReason reason) {
        return switchCarrying(m -> !m.logged() && m.liveEntries() <= maxScan ? carryLiveOrNot(m) : new Memtable(), reason);
    }

    /**
     * {@link Memtable#carryLive}, or an empty memtable (the whole frozen) if the copy finds no memory: carrying is
     * an optimisation, and the write that called for the freeze is already applied, so the freeze must not fail it.
     */
    private static Memtable carryLiveOrNot(Memtable m) {
        try {
            return m.carryLive();
        } catch (OutOfMemoryError e) {
            return new Memtable(); // m is left unmarked (carryLive marks it only once its copy is made)
        }
    }

    private long switchCarrying(java.util.function.UnaryOperator<Memtable> carry, FlushReason reason) {
        Shared old;
        long carried;
        synchronized (this) {
            if (mem.isEmpty()) {
                return -1;
            }
            Memtable next = carry.apply(mem);
            carried = next.bytes();
            mem.freeze(reason);
            List<Memtable> frozen = new ArrayList<>(immutables.size() + 1);
            frozen.add(mem);
            frozen.addAll(immutables);
            immutables = List.copyOf(frozen);
            Memtable frozenOne = mem;
            mem = next;
            old = publish();
            // Last, once nothing is left to fail: a carry marked before a failure here left the memtable active,
            // or frozen, without its carried keys in the flush nor in a next memtable (review of 09e6cfd).
            frozenOne.confirmCarry();
        }
        release(old);
        return carried;
    }

    /** Puts deleted again in the active memtable. */
    synchronized int activeDeadPairs() {
        return mem.deadPairs();
    }

    /** Deletions in the active memtable (those added, less those a purge removed with their puts). */
    synchronized long activeDeletions() {
        return mem.deletionsAdded() - mem.purgedPairs();
    }

    synchronized int immutableCount() {
        return immutables.size();
    }

    /** Bytes held by the active and frozen memtables. */
    synchronized long memoryBytes() {
        long total = mem.bytes();
        for (Memtable m : immutables) {
            total += m.bytes();
        }
        return total;
    }

    synchronized long activeBytes() {
        return mem.bytes();
    }

    /**
     * Smallest sequence number not yet in an SSTable, counting {@code flushing} as flushed, or
     * {@link Long#MAX_VALUE} if every write is.
     */
    synchronized long oldestUnflushedSequence(Memtable flushing) {
        long oldest = mem.minSequence();
        for (Memtable m : immutables) {
            if (m != flushing) {
                oldest = Math.min(oldest, m.minSequence());
            }
        }
        return oldest;
    }

    synchronized boolean claimFlushSlot() {
        if (flushSlot) {
            return false;
        }
        flushSlot = true;
        return true;
    }

    synchronized void releaseFlushSlot() {
        flushSlot = false;
    }

    synchronized boolean claimCompactionSlot() {
        if (compactionSlot) {
            compactionAskedAgain = true;
            return false;
        }
        compactionSlot = true;
        return true;
    }

    /** Frees the slot; returns whether a compaction was asked for while it was taken. */
    synchronized boolean releaseCompactionSlot() {
        compactionSlot = false;
        boolean again = compactionAskedAgain;
        compactionAskedAgain = false;
        return again;
    }

    /** Claims the oldest frozen memtable for a flush, or returns null if there is none or a flush runs. */
    synchronized Memtable startFlush() {
        if (flushRunning || immutables.isEmpty()) {
            return null;
        }
        flushRunning = true;
        return immutables.get(immutables.size() - 1);
    }

    /**
     * Ends a flush; if it succeeded, {@code flushed} leaves the frozen list (its data is in an SSTable now:
     * the version holding that table was installed first, so no view lacks both).
     */
    void endFlush(Memtable flushed, boolean succeeded) {
        Shared old = null;
        synchronized (this) {
            flushRunning = false;
            if (succeeded) {
                List<Memtable> next = new ArrayList<>(immutables);
                next.remove(flushed);
                immutables = List.copyOf(next);
                old = publish();
                flushed.flushedOut(); // after the publish: no new reader finds it any more
            }
        }
        release(old);
    }

    synchronized boolean flushRunning() {
        return flushRunning;
    }

    synchronized boolean tryStartCompaction() {
        if (compactionRunning) {
            return false;
        }
        compactionRunning = true;
        return true;
    }

    synchronized void endCompaction() {
        compactionRunning = false;
        notifyAll();
    }

    /**
     * Like {@link #awaitAndStartCompaction}, but gives up (returns false) once the tree is being dropped: a
     * drop claims the compaction slot for good, so a manual compaction that reaches a dropped tree after
     * taking its list of trees would otherwise wait forever. A drop marks the tree before it waits for the
     * slot, and every end of a compaction wakes the waiters, so a waiter sees the mark.
     */
    synchronized boolean awaitAndStartCompactionUnlessDropped() throws InterruptedException {
        while (true) {
            if (dropped) {
                return false;
            }
            if (!compactionRunning) {
                compactionRunning = true;
                return true;
            }
            wait();
        }
    }

    /** Waits until no compaction of this tree runs and claims the right to run one. */
    synchronized void awaitAndStartCompaction() throws InterruptedException {
        while (compactionRunning) {
            wait();
        }
        compactionRunning = true;
    }

    synchronized byte[] compactPointer(int level) {
        return compactPointer[level];
    }

    synchronized void setCompactPointer(int level, byte[] key) {
        compactPointer[level] = key;
    }
}
