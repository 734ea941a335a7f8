package dev.lacuna.sstable;

import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;
import java.util.Arrays;

/**
 * A two-level iterator over a table (LevelDB's {@code TwoLevelIterator}): an iterator over the index
 * block picks a data block, an iterator over that block yields the entries. Every index key is ≥ the keys
 * of its block and &lt; those of the next, so {@code seek(t)} goes to the first block whose index key is ≥
 * t, and {@code seekForPrev(t)} to the same block (or the last, if none) and then backwards. Empty data
 * blocks (which writers never produce) are stepped over in both directions.
 *
 * <p>Returns every entry, versions and deletions alike. The current data block stays pinned while the
 * iterator is on it, so a seek within the same block neither consults the cache nor reads. Not thread-safe.
 */
final class SstableIterator implements InternalIterator {
    private final SstableReader table;
    private final boolean fillCache;
    private final BlockIterator index;
    private final BlockIterator data = new BlockIterator();
    /** Offset of the data block {@link #data} is on, or -1 if none. */
    private long dataBlockOffset = -1;
    private boolean closed;

    SstableIterator(SstableReader table, boolean fillCache) {
        this.table = table;
        this.fillCache = fillCache;
        this.index = table.indexBlock().iterator();
    }

    @Override
    public boolean valid() {
        return data.valid();
    }

    @Override
    public void seekToFirst() {
        index.seekToFirst();
        loadDataBlock();
        if (dataBlockOffset >= 0) {
            data.seekToFirst();
        }
        skipEmptyBlocksForward();
    }

    @Override
    public void seekToLast() {
        index.seekToLast();
        loadDataBlock();
        if (dataBlockOffset >= 0) {
            data.seekToLast();
        }
        skipEmptyBlocksBackward();
    }

    @Override
    public void seek(byte[] target) {
        BlockIterator.checkTarget(target);
        index.seek(target);
        loadDataBlock();
        if (dataBlockOffset >= 0) {
            data.seek(target);
        }
        skipEmptyBlocksForward();
    }

    @Override
    public void seekForPrev(byte[] target) {
        BlockIterator.checkTarget(target);
        // The last key <= target is in the first block whose index key is >= target, or before it.
        index.seek(target);
        if (!index.valid()) {
            index.seekToLast();
        }
        loadDataBlock();
        if (dataBlockOffset >= 0) {
            data.seekForPrev(target);
        }
        skipEmptyBlocksBackward();
    }

    @Override
    public void next() {
        requireValid();
        data.next();
        skipEmptyBlocksForward();
    }

    @Override
    public void prev() {
        requireValid();
        data.prev();
        skipEmptyBlocksBackward();
    }

    @Override
    public byte[] key() {
        requireValid();
        return data.key();
    }

    @Override
    public byte[] keyBuffer() {
        return data.keyBuffer();
    }

    @Override
    public int keyLength() {
        return data.keyLength();
    }

    @Override
    public byte[] value() {
        requireValid();
        return data.value();
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            data.close();
            index.close();
            dataBlockOffset = -1;
        }
    }

    /** Whether the current entry's user key equals {@code userKey}, without copying. */
    boolean currentUserKeyEquals(byte[] userKey) {
        int userLength = data.keyLength() - InternalKey.TRAILER_SIZE;
        return Arrays.equals(data.keyBuffer(), 0, userLength, userKey, 0, userKey.length);
    }

    private void skipEmptyBlocksForward() {
        while (!data.valid()) {
            if (!index.valid()) {
                clearData();
                return;
            }
            index.next();
            loadDataBlock();
            if (dataBlockOffset < 0) {
                return;
            }
            data.seekToFirst();
        }
    }

    private void skipEmptyBlocksBackward() {
        while (!data.valid()) {
            if (!index.valid()) {
                clearData();
                return;
            }
            index.prev();
            loadDataBlock();
            if (dataBlockOffset < 0) {
                return;
            }
            data.seekToLast();
        }
    }

    /** Points {@link #data} at the block the index is on (unpositioned), or at none if the index is not valid. */
    private void loadDataBlock() {
        if (closed) {
            throw new IllegalStateException("iterator is closed");
        }
        if (!index.valid()) {
            clearData();
            return;
        }
        BlockHandle handle = table.handleAt(index);
        if (handle.offset() == dataBlockOffset) {
            data.reset(data.block()); // same block: keep it, just unposition
            return;
        }
        data.reset(table.dataBlock(handle, fillCache));
        dataBlockOffset = handle.offset();
    }

    private void clearData() {
        data.reset(null);
        dataBlockOffset = -1;
    }

    private void requireValid() {
        if (!data.valid()) {
            throw new IllegalStateException("iterator is not positioned on an entry");
        }
    }
}
