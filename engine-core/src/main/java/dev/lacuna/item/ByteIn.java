package dev.lacuna.item;

import dev.lacuna.storage.CorruptionException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * A cursor over {@code buf[start, end)} for the decoders. Every read is bounds-checked against the end,
 * and every failure is a {@link CorruptionException} naming the file and the absolute offset
 * ({@code fileOffset} + position − start) of the field that is wrong. Not thread-safe.
 */
final class ByteIn {
    private final byte[] buf;
    private final int start;
    private final int end;
    private final String file;
    private final long fileOffset;
    private int pos;

    ByteIn(byte[] buf, int offset, int length, String file, long fileOffset) {
        if (offset < 0 || length < 0 || offset > buf.length - length) {
            throw new IndexOutOfBoundsException("range [" + offset + ", +" + length + ") of " + buf.length + " bytes");
        }
        this.buf = buf;
        this.start = offset;
        this.end = offset + length;
        this.file = file;
        this.fileOffset = fileOffset;
        this.pos = offset;
    }

    int pos() {
        return pos;
    }

    int remaining() {
        return end - pos;
    }

    boolean atEnd() {
        return pos == end;
    }

    /** The next byte, not consumed. */
    int peek() {
        if (pos >= end) {
            throw corrupt(pos, "truncated: expected another byte");
        }
        return buf[pos] & 0xFF;
    }

    int u8() {
        if (pos >= end) {
            throw corrupt(pos, "truncated: expected another byte");
        }
        return buf[pos++] & 0xFF;
    }

    /** A canonical LEB128 varint of at most 2³¹−1: no overlong forms, so that every value has one encoding. */
    int varint(String what) {
        int at = pos;
        long v = 0;
        for (int shift = 0; ; shift += 7) {
            if (shift > 28) {
                throw corrupt(at, what + ": varint longer than 5 bytes");
            }
            int b = u8();
            v |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                if (b == 0 && shift > 0) {
                    throw corrupt(at, what + ": overlong varint");
                }
                break;
            }
        }
        if (v > Integer.MAX_VALUE) {
            throw corrupt(at, what + ": " + v + " is too large");
        }
        return (int) v;
    }

    /** A count or length read as a varint that must fit in what is left, so nothing is allocated beyond the input. */
    int length(String what, int minBytesEach) {
        int at = pos;
        int n = varint(what);
        if ((long) n * minBytesEach > remaining()) {
            throw corrupt(at, what + " " + n + " exceeds the " + remaining() + " bytes left");
        }
        return n;
    }

    byte[] bytes(int n) {
        if (n > remaining()) {
            throw corrupt(pos, "truncated: " + n + " bytes needed, " + remaining() + " left");
        }
        byte[] b = new byte[n];
        System.arraycopy(buf, pos, b, 0, n);
        pos += n;
        return b;
    }

    /** {@code n} bytes of strict UTF-8 (no overlong forms, no encoded surrogates, nothing past U+10FFFF). */
    String utf8(int n) {
        if (n > remaining()) {
            throw corrupt(pos, "truncated: " + n + " bytes of UTF-8 needed, " + remaining() + " left");
        }
        int at = pos;
        pos += n;
        return utf8(buf, at, n, at);
    }

    /** Strict UTF-8 decoding of {@code b[offset, offset + n)}; a failure names position {@code at}. */
    String utf8(byte[] b, int offset, int n, int at) {
        boolean ascii = true;
        for (int i = offset; i < offset + n && ascii; i++) {
            ascii = b[i] >= 0;
        }
        if (ascii) { // most names and many values: skip the decoder
            return new String(b, offset, n, StandardCharsets.US_ASCII);
        }
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        try {
            return decoder.decode(ByteBuffer.wrap(b, offset, n)).toString();
        } catch (CharacterCodingException e) {
            throw corrupt(at, "malformed UTF-8 in a string");
        }
    }

    CorruptionException corrupt(int at, String detail) {
        return new CorruptionException(file, fileOffset + (at - start), detail);
    }
}
