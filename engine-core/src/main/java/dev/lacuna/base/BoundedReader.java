package dev.lacuna.base;

import java.util.Arrays;

/**
 * A cursor over {@code bytes[start, end)} that reads the formats' fields — bytes, varints, lengths and
 * length-prefixed byte strings — and checks every read against the end, so that damaged input can only end
 * in the exception its format reports, never in an index error or an allocation sized by garbage. It is
 * LevelDB's {@code GetVarint32}, {@code GetVarint64} and {@code GetLengthPrefixedSlice} in one place, for
 * the item codec, the SSTable's metadata, the manifest and the log's batches alike.
 *
 * <p>Base knows none of Lacuna's exception types, so each format subclasses it to say how a malformed field
 * is reported ({@link #malformed}): with a file and an offset, as each did before. That hook runs only on
 * damaged input and is the one method a subclass overrides; every read is final, so the decoders' hot paths
 * pay no dispatch and no allocation per field. A varint32 is decoded by {@link Varints#decode32}, the
 * block iterator's decoder; wider varints and the diagnosis of a bad one by the loop here.
 *
 * <p>In <em>strict</em> mode a varint must also be in its shortest form (a varint of more than one byte
 * whose last byte is {@code 0x00} is malformed), so that every value has exactly one encoding, as the item
 * format requires. Not thread-safe.
 */
public abstract class BoundedReader {
    private byte[] bytes;
    private int end;
    private final boolean strict;
    private int position;

    /**
     * @param strict refuse varints not in their shortest form
     * @throws IndexOutOfBoundsException if {@code [start, end)} is not a range of {@code bytes}
     */
    protected BoundedReader(byte[] bytes, int start, int end, boolean strict) {
        if (start < 0 || end < start || end > bytes.length) {
            throw new IndexOutOfBoundsException("range [" + start + ", " + end + ") of " + bytes.length + " bytes");
        }
        this.bytes = bytes;
        this.end = end;
        this.strict = strict;
        this.position = start;
    }

    /**
     * Reads {@code bytes[start, end)} from now on, from {@code start}: a decoder that reads many small records
     * one after another (a query page's items) keeps one reader rather than making one per record.
     *
     * @throws IndexOutOfBoundsException if {@code [start, end)} is not a range of {@code bytes}
     */
    protected final void reset(byte[] bytes, int start, int end) {
        if (start < 0 || end < start || end > bytes.length) {
            throw new IndexOutOfBoundsException("range [" + start + ", " + end + ") of " + bytes.length + " bytes");
        }
        this.bytes = bytes;
        this.end = end;
        this.position = start;
    }

    /**
     * The exception a malformed field is reported as.
     *
     * @param at     index in the array of the field that is wrong (for a truncation, of the missing byte)
     * @param detail what is wrong
     */
    protected abstract RuntimeException malformed(int at, String detail);

    /** Index in the array of the next byte to read. */
    public final int position() {
        return position;
    }

    /** Bytes left before the end. */
    public final int remaining() {
        return end - position;
    }

    /** Whether everything was read. */
    public final boolean atEnd() {
        return position == end;
    }

    /** The array read from, for a decoder that reads a run of bytes in place (see {@link #skip}). */
    public final byte[] array() {
        return bytes;
    }

    /** The next byte, not consumed. */
    public final int peek() {
        if (position >= end) {
            throw malformed(position, "truncated: expected another byte");
        }
        return bytes[position] & 0xFF;
    }

    /** The next byte, unsigned. */
    public final int u8() {
        if (position >= end) {
            throw malformed(position, "truncated: expected another byte");
        }
        return bytes[position++] & 0xFF;
    }

    /** A varint32: at most 5 bytes, a value of at most 2³¹−1. */
    public final int varint32() {
        return varint32(null);
    }

    /**
     * A varint32: at most 5 bytes, a value of at most 2³¹−1.
     *
     * @param what names the field in errors, or null
     */
    public final int varint32(String what) {
        int at = position;
        if (at < end && bytes[at] >= 0) { // one byte, as most lengths and counts are: no decoding to do
            position = at + 1;
            return bytes[at];
        }
        long r = Varints.decode32(bytes, at, end);
        if (r < 0) {
            throw badVarint32(at, what);
        }
        int next = (int) (r >>> 32);
        if (strict && next - at > 1 && bytes[next - 1] == 0) {
            throw malformed(at, prefix(what) + "overlong varint");
        }
        position = next;
        return (int) r;
    }

    /** A varint of at most 9 bytes, so a value of at most 2⁶³−1 (the SSTable's varint64). */
    public final long varint64() {
        return varint(9, null);
    }

    /** A varint of at most 10 bytes, all 64 bits of a long read as unsigned (LevelDB's varint64). */
    public final long uvarint64() {
        return varint(Varints.MAX_LENGTH, null);
    }

    /**
     * A count or length (a varint32) that must fit in what is left, at {@code minBytesEach} bytes per
     * element, so that nothing is allocated beyond the input.
     *
     * @param what names the field in errors
     */
    public final int length(String what, int minBytesEach) {
        int at = position;
        int n = varint32(what);
        if ((long) n * minBytesEach > remaining()) {
            throw malformed(at, what + " " + n + " exceeds the " + remaining() + " bytes left");
        }
        return n;
    }

    /** A fresh copy of the next {@code n} bytes. */
    public final byte[] bytes(int n) {
        int at = skip(n);
        return Arrays.copyOfRange(bytes, at, at + n);
    }

    /** A byte string: its length (a varint32), then that many bytes, copied. */
    public final byte[] lengthPrefixed(String what) {
        return bytes(length(what, 1));
    }

    /** Consumes the next {@code n} bytes and returns where they start in {@link #array()}. */
    public final int skip(int n) {
        if (n < 0 || n > remaining()) {
            throw malformed(position, "truncated: " + n + " bytes needed, " + remaining() + " left");
        }
        int at = position;
        position += n;
        return at;
    }

    /** A varint of at most {@code maxBytes} bytes; the failures say exactly what is wrong. */
    private long varint(int maxBytes, String what) {
        int at = position;
        long value = 0;
        for (int i = 0; i < maxBytes; i++) {
            int b = u8();
            value |= (long) (b & 0x7F) << 7 * i;
            if (b < 0x80) {
                if (strict && b == 0 && i > 0) {
                    throw malformed(at, prefix(what) + "overlong varint");
                }
                return value;
            }
        }
        throw malformed(at, prefix(what) + "varint longer than " + maxBytes + " bytes");
    }

    /** Why {@link Varints#decode32} refused the varint32 at {@code at}: only on damaged input. */
    private RuntimeException badVarint32(int at, String what) {
        position = at;
        long value = varint(Varints.MAX_LENGTH32, what); // throws if truncated or too long
        return malformed(at, (what == null ? "varint32 " : what + ": ") + value + " is too large");
    }

    private static String prefix(String what) {
        return what == null ? "" : what + ": ";
    }
}
