package dev.lacuna.sstable;

import dev.lacuna.storage.CorruptionException;

/**
 * The decoded (uncompressed, checksum-verified) contents of a data or index block, immutable and shared:
 * the block cache holds these and any number of {@link BlockIterator}s read one concurrently. The
 * restart array is validated once here, so iterators only check the entries they decode.
 *
 * <p>Public (in a package exported to the benchmarks only) so that {@code BlockCacheBenchmark} can fill a
 * {@link BlockCache}; nothing outside this package reads one.
 */
public final class Block {
    private final byte[] data;
    private final int length;
    private final int restartsOffset;
    private final int restartCount;
    private final String fileName;
    private final long fileOffset;

    /**
     * @param data       contents in {@code data[0..length)}; the block keeps the array (the caller must not
     *                   change it)
     * @param fileName   the table file, for errors
     * @param fileOffset offset of the stored block in the file, for errors
     * @throws CorruptionException if the restart array is malformed
     */
    public Block(byte[] data, int length, String fileName, long fileOffset) {
        this.data = data;
        this.length = length;
        this.fileName = fileName;
        this.fileOffset = fileOffset;
        if (length < 4) {
            throw corrupt("block of " + length + " bytes has no restart count");
        }
        int count = SstableFormat.getInt(data, length - 4);
        if (count < 0 || count > (length - 4) / 4) {
            throw corrupt("restart count " + count + " does not fit a block of " + length + " bytes");
        }
        this.restartCount = count;
        this.restartsOffset = length - 4 - 4 * count;
        if (count == 0 && restartsOffset > 0) {
            throw corrupt("block has entries but no restart point");
        }
        int previous = -1;
        for (int i = 0; i < count; i++) {
            int r = restart(i);
            boolean ok = i == 0 ? r == 0 : r > previous && r < restartsOffset;
            if (!ok) {
                throw corrupt("restart point " + i + " at " + r + " out of order or out of range");
            }
            previous = r;
        }
    }

    byte[] data() {
        return data;
    }

    /** Offset where the restart array begins: the end of the entries. */
    int restartsOffset() {
        return restartsOffset;
    }

    int restartCount() {
        return restartCount;
    }

    /** Offset of restart entry {@code i}. */
    int restart(int i) {
        return SstableFormat.getInt(data, restartsOffset + 4 * i);
    }

    /** Bytes this block costs in the cache (its array plus object overhead). */
    int charge() {
        return data.length + 64;
    }

    String fileName() {
        return fileName;
    }

    long fileOffset() {
        return fileOffset;
    }

    BlockIterator iterator() {
        BlockIterator it = new BlockIterator();
        it.reset(this);
        return it;
    }

    CorruptionException corrupt(String detail) {
        return new CorruptionException(fileName, fileOffset, detail);
    }
}
