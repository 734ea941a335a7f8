package dev.lacuna.wal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The byte layout of a log segment, in one place (see FORMAT.md beside this file).
 *
 * <pre>
 * segment file  = header, then fragments packed into blocks of blockSize bytes (block 0 holds the header)
 *
 * header (40 bytes, little-endian)
 *   0  magic        u64  "LACUNAWL"
 *   8  version      u32  2 (1 is still read: no seal)
 *  12  blockSize    u32
 *  16  segment      u64  segment number, equal to the file name's
 *  24  firstLsn     u64  LSN of the segment's first record
 *  32  reserved     u32  0
 *  36  crc          u32  CRC32C of bytes 0..35
 *
 * fragment (11-byte header + data, never crossing a block boundary)
 *   0  crc          u32  CRC32C of bytes 6..(11+length) (type, segment, data)
 *   4  length       u16  data bytes in this fragment
 *   6  type         u8   1 FULL, 2 FIRST, 3 MIDDLE, 4 LAST, 5 SEAL (0 only in zero fill)
 *   7  segment      u32  low 32 bits of the segment number
 *  11  data
 *
 * record = lsn u64, payload; split into FULL or FIRST MIDDLE* LAST fragments
 * seal   = one SEAL fragment of length 0 after the last record of a closed segment (version 2)
 * </pre>
 *
 * A block with fewer than 11 bytes left is padded with zeros (checked by readers). Everything after the last fragment of the
 * segment being written is zero fill (preallocation); a sealed segment ends with its seal.
 */
final class WalFormat {
    static final long MAGIC = 0x4C57414E5543414CL; // "LACUNAWL" read as little-endian
    /** The version this build writes. */
    static final int VERSION = 2;
    /** The oldest version this build reads. Version 1 segments have no seal. */
    static final int MIN_VERSION = 1;
    /** The first version whose closed segments end with a seal. */
    static final int SEALED_VERSION = 2;

    static final int HEADER_SIZE = 40;
    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 8;
    static final int BLOCK_SIZE_OFFSET = 12;
    static final int SEGMENT_OFFSET = 16;
    static final int FIRST_LSN_OFFSET = 24;
    static final int RESERVED_OFFSET = 32;
    static final int HEADER_CRC_OFFSET = 36;

    static final int FRAGMENT_HEADER_SIZE = 11;
    static final int FRAGMENT_CRC_OFFSET = 0;
    static final int FRAGMENT_LENGTH_OFFSET = 4;
    static final int FRAGMENT_TYPE_OFFSET = 6;
    static final int FRAGMENT_SEGMENT_OFFSET = 7;

    static final byte ZERO = 0;
    static final byte FULL = 1;
    static final byte FIRST = 2;
    static final byte MIDDLE = 3;
    static final byte LAST = 4;
    static final byte SEAL = 5;

    static final int LSN_SIZE = 8;
    /** Largest LSN: the engine packs sequence numbers into 56 bits. */
    static final long MAX_LSN = (1L << 56) - 1;
    /** Largest segment number: file names have 16 decimal digits. */
    static final long MAX_SEGMENT = 9_999_999_999_999_999L;
    /** Largest payload accepted by {@link Wal#append}; a bound on what a reader will assemble. */
    static final int MAX_PAYLOAD = 128 << 20;

    private static final String SUFFIX = ".wal";
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private WalFormat() {
    }

    /** File name of segment {@code number}: 16 decimal digits, so names sort as numbers do. */
    static String segmentName(long number) {
        return String.format("%016d%s", number, SUFFIX);
    }

    /** The segment number named by {@code fileName}, or -1 if it is not a segment's name. */
    static long parseSegmentName(String fileName) {
        if (fileName.length() != 16 + SUFFIX.length() || !fileName.endsWith(SUFFIX)) {
            return -1;
        }
        long n = 0;
        for (int i = 0; i < 16; i++) {
            char c = fileName.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }

    static void encodeHeader(byte[] dst, int blockSize, long segment, long firstLsn) {
        putLong(dst, MAGIC_OFFSET, MAGIC);
        putInt(dst, VERSION_OFFSET, VERSION);
        putInt(dst, BLOCK_SIZE_OFFSET, blockSize);
        putLong(dst, SEGMENT_OFFSET, segment);
        putLong(dst, FIRST_LSN_OFFSET, firstLsn);
        putInt(dst, RESERVED_OFFSET, 0);
        putInt(dst, HEADER_CRC_OFFSET, crc(dst, 0, HEADER_CRC_OFFSET));
    }

    /**
     * The offset just past a record of {@code bodyLength} bytes (LSN included) written from {@code start}
     * in blocks of {@code blockSize}.
     */
    static long encodedEnd(long start, long bodyLength, int blockSize) {
        long pos = start;
        long remaining = bodyLength;
        while (remaining > 0) {
            int blockLeft = (int) (blockSize - pos % blockSize);
            if (blockLeft < FRAGMENT_HEADER_SIZE) {
                pos += blockLeft;
                continue;
            }
            long n = Math.min(remaining, blockLeft - FRAGMENT_HEADER_SIZE);
            pos += FRAGMENT_HEADER_SIZE + n;
            remaining -= n;
        }
        return pos;
    }

    /**
     * The bytes that seal a segment whose records end at {@code end}: zero padding if fewer than a fragment
     * header's bytes are left in the block, then a SEAL fragment (length 0, checksum over its type and
     * segment number).
     */
    static byte[] seal(long end, long segment, int blockSize) {
        byte[] b = new byte[sealLength(end, blockSize)];
        int h = b.length - FRAGMENT_HEADER_SIZE; // after the padding, if any
        putShort(b, h + FRAGMENT_LENGTH_OFFSET, 0);
        b[h + FRAGMENT_TYPE_OFFSET] = SEAL;
        putInt(b, h + FRAGMENT_SEGMENT_OFFSET, (int) segment);
        putInt(b, h + FRAGMENT_CRC_OFFSET, crc(b, h + FRAGMENT_TYPE_OFFSET, FRAGMENT_HEADER_SIZE - FRAGMENT_TYPE_OFFSET));
        return b;
    }

    /** Bytes that {@link #seal} adds after records ending at {@code end}. */
    static int sealLength(long end, int blockSize) {
        int blockLeft = (int) (blockSize - end % blockSize);
        return (blockLeft < FRAGMENT_HEADER_SIZE ? blockLeft : 0) + FRAGMENT_HEADER_SIZE;
    }

    static int crc(byte[] b, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(b, offset, length);
        return (int) crc.getValue();
    }

    static int getInt(byte[] b, int offset) {
        return (int) INT.get(b, offset);
    }

    static long getLong(byte[] b, int offset) {
        return (long) LONG.get(b, offset);
    }

    static int getUnsignedShort(byte[] b, int offset) {
        return (b[offset] & 0xFF) | (b[offset + 1] & 0xFF) << 8;
    }

    static void putInt(byte[] b, int offset, int value) {
        INT.set(b, offset, value);
    }

    static void putLong(byte[] b, int offset, long value) {
        LONG.set(b, offset, value);
    }

    static void putShort(byte[] b, int offset, int value) {
        b[offset] = (byte) value;
        b[offset + 1] = (byte) (value >>> 8);
    }
}
