package dev.lacuna.lsm;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * One partition's LSM tree: its active memtable, the frozen memtables waiting to be flushed (newest
 * first), and flags that keep at most one flush and one compaction of it running. Its SSTables live in
 * the {@link VersionSet}. Thread-safe: state changes are made under this object's monitor and readers
 * take a consistent {@link View}.
 */
final class Tree {
    /**
     * What a reader reads: memtables and the referenced version. Closing releases the version.
     *
     * @param tree       the tree's id
     * @param mem        the active memtable (may receive newer writes; readers filter by sequence)
     * @param immutables frozen memtables, newest first
     * @param version    the tree's SSTables, referenced
     * @param latest     the latest visible sequence, read while the view was taken: every write up to it
     *                   is in the view, and no flush can have dropped a version a read at it needs
     */
    record View(int tree, Memtable mem, List<Memtable> immutables, Version version, long latest)
            implements AutoCloseable {
        @Override
        public void close() {
            version.unref();
        }
    }

    final int id;
    /** Set when its keyspace is being dropped: no compaction starts any more. */
    volatile boolean dropped;
    private Memtable mem = new Memtable();
    private List<Memtable> immutables = List.of();
    private boolean flushRunning;
    private boolean compactionRunning;
    private boolean flushSlot;      // a flush job is queued or running
    private boolean compactionSlot; // a compaction job is queued or running
    private boolean compactionAskedAgain; // asked for while the slot was taken: run again after
    private final byte[][] compactPointer = new byte[Version.LEVELS][];

    Tree(int id) {
        this.id = id;
    }

    /**
     * A view of the tree. {@code latest} is read inside the tree's monitor, after the memtables and the
     * version are taken: a memtable switch needs the monitor, so every write published up to that
     * sequence sits in the memtables or tables taken; and a flush that completed before could only drop
     * versions older than what a read at that sequence sees.
     */
    synchronized View view(VersionSet versions, LongSupplier latest) {
        Version version = versions.acquire(id);
        return new View(id, mem, immutables, version, latest.getAsLong());
    }

    /** A view for reads at a snapshot, or for internal use. */
    View view(VersionSet versions) {
        return view(versions, () -> -1);
    }

    /** The active memtable; the caller holds the commit lock, so it is not switched meanwhile. */
    synchronized Memtable mem() {
        return mem;
    }

    /** Freezes the active memtable (if it holds anything) and starts a new one. Called under the commit lock. */
    synchronized boolean switchMemtable() {
        if (mem.isEmpty()) {
            return false;
        }
        mem.freeze();
        List<Memtable> next = new ArrayList<>(immutables.size() + 1);
        next.add(mem);
        next.addAll(immutables);
        immutables = List.copyOf(next);
        mem = new Memtable();
        return true;
    }

    /** Puts deleted again in the active memtable. */
    synchronized int activeDeadPairs() {
        return mem.deadPairs();
    }

    /** Entries in the active memtable. */
    synchronized int activeEntries() {
        return mem.size();
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

    /** Ends a flush; if it succeeded, {@code flushed} leaves the frozen list (its data is in an SSTable now). */
    synchronized void endFlush(Memtable flushed, boolean succeeded) {
        flushRunning = false;
        if (succeeded) {
            List<Memtable> next = new ArrayList<>(immutables);
            next.remove(flushed);
            immutables = List.copyOf(next);
        }
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
