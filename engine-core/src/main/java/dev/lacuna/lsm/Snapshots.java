package dev.lacuna.lsm;

import java.util.Map;
import java.util.TreeMap;

/**
 * The sequence numbers of live {@link dev.lacuna.kv.KvSnapshot}s. Compactions keep, for every snapshot, the version
 * of each key it can see. Thread-safe.
 */
final class Snapshots {
    private final TreeMap<Long, Integer> live = new TreeMap<>();

    synchronized void acquire(long sequence) {
        live.merge(sequence, 1, Integer::sum);
    }

    synchronized void release(long sequence) {
        live.computeIfPresent(sequence, (s, n) -> n == 1 ? null : n - 1);
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

    /** Whether a live snapshot's sequence is in {@code [from, to)}. */
    synchronized boolean anyIn(long from, long to) {
        Long s = live.ceilingKey(from);
        return s != null && s < to;
    }

    /** The oldest live snapshot, or {@link Long#MAX_VALUE} if there is none. */
    synchronized long oldest() {
        return live.isEmpty() ? Long.MAX_VALUE : live.firstKey();
    }

    synchronized int count() {
        return live.values().stream().mapToInt(Integer::intValue).sum();
    }
}
