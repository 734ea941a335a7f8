package dev.lacuna.lsm;

import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;
import java.util.List;

/**
 * Merges sorted children into one sorted stream, forward or backward, with a binary heap keyed on each
 * child's current key. Changing direction re-positions every other child around the current key, as
 * LevelDB's merging iterator does. Two children may hold the same internal key (a key carried from a frozen
 * memtable into the next, {@code Memtable#carryLive}, is in both until the frozen one's flush; an index entry
 * applied again after a restart is in a table and a memtable): the stream then yields it once per child, next to
 * each other, and the user iterator reads the first. Closes its children.
 *
 * <p>The heap compares the children's keys in place ({@link InternalIterator#keyBuffer()}), so a step copies
 * no key out of its block: a child's buffer changes only when that child moves, and the heap re-reads a child's
 * key after every move of it. The top child's key is then at hand for {@link #keyBuffer()} too, which the user
 * iterator calls for every entry: the children are of several classes, and each call to one costs a dispatch.
 */
final class MergingIterator implements InternalIterator {
    private final InternalIterator[] children;
    /** Each valid child's current key, in {@code keys[i][0, lengths[i])}: read after every move of the child. */
    private final byte[][] keys;
    private final int[] lengths;
    private final int[] heap;
    private int heapSize;
    private boolean forward = true;

    MergingIterator(List<InternalIterator> children) {
        this.children = children.toArray(new InternalIterator[0]);
        this.keys = new byte[this.children.length][];
        this.lengths = new int[this.children.length];
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
                    if (children[i].valid() && compareKey(children[i], key) == 0) {
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
                    if (children[i].valid() && compareKey(children[i], key) == 0) {
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
        return children[heap[0]].key();
    }

    @Override
    public byte[] keyBuffer() {
        return keys[heap[0]];
    }

    @Override
    public int keyLength() {
        return lengths[heap[0]];
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
            readKey(child);
            siftDown(0);
        } else {
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
                readKey(i);
                heap[heapSize++] = i;
            }
        }
        for (int i = heapSize / 2 - 1; i >= 0; i--) {
            siftDown(i);
        }
    }

    private void readKey(int child) {
        keys[child] = children[child].keyBuffer();
        lengths[child] = children[child].keyLength();
    }

    private static int compareKey(InternalIterator child, byte[] key) {
        return InternalKey.compare(child.keyBuffer(), 0, child.keyLength(), key, 0, key.length);
    }

    /** Whether child {@code a} comes before child {@code b} in the current direction. */
    private boolean before(int a, int b) {
        int c = InternalKey.compare(keys[a], 0, lengths[a], keys[b], 0, lengths[b]);
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
