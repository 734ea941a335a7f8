package dev.lacuna.sstable;

import dev.lacuna.base.InternalKey;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The byte layout of an SSTable, in one place (see FORMAT.md beside this file).
 *
 * <pre>
 * table file   = data block*, filter block, properties block, index block, footer
 * stored block = payload, type u8, crc u32       crc = CRC32C(payload, type); type 0 none, 1 LZ4
 * LZ4 payload  = uncompressedLength varint32, LZ4 block-format bytes
 *
 * data / index block contents (LevelDB's block format)
 *   entry*  restart u32 * n  n u32
 *   entry = shared varint32, unshared varint32, valueLength varint32, key[shared..] (unshared bytes), value
 *   index entry: key = separator (≥ last key of its block, &lt; first key of the next), value = handle
 *   handle = offset varint64, size varint32  (size excludes the 5-byte trailer)
 *
 * footer (52 bytes, little-endian, at the end of the file)
 *   0  indexOffset       u64      8  indexSize       u32
 *  12  filterOffset      u64     20  filterSize      u32
 *  24  propertiesOffset  u64     32  propertiesSize  u32
 *  36  version           u32  1
 *  40  magic             u64  "LACUNAST"
 *  48  crc               u32  CRC32C of bytes 0..47
 * </pre>
 *
 * <p>The varints are {@link dev.lacuna.base.Varints}', shared with the other formats; the little-endian
 * fixed-width integers are this format's own.
 */
final class SstableFormat {
    static final long MAGIC = 0x5453414E5543414CL; // "LACUNAST" read as little-endian
    static final int VERSION = 1;

    static final int FOOTER_SIZE = 52;
    static final int FOOTER_INDEX_OFFSET = 0;
    static final int FOOTER_FILTER_OFFSET = 12;
    static final int FOOTER_PROPERTIES_OFFSET = 24;
    static final int FOOTER_VERSION_OFFSET = 36;
    static final int FOOTER_MAGIC_OFFSET = 40;
    static final int FOOTER_CRC_OFFSET = 48;

    /** Bytes after each block's payload: type u8, crc u32. */
    static final int BLOCK_TRAILER_SIZE = 5;
    static final byte NO_COMPRESSION = 0;
    static final byte LZ4_COMPRESSION = 1;

    /** Restart interval of index blocks: every entry is a restart point, so seeks binary-search all of them. */
    static final int INDEX_RESTART_INTERVAL = 1;

    /** Largest internal key a writer accepts. */
    static final int MAX_KEY_SIZE = 1 << 20;
    /** Largest value a writer accepts. */
    static final int MAX_VALUE_SIZE = 64 << 20;
    /** Largest uncompressed data block a reader accepts: blockSize (≤ 16 MiB) plus one maximal entry fits. */
    static final int MAX_DATA_BLOCK_SIZE = 128 << 20;
    /** Largest uncompressed index, filter or properties block. */
    static final int MAX_META_BLOCK_SIZE = Integer.MAX_VALUE - 64;
    /** LZ4 never expands a byte into more than this many (a match of 255-byte lengths). */
    static final int LZ4_MAX_RATIO = 255;

    /** Trailer of a separator key: the smallest internal key of its user key. */
    static final long SEPARATOR_TRAILER = InternalKey.MAX_SEQUENCE << 8 | 0xFF;

    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle BIG_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private SstableFormat() {
    }

    /** CRC32C of {@code b[offset..offset+length)} followed by the byte {@code type}. */
    static int blockCrc(byte[] b, int offset, int length, byte type) {
        CRC32C crc = new CRC32C();
        crc.update(b, offset, length);
        crc.update(type);
        return (int) crc.getValue();
    }

    static int crc(byte[] b, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(b, offset, length);
        return (int) crc.getValue();
    }

    /**
     * The internal-key order on array ranges: {@link InternalKey#compare(byte[], int, int, byte[], int, int)},
     * which the table code calls. Kept under this name because {@code BlockTest} checks it against
     * {@link InternalKey#compare(byte[], byte[])}.
     */
    static int compareInternal(byte[] a, int aOffset, int aLength, byte[] b, int bOffset, int bLength) {
        return InternalKey.compare(a, aOffset, aLength, b, bOffset, bLength);
    }

    static void putBigEndianLong(byte[] b, int offset, long value) {
        BIG_LONG.set(b, offset, value);
    }

    static int getInt(byte[] b, int offset) {
        return (int) INT.get(b, offset);
    }

    static long getLong(byte[] b, int offset) {
        return (long) LONG.get(b, offset);
    }

    static void putInt(byte[] b, int offset, int value) {
        INT.set(b, offset, value);
    }

    static void putLong(byte[] b, int offset, long value) {
        LONG.set(b, offset, value);
    }
}
