package dev.lacuna.lsm;

import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;
import java.util.List;

/**
 * Merges sorted children into one sorted stream, forward or backward, with a binary heap keyed on each
 * child's current key. Changing direction re-positions every other child around the current key, as
 * LevelDB's merging iterator does. Children must not hold the same internal key twice (the engine never
 * reads an SSTable together with the memtable it was flushed from). Closes its children.
 */
final class MergingIterator implements InternalIterator {
    private final InternalIterator[] children;
    private final byte[][] keys; // each child's current key, or null if it is not valid
    private final int[] heap;
    private int heapSize;
    private boolean forward = true;

    MergingIterator(List<InternalIterator> children) {
        this.children = children.toArray(new InternalIterator[0]);
        this.keys = new byte[this.children.length][];
        this.heap = new int[this.children.length];
    }

    @Override
    public boolean valid() {
        return heapSize > 0;
    }

    @Override
    public void seekToFirst() {
        for (InternalIterator c : children) {
            c.seekToFirst();
        }
        rebuild(true);
    }

    @Override
    public void seekToLast() {
        for (InternalIterator c : children) {
            c.seekToLast();
        }
        rebuild(false);
    }

    @Override
    public void seek(byte[] target) {
        for (InternalIterator c : children) {
            c.seek(target);
        }
        rebuild(true);
    }

    @Override
    public void seekForPrev(byte[] target) {
        for (InternalIterator c : children) {
            c.seekForPrev(target);
        }
        rebuild(false);
    }

    @Override
    public void next() {
        if (!forward) {
            // Every other child must move to the first entry after the current key.
            byte[] key = key();
            int top = heap[0];
            for (int i = 0; i < children.length; i++) {
                if (i != top) {
                    children[i].seek(key);
                    if (children[i].valid() && InternalKey.compare(children[i].key(), key) == 0) {
                        children[i].next();
                    }
                }
            }
            rebuild(true);
        }
        int top = heap[0];
        children[top].next();
        refreshTop(top);
    }

    @Override
    public void prev() {
        if (forward) {
            byte[] key = key();
            int top = heap[0];
            for (int i = 0; i < children.length; i++) {
                if (i != top) {
                    children[i].seekForPrev(key);
                    if (children[i].valid() && InternalKey.compare(children[i].key(), key) == 0) {
                        children[i].prev();
                    }
                }
            }
            rebuild(false);
        }
        int top = heap[0];
        children[top].prev();
        refreshTop(top);
    }

    @Override
    public byte[] key() {
        return keys[heap[0]];
    }

    @Override
    public byte[] value() {
        return children[heap[0]].value();
    }

    @Override
    public void close() {
        RuntimeException error = null;
        for (InternalIterator c : children) {
            try {
                c.close();
            } catch (RuntimeException e) {
                if (error == null) {
                    error = e;
                } else {
                    error.addSuppressed(e);
                }
            }
        }
        heapSize = 0;
        if (error != null) {
            throw error;
        }
    }

    private void refreshTop(int child) {
        if (children[child].valid()) {
            keys[child] = children[child].key();
            siftDown(0);
        } else {
            keys[child] = null;
            heap[0] = heap[--heapSize];
            if (heapSize > 0) {
                siftDown(0);
            }
        }
    }

    private void rebuild(boolean forward) {
        this.forward = forward;
        heapSize = 0;
        for (int i = 0; i < children.length; i++) {
            if (children[i].valid()) {
                keys[i] = children[i].key();
                heap[heapSize++] = i;
            } else {
                keys[i] = null;
            }
        }
        for (int i = heapSize / 2 - 1; i >= 0; i--) {
            siftDown(i);
        }
    }

    /** Whether child {@code a} comes before child {@code b} in the current direction. */
    private boolean before(int a, int b) {
        int c = InternalKey.compare(keys[a], keys[b]);
        return forward ? c < 0 : c > 0;
    }

    private void siftDown(int i) {
        int item = heap[i];
        while (true) {
            int left = 2 * i + 1;
            if (left >= heapSize) {
                break;
            }
            int right = left + 1;
            int best = right < heapSize && before(heap[right], heap[left]) ? right : left;
            if (!before(heap[best], item)) {
                break;
            }
            heap[i] = heap[best];
            i = best;
        }
        heap[i] = item;
    }
}
