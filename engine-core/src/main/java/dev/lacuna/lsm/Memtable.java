package dev.lacuna.lsm;

import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The in-memory write buffer of one LSM tree: a concurrent skip list of internal keys. Writers insert
 * under the engine's commit lock; readers iterate concurrently without locks. Once full it is frozen
 * ({@link #freeze()}) and handed to a flush, while a new memtable takes the writes.
 *
 * <p>Entries are never removed: a reader holding the memtable sees every version it saw before.
 */
final class Memtable {
    /** Approximate per-entry cost of the skip list node, index levels and the two arrays' headers. */
    private static final int ENTRY_OVERHEAD = 64;

    private final ConcurrentSkipListMap<byte[], byte[]> entries = new ConcurrentSkipListMap<>(InternalKey.COMPARATOR);
    private final AtomicLong bytes = new AtomicLong();
    private volatile long minSequence = Long.MAX_VALUE;
    private volatile long maxSequence;
    private volatile boolean frozen;
    private int deadPairs; // deletions that found a put of their key in this memtable; under the commit lock

    /** Adds an entry. The caller serialises adds (the commit lock) and never adds to a frozen memtable. */
    void add(byte[] userKey, long sequence, int kind, byte[] value) {
        assert !frozen;
        if (kind != InternalKey.KIND_PUT) {
            byte[][] newest = get(userKey, InternalKey.MAX_SEQUENCE);
            if (newest != null && !InternalKey.isDeletion(newest[0])) {
                deadPairs++;
            }
        }
        entries.put(InternalKey.encode(userKey, sequence, kind), value);
        bytes.addAndGet(userKey.length + InternalKey.TRAILER_SIZE + value.length + ENTRY_OVERHEAD);
        if (sequence < minSequence) {
            minSequence = sequence;
        }
        if (sequence > maxSequence) {
            maxSequence = sequence;
        }
    }

    /**
     * The newest entry for {@code userKey} with sequence ≤ {@code snapshot}, or null.
     *
     * @return {internalKey, value}
     */
    byte[][] get(byte[] userKey, long snapshot) {
        Map.Entry<byte[], byte[]> e = entries.ceilingEntry(InternalKey.seekKey(userKey, snapshot));
        if (e == null || InternalKey.compareUserKey(e.getKey(), userKey) != 0) {
            return null;
        }
        return new byte[][] {e.getKey(), e.getValue()};
    }

    /** Deletions that found a put of their key here: entries a scan would step over until a flush drops them. */
    int deadPairs() {
        return deadPairs;
    }

    /** Approximate memory used. */
    long bytes() {
        return bytes.get();
    }

    boolean isEmpty() {
        return entries.isEmpty();
    }

    int size() {
        return entries.size();
    }

    /** Smallest sequence number held, {@link Long#MAX_VALUE} if empty. */
    long minSequence() {
        return minSequence;
    }

    /** Largest sequence number held, 0 if empty. */
    long maxSequence() {
        return maxSequence;
    }

    /** Marks the memtable read-only, ready for flushing. */
    void freeze() {
        frozen = true;
    }

    boolean isFrozen() {
        return frozen;
    }

    /** An iterator over every entry; see {@link InternalIterator}. */
    InternalIterator iterator() {
        return new MemtableIterator(entries);
    }

    /**
     * Walks the skip list with a {@link java.util.Iterator} in the current direction (constant time per
     * step) and re-positions through a sub-map view when the direction changes or on a seek.
     */
    private static final class MemtableIterator implements InternalIterator {
        private final ConcurrentSkipListMap<byte[], byte[]> map;
        private Iterator<Map.Entry<byte[], byte[]>> it;
        private Map.Entry<byte[], byte[]> current;
        private boolean forward = true;

        MemtableIterator(ConcurrentSkipListMap<byte[], byte[]> map) {
            this.map = map;
        }

        @Override
        public boolean valid() {
            return current != null;
        }

        @Override
        public void seekToFirst() {
            start(map, true);
        }

        @Override
        public void seekToLast() {
            start(map.descendingMap(), false);
        }

        @Override
        public void seek(byte[] target) {
            start(map.tailMap(target, true), true);
        }

        @Override
        public void seekForPrev(byte[] target) {
            start(map.headMap(target, true).descendingMap(), false);
        }

        @Override
        public void next() {
            if (!forward) {
                start(map.tailMap(current.getKey(), false), true);
                return;
            }
            current = it.hasNext() ? it.next() : null;
        }

        @Override
        public void prev() {
            if (forward) {
                start(map.headMap(current.getKey(), false).descendingMap(), false);
                return;
            }
            current = it.hasNext() ? it.next() : null;
        }

        @Override
        public byte[] key() {
            return current.getKey();
        }

        @Override
        public byte[] value() {
            return current.getValue();
        }

        @Override
        public void close() {
            current = null;
            it = null;
        }

        private void start(NavigableMap<byte[], byte[]> view, boolean forward) {
            this.forward = forward;
            it = view.entrySet().iterator();
            current = it.hasNext() ? it.next() : null;
        }
    }
}
