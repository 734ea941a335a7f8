package dev.lacuna.item;

import dev.lacuna.base.BoundedReader;
import dev.lacuna.storage.CorruptionException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The decoders' cursor over {@code buf[start, end)}: a strict {@link BoundedReader} (varints in their
 * shortest form) with the item format's strict UTF-8, where every failure is a {@link CorruptionException}
 * naming the file and the absolute offset ({@code fileOffset} + position − start) of the field that is
 * wrong. Not thread-safe.
 */
final class ByteIn extends BoundedReader {
    private int start;
    private final String file;
    private final long fileOffset;

    ByteIn(byte[] buf, int offset, int length, String file, long fileOffset) {
        super(buf, offset, offset + length, true);
        this.start = offset;
        this.file = file;
        this.fileOffset = fileOffset;
    }

    /** Reads all of {@code buf} from now on, as a new reader of it would (same file and file offset). */
    void reset(byte[] buf) {
        reset(buf, 0, buf.length);
        start = 0;
    }

    /** {@code n} bytes of strict UTF-8 (no overlong forms, no encoded surrogates, nothing past U+10FFFF). */
    String utf8(int n) {
        int at = skip(n);
        return utf8(array(), at, n, at);
    }

    /** Strict UTF-8 decoding of {@code b[offset, offset + n)}; a failure names position {@code at}. */
    String utf8(byte[] b, int offset, int n, int at) {
        // Most names and many values are ASCII. The JDK's US-ASCII decoding tests the bytes for a negative one
        // with a vectorised intrinsic and copies them; only a byte above 0x7F becomes U+FFFD, which a string of
        // ASCII cannot hold and which indexOf finds in no time in a string of Latin-1 characters. Anything
        // else goes to the strict decoder.
        String ascii = new String(b, offset, n, StandardCharsets.US_ASCII);
        if (ascii.indexOf('\uFFFD') < 0) {
            return ascii;
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

    /** The failure of the field at position {@code at}. */
    CorruptionException corrupt(int at, String detail) {
        return new CorruptionException(file, fileOffset + (at - start), detail);
    }

    @Override
    protected CorruptionException malformed(int at, String detail) {
        return corrupt(at, detail);
    }
}
