package dev.lacuna.sstable;

import java.util.Arrays;

/** A growable byte array that encodes the format's integers. Not thread-safe. */
final class ByteSink {
    private byte[] bytes;
    private int size;

    ByteSink(int initialCapacity) {
        bytes = new byte[Math.max(16, initialCapacity)];
    }

    /** The backing array; bytes {@code [0, size())} are the content. Valid until the next write. */
    byte[] array() {
        return bytes;
    }

    int size() {
        return size;
    }

    void reset() {
        size = 0;
    }

    void putByte(int b) {
        ensure(1);
        bytes[size++] = (byte) b;
    }

    void putBytes(byte[] src, int offset, int length) {
        ensure(length);
        System.arraycopy(src, offset, bytes, size, length);
        size += length;
    }

    void putIntLE(int value) {
        ensure(4);
        SstableFormat.putInt(bytes, size, value);
        size += 4;
    }

    void putLongLE(long value) {
        ensure(8);
        SstableFormat.putLong(bytes, size, value);
        size += 8;
    }

    /** A non-negative int as a varint of at most 5 bytes. */
    void putVarint32(int value) {
        if (value < 0) {
            throw new IllegalArgumentException("negative varint32 " + value);
        }
        ensure(5);
        size = SstableFormat.putVarint32(bytes, size, value);
    }

    /** A non-negative long as a varint of at most 9 bytes. */
    void putVarint64(long value) {
        if (value < 0) {
            throw new IllegalArgumentException("negative varint64 " + value);
        }
        ensure(10);
        while ((value & ~0x7FL) != 0) {
            bytes[size++] = (byte) (value & 0x7F | 0x80);
            value >>>= 7;
        }
        bytes[size++] = (byte) value;
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
