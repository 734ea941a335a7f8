package dev.lacuna.lsm;

import java.util.Map;
import java.util.TreeMap;

/**
 * The sequence numbers of live {@link dev.lacuna.kv.KvSnapshot}s. Compactions keep, for every snapshot, the version
 * of each key it can see. Thread-safe.
 */
final class Snapshots {
    private final TreeMap<Long, Integer> live = new TreeMap<>();
    /**
     * The distinct sequences of {@link #live}, ascending, replaced whole at each change: {@link #anyIn} reads it
     * without the monitor, as a memtable does at each write that overwrites a key ({@link Memtable#add}).
     */
    private volatile long[] sequences = new long[0];

    synchronized void acquire(long sequence) {
        live.merge(sequence, 1, Integer::sum);
        // By the array, not the count: a rebuild that ran out of memory must not leave a later snapshot at the same
        // sequence out of it (SnapshotsAcquireFailureReviewTest). A failed one is not counted: its snapshot was not made.
        if (java.util.Arrays.binarySearch(sequences, sequence) < 0) {
            try {
                sequences = toArray();
            } catch (OutOfMemoryError e) {
                live.computeIfPresent(sequence, (s, n) -> n == 1 ? null : n - 1);
                throw e;
            }
        }
    }

    synchronized void release(long sequence) {
        if (live.computeIfPresent(sequence, (s, n) -> n == 1 ? null : n - 1) == null) {
            sequences = toArray();
        }
    }

    /** Live snapshot sequences, ascending, one per distinct sequence. */
    synchronized long[] toArray() {
        long[] out = new long[live.size()];
        int i = 0;
        for (Map.Entry<Long, Integer> e : live.entrySet()) {
            out[i++] = e.getKey();
        }
        return out;
    }

    /**
     * Whether a live snapshot's sequence is in {@code [from, to)}; takes no lock. Asked about versions that a newer one
     * visible to every reader hides ({@code to} at or below a sequence visible before the call): a snapshot in that
     * range was taken before {@code to} was visible, so it is in the array read here unless it was released since.
     */
    boolean anyIn(long from, long to) {
        long[] all = sequences;
        int i = java.util.Arrays.binarySearch(all, from);
        int at = i >= 0 ? i : -i - 1; // the first sequence at or above from
        return at < all.length && all[at] < to;
    }

    /** The oldest live snapshot, or {@link Long#MAX_VALUE} if there is none. */
    synchronized long oldest() {
        return live.isEmpty() ? Long.MAX_VALUE : live.firstKey();
    }

    synchronized int count() {
        return live.values().stream().mapToInt(Integer::intValue).sum();
    }
}
