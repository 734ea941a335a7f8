package dev.lacuna.wal;

import static dev.lacuna.wal.WalFormat.FRAGMENT_HEADER_SIZE;
import static dev.lacuna.wal.WalFormat.HEADER_SIZE;
import static dev.lacuna.wal.WalFormat.LSN_SIZE;

import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Tells a torn tail from damage in the middle of the last segment by looking past the damage for anything
 * the writer wrote there. A crash cuts a write short and leaves what was there before (zero fill, or
 * nothing) after the cut, so after a torn tail no well-formed fragment of the segment follows; a
 * well-formed fragment after bad bytes means that the bad bytes were once written whole and were damaged
 * later. See "Recovery" in FORMAT.md.
 */
final class TornTail {
    private TornTail() {
    }

    /**
     * The offset of the first well-formed fragment of segment {@code header} that starts at or after
     * {@code from} and ends by {@code size}, or -1 if there is none. Well-formed: a fragment type (record
     * fragment or seal), a length that fits its block, the segment's number and a matching checksum; a
     * fragment that starts a record and holds its whole LSN must also carry an LSN of at least
     * {@code expectedLsn} (the LSN of the record the damage took).
     *
     * <p>Every offset is tried, not only those a chain of fragment lengths leads to, because the damage may
     * be in a length. One pass over the rest of the file, read a block at a time (fragments never cross a
     * block boundary); most offsets are rejected by the type byte, so this costs about a sequential read.
     */
    static long firstWellFormedFragment(VfsFile file, SegmentHeader header, long from, long size, long expectedLsn)
            throws IOException {
        int blockSize = header.blockSize();
        byte[] block = new byte[blockSize];
        CRC32C crc = new CRC32C();
        for (long start = from - from % blockSize; start < size; start += blockSize) {
            int length = read(file, block, start, (int) Math.min(blockSize, size - start));
            int first = (int) Math.max(0, Math.max(from, HEADER_SIZE) - start);
            for (int at = first; at + FRAGMENT_HEADER_SIZE <= length; at++) {
                if (wellFormed(block, at, length, header, expectedLsn, crc)) {
                    return start + at;
                }
            }
        }
        return -1;
    }

    private static boolean wellFormed(byte[] block, int at, int length, SegmentHeader header, long expectedLsn,
                                      CRC32C crc) {
        byte type = block[at + WalFormat.FRAGMENT_TYPE_OFFSET];
        boolean seal = type == WalFormat.SEAL && header.sealable();
        if ((type < WalFormat.FULL || type > WalFormat.LAST) && !seal) {
            return false;
        }
        int dataLength = WalFormat.getUnsignedShort(block, at + WalFormat.FRAGMENT_LENGTH_OFFSET);
        int end = at + FRAGMENT_HEADER_SIZE + dataLength;
        if (end > length || (seal && dataLength != 0)
                || WalFormat.getInt(block, at + WalFormat.FRAGMENT_SEGMENT_OFFSET) != (int) header.segment()) {
            return false;
        }
        crc.reset();
        crc.update(block, at + WalFormat.FRAGMENT_TYPE_OFFSET, end - (at + WalFormat.FRAGMENT_TYPE_OFFSET));
        if ((int) crc.getValue() != WalFormat.getInt(block, at + WalFormat.FRAGMENT_CRC_OFFSET)) {
            return false;
        }
        boolean startsRecord = type == WalFormat.FULL || type == WalFormat.FIRST;
        return !startsRecord || dataLength < LSN_SIZE
                || WalFormat.getLong(block, at + FRAGMENT_HEADER_SIZE) >= expectedLsn;
    }

    /** Reads up to {@code length} bytes at {@code position}; returns how many there were. */
    private static int read(VfsFile file, byte[] block, long position, int length) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(block, 0, length);
        while (buffer.hasRemaining()) {
            if (file.read(buffer, position + buffer.position()) < 0) {
                break;
            }
        }
        return buffer.position();
    }
}
