package dev.lacuna.kv;

import java.util.Objects;

/**
 * How a {@code SstableWriter} lays out a table. Validated on construction. Readers need none of it: every
 * table can be read whatever the options it was written with (except that prefix queries must use the
 * same {@link KeyPrefix}).
 *
 * @param blockSize       a data block is closed once its uncompressed size reaches this many bytes
 *                        (1 byte to 16 MiB; a block always holds at least one entry)
 * @param restartInterval entries between restart points in a data block (1 to 65536); smaller makes
 *                        seeks faster and blocks larger
 * @param compression     compress each block with LZ4 when that saves at least 1/8 of it
 * @param bloomBitsPerKey bloom filter bits per key and per prefix (0 to 64; 0 writes no filter)
 * @param keyPrefix       the prefix the bloom filter holds besides each whole user key
 */
public record SstableOptions(int blockSize, int restartInterval, boolean compression, int bloomBitsPerKey,
                           KeyPrefix keyPrefix) {
    /** Largest {@link #blockSize()}. */
    public static final int MAX_BLOCK_SIZE = 16 << 20;
    /** Largest {@link #restartInterval()}. */
    public static final int MAX_RESTART_INTERVAL = 1 << 16;
    /** Largest {@link #bloomBitsPerKey()}. */
    public static final int MAX_BLOOM_BITS_PER_KEY = 64;

    /** Checks every setting. */
    public SstableOptions {
        if (blockSize < 1 || blockSize > MAX_BLOCK_SIZE) {
            throw new IllegalArgumentException("blockSize must be in [1, " + MAX_BLOCK_SIZE + "]: " + blockSize);
        }
        if (restartInterval < 1 || restartInterval > MAX_RESTART_INTERVAL) {
            throw new IllegalArgumentException("restartInterval must be in [1, " + MAX_RESTART_INTERVAL + "]: "
                    + restartInterval);
        }
        if (bloomBitsPerKey < 0 || bloomBitsPerKey > MAX_BLOOM_BITS_PER_KEY) {
            throw new IllegalArgumentException("bloomBitsPerKey must be in [0, " + MAX_BLOOM_BITS_PER_KEY + "]: "
                    + bloomBitsPerKey);
        }
        Objects.requireNonNull(keyPrefix, "keyPrefix");
    }

    /** 4 KiB blocks, a restart every 16 entries, LZ4 on, 10 bloom bits per key, whole-key prefixes. */
    public static SstableOptions defaults() {
        return new SstableOptions(4096, 16, true, 10, KeyPrefix.WHOLE_KEY);
    }

    /** A copy with another block size. */
    public SstableOptions withBlockSize(int bytes) {
        return new SstableOptions(bytes, restartInterval, compression, bloomBitsPerKey, keyPrefix);
    }

    /** A copy with another restart interval. */
    public SstableOptions withRestartInterval(int entries) {
        return new SstableOptions(blockSize, entries, compression, bloomBitsPerKey, keyPrefix);
    }

    /** A copy with compression on or off. */
    public SstableOptions withCompression(boolean on) {
        return new SstableOptions(blockSize, restartInterval, on, bloomBitsPerKey, keyPrefix);
    }

    /** A copy with another bloom filter density. */
    public SstableOptions withBloomBitsPerKey(int bits) {
        return new SstableOptions(blockSize, restartInterval, compression, bits, keyPrefix);
    }

    /** A copy with another prefix extractor. */
    public SstableOptions withKeyPrefix(KeyPrefix prefix) {
        return new SstableOptions(blockSize, restartInterval, compression, bloomBitsPerKey, prefix);
    }
}
