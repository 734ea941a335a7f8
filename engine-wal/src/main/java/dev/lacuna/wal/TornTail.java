package dev.lacuna.wal;

import static dev.lacuna.wal.WalFormat.FRAGMENT_HEADER_SIZE;
import static dev.lacuna.wal.WalFormat.HEADER_SIZE;
import static dev.lacuna.wal.WalFormat.LSN_SIZE;

import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Tells a torn tail from damage in the last segment. A crash cuts a write short and leaves what was there
 * before (zero fill, or nothing) after the cut. So after a torn tail no well-formed fragment of the segment
 * follows, and the fragment at the cut is not one flipped bit away from a well-formed one (a cut clears
 * bytes, it does not flip a bit in the middle of written ones). Either sign means that the bad bytes were
 * once written whole and were damaged later. See "Recovery" in FORMAT.md.
 */
final class TornTail {
    /** The CRC32C polynomial, bit-reversed, as java.util.zip.CRC32C uses it. */
    private static final int CASTAGNOLI_REFLECTED = 0x82F63B78;

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
        byte[] zeros = new byte[blockSize];
        CRC32C crc = new CRC32C();
        for (long start = from - from % blockSize; start < size; start += blockSize) {
            int length = read(file, block, start, (int) Math.min(blockSize, size - start));
            int first = (int) Math.max(0, Math.max(from, HEADER_SIZE) - start);
            int typeEnd = length - FRAGMENT_HEADER_SIZE + WalFormat.FRAGMENT_TYPE_OFFSET + 1; // type bytes of offsets tried
            for (int at = first; at + FRAGMENT_HEADER_SIZE <= length; at++) {
                int typeAt = at + WalFormat.FRAGMENT_TYPE_OFFSET;
                if (block[typeAt] == 0) {
                    // No fragment has type 0: over zero fill (most of what follows a crash) jump to the next offset
                    // whose type byte is not zero, found by a vectorized compare rather than one offset at a time.
                    int nonZero = Arrays.mismatch(block, typeAt, typeEnd, zeros, 0, typeEnd - typeAt);
                    if (nonZero < 0) {
                        break;
                    }
                    at += nonZero;
                }
                if (wellFormed(block, at, length, header, expectedLsn, crc)) {
                    return start + at;
                }
            }
        }
        return -1;
    }

    /**
     * The offset of the byte holding the one flipped bit that would make the bad fragment at {@code at}
     * well-formed, or -1 if no single bit does. Bit rot flips bits; a torn write does not: it keeps the
     * fragment's beginning as written and leaves zeros (or nothing) after the cut, so a fragment one bit
     * away from well-formed was damaged after it was written whole — unless that bit is also where a cut
     * could be (it is the only bit set from its byte to the fragment's end, so the cut fragment would look
     * the same), which is left a torn tail, and unless the fragment is the seal, whose damage costs no
     * record. Checksum arithmetic finds the bit in one pass over the fragment.
     */
    static long flippedBit(VfsFile file, SegmentHeader header, long at, long size, long expectedLsn)
            throws IOException {
        int blockSize = header.blockSize();
        int blockLeft = (int) (blockSize - at % blockSize);
        if (at < HEADER_SIZE || blockLeft < FRAGMENT_HEADER_SIZE || at + FRAGMENT_HEADER_SIZE > size) {
            return -1; // block padding, or a header the file does not hold
        }
        byte[] f = new byte[(int) Math.min(blockLeft, size - at)];
        read(file, f, at, f.length);
        int storedCrc = WalFormat.getInt(f, WalFormat.FRAGMENT_CRC_OFFSET);
        CRC32C crc = new CRC32C();
        for (int bit = 0; bit < 16; bit++) { // a flip in the length, which the checksum does not cover
            int index = WalFormat.FRAGMENT_LENGTH_OFFSET + bit / 8;
            f[index] ^= (byte) (1 << bit % 8);
            if (wellFormed(f, 0, f.length, header, expectedLsn, crc)
                    && f[WalFormat.FRAGMENT_TYPE_OFFSET] != WalFormat.SEAL) {
                return at + index; // a cut only leaves zeros after it, it never changes a length
            }
            f[index] ^= (byte) (1 << bit % 8);
        }
        int length = WalFormat.getUnsignedShort(f, WalFormat.FRAGMENT_LENGTH_OFFSET);
        int end = FRAGMENT_HEADER_SIZE + length;
        if (end > f.length) {
            return -1;
        }
        int syndrome = crcOf(f, length, crc) ^ storedCrc;
        int index; // of the flipped byte in f
        int mask;
        if (Integer.bitCount(syndrome) == 1) { // a flip in the stored checksum itself
            index = WalFormat.FRAGMENT_CRC_OFFSET + Integer.numberOfTrailingZeros(syndrome) / 8;
            mask = 1 << Integer.numberOfTrailingZeros(syndrome) % 8;
        } else {
            long bit = coveredBitWithSyndrome(syndrome, end - WalFormat.FRAGMENT_TYPE_OFFSET);
            if (bit < 0) {
                return -1;
            }
            index = WalFormat.FRAGMENT_TYPE_OFFSET + (int) (bit / 8);
            mask = 1 << (int) (bit % 8);
        }
        f[index] ^= (byte) mask;
        if (!wellFormed(f, 0, end, header, expectedLsn, crc)
                || f[WalFormat.FRAGMENT_TYPE_OFFSET] == WalFormat.SEAL) {
            return -1; // (a damaged seal costs no record: it is cut and written again like a torn one)
        }
        // A cut could look the same if the bit is the only one set from its byte to the fragment's end.
        boolean cutLike = (f[index] & 0xFF) == mask;
        for (int i = index + 1; cutLike && i < end; i++) {
            cutLike = f[i] == 0;
        }
        return cutLike ? -1 : at + index;
    }

    /** CRC32C of a fragment's covered bytes (type, segment, {@code length} bytes of data). */
    private static int crcOf(byte[] f, int length, CRC32C crc) {
        crc.reset();
        crc.update(f, WalFormat.FRAGMENT_TYPE_OFFSET, FRAGMENT_HEADER_SIZE - WalFormat.FRAGMENT_TYPE_OFFSET + length);
        return (int) crc.getValue();
    }

    /**
     * The bit (in CRC32C's order: byte by byte, least significant bit first) whose flip in a message of
     * {@code bytes} bytes changes its CRC32C by {@code syndrome}, or -1. CRC32C is linear, so flipping bit
     * {@code j} of an {@code n}-bit message changes the checksum by the polynomial shifted {@code n - 1 - j}
     * times, independent of the message; walking from the last bit to the first visits every such
     * change once. They are distinct for messages up to 2^31 bits, so the bit found is the only one.
     */
    static long coveredBitWithSyndrome(int syndrome, int bytes) {
        int change = CASTAGNOLI_REFLECTED;
        for (long bit = 8L * bytes - 1; bit >= 0; bit--) {
            if (change == syndrome) {
                return bit;
            }
            change = (change >>> 1) ^ ((change & 1) != 0 ? CASTAGNOLI_REFLECTED : 0);
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
