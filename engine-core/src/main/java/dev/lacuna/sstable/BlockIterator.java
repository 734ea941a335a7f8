package dev.lacuna.sstable;

import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;
import dev.lacuna.base.Varints;
import java.util.Arrays;

/**
 * Iterates the entries of one {@link Block}, in both directions (LevelDB's {@code Block::Iter}). Seeks
 * binary-search the restart points, whose keys are stored whole, then decode forward; {@link #prev()}
 * steps back to the restart point before the current entry and decodes forward to the entry before it.
 *
 * <p>The current key is decoded into a reusable buffer, so moving and comparing allocate nothing;
 * {@link #key()} and {@link #value()} copy. Entries are checked as they are decoded (lengths within the
 * block, keys of at least 8 bytes), so even a block that passed its checksum but is malformed gives a
 * {@link dev.lacuna.storage.CorruptionException}, never an index error. Not thread-safe; can be pointed at another
 * block with {@link #reset(Block)} to reuse its buffer.
 */
final class BlockIterator implements InternalIterator {
    private Block block;
    private byte[] data;
    private int restartsOffset;
    private int restartCount;

    /** Offset of the current entry; {@code restartsOffset} when not valid. */
    private int current;
    /** Offset just past the current entry's value: where the next entry starts. */
    private int nextOffset;
    /** Index of the restart point at or before {@link #current}. */
    private int restartIndex;
    /**
     * Offset of restart point {@code restartIndex + 1}, or {@code Integer.MAX_VALUE} if there is none: every step
     * checks whether it passed it, and reading it from the block's restart array each time cost more.
     */
    private int nextRestart = Integer.MAX_VALUE;
    private byte[] key = new byte[64];
    private int keyLength;
    private int valueOffset;
    private int valueLength;
    private boolean valid;

    /** An iterator over no block; {@link #reset(Block)} before use. */
    BlockIterator() {
    }

    /** Points the iterator at {@code block} (null for none), unpositioned. */
    void reset(Block newBlock) {
        block = newBlock;
        valid = false;
        keyLength = 0;
        if (newBlock == null) {
            data = null;
            restartsOffset = 0;
            restartCount = 0;
        } else {
            data = newBlock.data();
            restartsOffset = newBlock.restartsOffset();
            restartCount = newBlock.restartCount();
        }
        current = restartsOffset;
        setRestartIndex(restartCount);
    }

    @Override
    public boolean valid() {
        return valid;
    }

    @Override
    public void seekToFirst() {
        if (restartCount == 0) {
            markInvalid();
            return;
        }
        seekToRestartPoint(0);
        parseNextEntry();
    }

    @Override
    public void seekToLast() {
        if (restartCount == 0) {
            markInvalid();
            return;
        }
        seekToRestartPoint(restartCount - 1);
        while (parseNextEntry() && nextOffset < restartsOffset) {
            // decode forward to the last entry
        }
    }

    @Override
    public void seek(byte[] target) {
        checkTarget(target);
        if (restartCount == 0) {
            markInvalid();
            return;
        }
        // Find the last restart point whose key is < target; the first key >= target is at or after it.
        int left = 0;
        int right = restartCount - 1;
        while (left < right) {
            int mid = (left + right + 1) >>> 1;
            if (compareRestartKey(mid, target) < 0) {
                left = mid;
            } else {
                right = mid - 1;
            }
        }
        seekToRestartPoint(left);
        while (parseNextEntry()) {
            if (compareCurrent(target) >= 0) {
                return;
            }
        }
    }

    @Override
    public void seekForPrev(byte[] target) {
        seek(target);
        if (!valid) {
            seekToLast();
        } else if (compareCurrent(target) > 0) {
            prev();
        }
    }

    @Override
    public void next() {
        requireValid();
        parseNextEntry();
    }

    @Override
    public void prev() {
        requireValid();
        int original = current;
        while (block.restart(restartIndex) >= original) {
            if (restartIndex == 0) {
                markInvalid();
                return;
            }
            restartIndex--;
        }
        seekToRestartPoint(restartIndex);
        while (parseNextEntry() && nextOffset < original) {
            // decode forward to the entry just before the original one
        }
    }

    @Override
    public byte[] key() {
        requireValid();
        return Arrays.copyOf(key, keyLength);
    }

    @Override
    public byte[] value() {
        requireValid();
        return Arrays.copyOfRange(data, valueOffset, valueOffset + valueLength);
    }

    @Override
    public void close() {
        reset(null);
    }

    /** The buffer holding the current key in {@code [0, keyLength())}; overwritten by every move. */
    @Override
    public byte[] keyBuffer() {
        return key;
    }

    @Override
    public int keyLength() {
        return keyLength;
    }

