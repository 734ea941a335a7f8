package dev.lacuna.base;

import java.util.Arrays;

/**
 * A growable byte array the formats append to, as a {@code StringBuilder} is for text: bytes, varints
 * (through {@link Varints#encode}, the one encoder) and length-prefixed byte strings. The SSTable's sink
 * extends it with the table's fixed-width integers ({@link #reserve}). Not thread-safe.
 */
public class ByteBuilder {
    private byte[] bytes;
    private int size;

    /** An empty builder with room for {@code initialCapacity} bytes (at least 16) before it grows. */
    public ByteBuilder(int initialCapacity) {
        bytes = new byte[Math.max(16, initialCapacity)];
    }

    /** The backing array; bytes {@code [0, size())} are the content. Valid until the next write. */
    public final byte[] array() {
        return bytes;
    }

    /** Bytes appended since creation or the last {@link #reset}. */
    public final int size() {
        return size;
    }

    /** Forgets the content, keeping the array. */
    public final void reset() {
        size = 0;
    }

    /** A copy of the content. */
    public final byte[] toByteArray() {
        return Arrays.copyOf(bytes, size);
    }

    /** Appends the low 8 bits of {@code b}. */
    public final void putByte(int b) {
        ensure(1);
        bytes[size++] = (byte) b;
    }

    /** Appends {@code src[offset, offset + length)}. */
    public final void putBytes(byte[] src, int offset, int length) {
        ensure(length);
        System.arraycopy(src, offset, bytes, size, length);
        size += length;
    }

    /** Appends all of {@code src}. */
    public final void putBytes(byte[] src) {
        putBytes(src, 0, src.length);
    }

    /** Appends a non-negative int as a varint of at most 5 bytes. */
    public final void putVarint32(int value) {
        if (value < 0) {
            throw new IllegalArgumentException("negative varint32 " + value);
        }
        ensure(Varints.MAX_LENGTH32);
        size = Varints.encode(bytes, size, value);
    }

    /** Appends a non-negative long as a varint of at most 9 bytes (the SSTable's varint64). */
    public final void putVarint64(long value) {
        if (value < 0) {
            throw new IllegalArgumentException("negative varint64 " + value);
        }
        putUvarint64(value);
    }

    /** Appends all 64 bits of {@code value}, read as unsigned, as a varint of at most 10 bytes. */
    public final void putUvarint64(long value) {
        ensure(Varints.MAX_LENGTH);
        size = Varints.encode(bytes, size, value);
    }

    /** Appends {@code b}'s length as a varint, then {@code b}. */
    public final void putLengthPrefixed(byte[] b) {
        putVarint32(b.length);
        putBytes(b);
    }

    /**
     * Makes room for {@code length} more bytes and counts them as written, for a subclass that writes a
     * fixed-width field in place.
     *
     * @return where they start in {@link #array()} (fetch the array after this call: it may have grown)
     */
    protected final int reserve(int length) {
        ensure(length);
        int at = size;
        size += length;
        return at;
    }

    private void ensure(int more) {
        long needed = (long) size + more;
        if (needed > bytes.length) {
            if (needed > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("buffer would exceed 2 GiB");
            }
            bytes = Arrays.copyOf(bytes, (int) Math.min(Integer.MAX_VALUE - 16, Math.max(needed, 2L * bytes.length)));
        }
    }
}
