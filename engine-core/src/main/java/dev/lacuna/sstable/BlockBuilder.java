package dev.lacuna.sstable;

import java.util.Arrays;

/**
 * Builds the contents of a data or index block (LevelDB's block format, see FORMAT.md): each key is
 * stored as the number of bytes it shares with the previous key plus the rest, except at a restart point
 * (every {@code restartInterval} entries) where it is stored whole, so that a reader can binary-search the
 * restart points and decode forward from one.
 *
 * <pre>
 * entry    = shared varint32, unshared varint32, valueLength varint32, key[shared..], value
 * trailer  = restart u32 (offset of each restart entry) * n, n u32
 * </pre>
 *
 * The caller adds keys in strictly increasing order (the builder does not check). Not thread-safe; reused
 * across blocks through {@link #reset()}.
 */
final class BlockBuilder {
    private final int restartInterval;
    private final ByteSink buffer;
    private int[] restarts = new int[16];
    private int restartCount;
    private int sinceRestart;
    private int entries;
    private byte[] lastKey = new byte[64];
    private int lastKeyLength;
    private boolean finished;

    BlockBuilder(int restartInterval, int expectedSize) {
        if (restartInterval < 1) {
            throw new IllegalArgumentException("restartInterval must be positive: " + restartInterval);
        }
        this.restartInterval = restartInterval;
        this.buffer = new ByteSink(expectedSize + expectedSize / 4 + 64);
        reset();
    }

    /** Empties the builder for the next block. */
    void reset() {
        buffer.reset();
        restarts[0] = 0;
        restartCount = 1;
        sinceRestart = 0;
        entries = 0;
        lastKeyLength = 0;
        finished = false;
    }

    boolean isEmpty() {
        return entries == 0;
    }

    int entries() {
        return entries;
    }

    /** Appends an entry; {@code key} must sort after the previous key. */
    void add(byte[] key, byte[] value) {
        add(key, key.length, value, 0, value.length);
    }

    /** Appends an entry from array ranges; {@code key[0..keyLength)} must sort after the previous key. */
    void add(byte[] key, int keyLength, byte[] value, int valueOffset, int valueLength) {
        if (finished) {
            throw new IllegalStateException("block already finished");
        }
        int shared = 0;
        if (sinceRestart < restartInterval) {
            int max = Math.min(lastKeyLength, keyLength);
            int mismatch = Arrays.mismatch(lastKey, 0, max, key, 0, max);
            shared = mismatch < 0 ? max : mismatch;
        } else {
            if (restartCount == restarts.length) {
                restarts = Arrays.copyOf(restarts, restarts.length * 2);
            }
            restarts[restartCount++] = buffer.size();
            sinceRestart = 0;
        }
        int unshared = keyLength - shared;
        buffer.putVarint32(shared);
        buffer.putVarint32(unshared);
        buffer.putVarint32(valueLength);
        buffer.putBytes(key, shared, unshared);
        buffer.putBytes(value, valueOffset, valueLength);
        if (lastKey.length < keyLength) {
            lastKey = Arrays.copyOf(lastKey, Math.max(keyLength, lastKey.length * 2));
        }
        System.arraycopy(key, shared, lastKey, shared, unshared);
        lastKeyLength = keyLength;
        sinceRestart++;
        entries++;
    }

    /** Bytes the block would have if finished now. */
    int estimatedSize() {
        return buffer.size() + 4 * restartCount + 4;
    }

    /**
     * Appends the restart array and returns the finished contents: {@code array()[0..size())} of the
     * returned sink, valid until {@link #reset()}.
     */
    ByteSink finish() {
        if (!finished) {
            for (int i = 0; i < restartCount; i++) {
                buffer.putIntLE(restarts[i]);
            }
            buffer.putIntLE(restartCount);
            finished = true;
        }
        return buffer;
    }
}
