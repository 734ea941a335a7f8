package dev.lacuna.item;

import dev.lacuna.base.Varints;
import java.util.Arrays;

/** A growable byte array that the encoders append to; not thread-safe, used by one encoder call. */
final class ByteOut {
    private byte[] buf;
    private int size;

    ByteOut(int capacity) {
        buf = new byte[Math.max(16, capacity)];
    }

    void write(int b) {
        ensure(1);
        buf[size++] = (byte) b;
    }

    void write(byte[] b) {
        write(b, 0, b.length);
    }

    void write(byte[] b, int offset, int length) {
        ensure(length);
        System.arraycopy(b, offset, buf, size, length);
        size += length;
    }

    /** A big-endian u32, so that non-negative ints sort as unsigned bytes do. */
    void writeIntBigEndian(int v) {
        write(v >>> 24);
        write(v >>> 16);
        write(v >>> 8);
        write(v);
    }

    /** An unsigned LEB128 varint of a non-negative int (at most 5 bytes: its 32 bits, as unsigned). */
    void writeVarint(int v) {
        ensure(Varints.MAX_LENGTH32);
        size = Varints.encode(buf, size, Integer.toUnsignedLong(v));
    }

    int size() {
        return size;
    }

    byte[] toByteArray() {
        return Arrays.copyOf(buf, size);
    }

    private void ensure(int more) {
        if (size + more > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
        }
    }
}
