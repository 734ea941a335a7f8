package dev.lacuna.wal;

import dev.lacuna.storage.WalOptions;
import static dev.lacuna.wal.WalFormat.HEADER_SIZE;

import dev.lacuna.storage.CorruptionException;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;

/**
 * The validated header of a segment file.
 *
 * @param version   format version ({@link WalFormat#MIN_VERSION} to {@link WalFormat#VERSION})
 * @param segment   segment number
 * @param blockSize block size its records are framed in
 * @param firstLsn  LSN of its first record
 */
record SegmentHeader(int version, long segment, int blockSize, long firstLsn) {
    /** Whether a closed segment of this version ends with a seal. */
    boolean sealable() {
        return version >= WalFormat.SEALED_VERSION;
    }

    /**
     * Reads and checks the header of {@code file}, which is named as segment {@code expectedSegment}.
     *
     * @return the header, or null if the file is shorter than a header (a segment whose creation was cut
     *         short by a crash)
     * @throws CorruptionException if the header is present but wrong
     */
    static SegmentHeader read(VfsFile file, long expectedSegment) throws IOException {
        if (file.size() < HEADER_SIZE) {
            return null;
        }
        byte[] h = new byte[HEADER_SIZE];
        file.readFully(0, h, 0, HEADER_SIZE);
        if (WalFormat.getLong(h, WalFormat.MAGIC_OFFSET) != WalFormat.MAGIC) {
            throw new CorruptionException(file.name(), WalFormat.MAGIC_OFFSET, "write-ahead log: bad magic number");
        }
        int storedCrc = WalFormat.getInt(h, WalFormat.HEADER_CRC_OFFSET);
        if (WalFormat.crc(h, 0, WalFormat.HEADER_CRC_OFFSET) != storedCrc) {
            throw new CorruptionException(file.name(), WalFormat.HEADER_CRC_OFFSET,
                    "write-ahead log: segment header checksum mismatch");
        }
        int version = WalFormat.getInt(h, WalFormat.VERSION_OFFSET);
        if (version < WalFormat.MIN_VERSION || version > WalFormat.VERSION) {
            throw new CorruptionException(file.name(), WalFormat.VERSION_OFFSET,
                    "write-ahead log: unsupported format version " + version + " (this build reads "
                            + WalFormat.MIN_VERSION + " to " + WalFormat.VERSION + ")");
        }
        if (WalFormat.getInt(h, WalFormat.RESERVED_OFFSET) != 0) {
            // Written as zero by every version so far: anything else is a format this build does not know.
            throw new CorruptionException(file.name(), WalFormat.RESERVED_OFFSET,
                    "write-ahead log: reserved header field is not zero");
        }
        int blockSize = WalFormat.getInt(h, WalFormat.BLOCK_SIZE_OFFSET);
        if (blockSize < WalOptions.MIN_BLOCK_SIZE || blockSize > WalOptions.MAX_BLOCK_SIZE) {
            throw new CorruptionException(file.name(), WalFormat.BLOCK_SIZE_OFFSET,
                    "write-ahead log: bad block size " + blockSize);
        }
        long segment = WalFormat.getLong(h, WalFormat.SEGMENT_OFFSET);
        if (segment < 1 || segment > WalFormat.MAX_SEGMENT) {
            throw new CorruptionException(file.name(), WalFormat.SEGMENT_OFFSET,
                    "write-ahead log: segment number " + Long.toUnsignedString(segment) + " out of range");
        }
        if (segment != expectedSegment) {
            throw new CorruptionException(file.name(), WalFormat.SEGMENT_OFFSET,
                    "write-ahead log: header names segment " + segment + " but the file is segment " + expectedSegment);
        }
        long firstLsn = WalFormat.getLong(h, WalFormat.FIRST_LSN_OFFSET);
        if (firstLsn < 1 || firstLsn > WalFormat.MAX_LSN) {
            throw new CorruptionException(file.name(), WalFormat.FIRST_LSN_OFFSET,
                    "write-ahead log: bad first LSN " + firstLsn);
        }
        return new SegmentHeader(version, segment, blockSize, firstLsn);
    }
}
