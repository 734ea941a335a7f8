package dev.lacuna.base;

/**
 * Unsigned LEB128 varints — 7 bits a byte, low groups first, the high bit set on every byte but the last —
 * encoded and decoded in one place, as LevelDB's {@code util/coding.h}: {@link ByteBuilder} appends through
 * {@link #encode} (and so do the writers that hold a bare array), {@link BoundedReader} reads a varint32
 * through {@link #decode32}, and so does the block iterator's hot path.
 *
 * <p>Static methods over an array and a position, so that the hot paths — the block iterator's entry
 * headers, the item codec — pay no allocation and no dispatch per varint.
 */
public final class Varints {
    /** Most bytes a varint takes: 64 bits in groups of 7. */
    public static final int MAX_LENGTH = 10;
    /** Most bytes a varint32 takes. */
    public static final int MAX_LENGTH32 = 5;

    private Varints() {
    }

    /**
     * Writes {@code value} at {@code dst[pos]}: all 64 bits as unsigned, so a negative value takes
     * {@link #MAX_LENGTH} bytes. The caller makes room for that many.
     *
     * @return the position after the varint
     */
    public static int encode(byte[] dst, int pos, long value) {
        while ((value & ~0x7FL) != 0) {
            dst[pos++] = (byte) (value & 0x7F | 0x80);
            value >>>= 7;
        }
        dst[pos++] = (byte) value;
        return pos;
    }

    /**
     * Decodes a varint32 — at most {@link #MAX_LENGTH32} bytes, a value of at most 2³¹−1 — from
     * {@code b[pos, limit)} without allocating. Overlong forms are accepted; {@link BoundedReader}'s strict
     * mode refuses them.
     *
     * @return {@code positionAfter << 32 | value}, or -1 if the varint runs past {@code limit}, is longer
     *     than 5 bytes, or exceeds {@link Integer#MAX_VALUE}
     */
    public static long decode32(byte[] b, int pos, int limit) {
        long value = 0;
        for (int shift = 0; shift <= 28 && pos < limit; shift += 7) {
            int x = b[pos++];
            value |= (long) (x & 0x7F) << shift;
            if (x >= 0) {
                return value > Integer.MAX_VALUE ? -1 : (long) pos << 32 | value;
            }
        }
        return -1;
    }
}
