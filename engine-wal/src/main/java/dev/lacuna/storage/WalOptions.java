package dev.lacuna.storage;

/**
 * Settings of the write-ahead log ({@code dev.lacuna.wal.Wal}). Validated on construction.
 *
 * @param segmentSize  a segment is closed and a new one started before it would grow past this many
 *                     bytes (a record larger than that gets a segment of its own)
 * @param blockSize    records are framed in blocks of this size (64 bytes to 32 KiB); recorded in each
 *                     segment's header, so a log can be read whatever the current setting
 * @param preallocate  the file is extended with zeros this many bytes at a time ahead of the writer, so
 *                     that an fsync need not also update the file's size (0 turns it off)
 * @param recoveryMode what to do with damage found on open
 */
public record WalOptions(long segmentSize, int blockSize, long preallocate, RecoveryMode recoveryMode) {
    /** Largest block: fragment lengths are 16-bit. */
    public static final int MAX_BLOCK_SIZE = 32 * 1024;
    /** Smallest block: the segment header and one fragment header must fit in the first block. */
    public static final int MIN_BLOCK_SIZE = 64;

    /** Checks every setting. */
    public WalOptions {
        if (blockSize < MIN_BLOCK_SIZE || blockSize > MAX_BLOCK_SIZE) {
            throw new IllegalArgumentException("blockSize must be in [" + MIN_BLOCK_SIZE + ", " + MAX_BLOCK_SIZE
                    + "]: " + blockSize);
        }
        if (segmentSize < blockSize) {
            throw new IllegalArgumentException("segmentSize must be at least blockSize: " + segmentSize);
        }
        if (preallocate < 0) {
            throw new IllegalArgumentException("preallocate must not be negative: " + preallocate);
        }
        if (recoveryMode == null) {
            throw new IllegalArgumentException("recoveryMode is required");
        }
    }

    /** 64 MiB segments, 32 KiB blocks, 1 MiB preallocation, {@link RecoveryMode#TOLERATE_TORN_TAIL}. */
    public static WalOptions defaults() {
        return new WalOptions(64L << 20, MAX_BLOCK_SIZE, 1L << 20, RecoveryMode.TOLERATE_TORN_TAIL);
    }

    /** A copy with another segment size. */
    public WalOptions withSegmentSize(long bytes) {
        return new WalOptions(bytes, blockSize, preallocate, recoveryMode);
    }

    /** A copy with another block size. */
    public WalOptions withBlockSize(int bytes) {
        return new WalOptions(segmentSize, bytes, preallocate, recoveryMode);
    }

    /** A copy with another preallocation step. */
    public WalOptions withPreallocate(long bytes) {
        return new WalOptions(segmentSize, blockSize, bytes, recoveryMode);
    }

    /** A copy with another recovery mode. */
    public WalOptions withRecoveryMode(RecoveryMode mode) {
        return new WalOptions(segmentSize, blockSize, preallocate, mode);
    }
}