    /** The block's array; the current value is {@code [valueOffset(), valueOffset() + valueLength())}. */
    byte[] data() {
        return data;
    }

    int valueOffset() {
        return valueOffset;
    }

    int valueLength() {
        return valueLength;
    }

    Block block() {
        return block;
    }

    /** Compares the current key with {@code target} (both internal keys). */
    int compareCurrent(byte[] target) {
        return InternalKey.compare(key, 0, keyLength, target, 0, target.length);
    }

    private int compareRestartKey(int index, byte[] target) {
        int p = block.restart(index);
        long r = Varints.decode32(data, p, restartsOffset);
        if (r < 0 || (int) r != 0) {
            throw block.corrupt("restart entry at " + p + " is not stored whole");
        }
        p = (int) (r >>> 32);
        r = Varints.decode32(data, p, restartsOffset);
        if (r < 0) {
            throw block.corrupt("bad key length in restart entry at " + block.restart(index));
        }
        int length = (int) r;
        p = (int) (r >>> 32);
        r = Varints.decode32(data, p, restartsOffset);
        if (r < 0) {
            throw block.corrupt("bad value length in restart entry at " + block.restart(index));
        }
        p = (int) (r >>> 32);
        if (length < InternalKey.TRAILER_SIZE || length > restartsOffset - p) {
            throw block.corrupt("key of " + length + " bytes in restart entry at " + block.restart(index));
        }
        return InternalKey.compare(data, p, length, target, 0, target.length);
    }

    private void seekToRestartPoint(int index) {
        keyLength = 0;
        setRestartIndex(index);
        nextOffset = block.restart(index);
        valid = false;
    }

    /** Decodes the entry at {@link #nextOffset}; false (and not valid) at the end of the entries. */
    private boolean parseNextEntry() {
        current = nextOffset;
        if (current >= restartsOffset) {
            markInvalid();
            return false;
        }
        int p = current;
        int shared;
        int unshared;
        int length;
        int valueBytes = p + 3 > restartsOffset || (data[p] | data[p + 1]) < 0 ? 0
                : data[p + 2] >= 0 ? 1 : p + 4 <= restartsOffset && data[p + 3] >= 0 ? 2 : 0;
        if (valueBytes != 0) {
            // Fast path: the key's two lengths are one byte each and the value's one or two (an item of a few
            // attributes is over 127 bytes), as they are in most entries.
            shared = data[p];
            unshared = data[p + 1];
            length = valueBytes == 1 ? data[p + 2] : (data[p + 2] & 0x7F) | data[p + 3] << 7;
            p += 2 + valueBytes;
        } else {
            long r = Varints.decode32(data, p, restartsOffset);
            if (r < 0) {
                throw block.corrupt("bad shared length in entry at " + current);
            }
            shared = (int) r;
            r = Varints.decode32(data, (int) (r >>> 32), restartsOffset);
            if (r < 0) {
                throw block.corrupt("bad key length in entry at " + current);
            }
            unshared = (int) r;
            r = Varints.decode32(data, (int) (r >>> 32), restartsOffset);
            if (r < 0) {
                throw block.corrupt("bad value length in entry at " + current);
            }
            length = (int) r;
            p = (int) (r >>> 32);
        }
        int room = restartsOffset - p;
        if (shared > keyLength || unshared > room || length > room - unshared
                || shared + unshared < InternalKey.TRAILER_SIZE) {
            throw block.corrupt("entry at " + current + " has impossible lengths (shared " + shared
                    + ", unshared " + unshared + ", value " + length + ")");
        }
        int newLength = shared + unshared;
        if (key.length < newLength) {
            key = Arrays.copyOf(key, Math.max(newLength, key.length * 2));
        }
        System.arraycopy(data, p, key, shared, unshared);
        keyLength = newLength;
        valueOffset = p + unshared;
        valueLength = length;
        nextOffset = valueOffset + length;
        while (nextRestart <= current) {
            setRestartIndex(restartIndex + 1);
        }
        valid = true;
        return true;
    }

    private void setRestartIndex(int index) {
        restartIndex = index;
        nextRestart = index + 1 < restartCount ? block.restart(index + 1) : Integer.MAX_VALUE;
    }

    private void markInvalid() {
        current = restartsOffset;
        setRestartIndex(restartCount);
        valid = false;
    }

    private void requireValid() {
        if (!valid) {
            throw new IllegalStateException("iterator is not positioned on an entry");
        }
    }

    static void checkTarget(byte[] target) {
        if (target.length < InternalKey.TRAILER_SIZE) {
            throw new IllegalArgumentException("not an internal key: " + target.length + " bytes");
        }
    }
}
