package dev.lacuna.manifest;

import dev.lacuna.storage.CorruptionException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Reads the fields of one encoded edit, bounds-checked: a damaged edit is a {@link CorruptionException}. */
final class EditReader {
    private final byte[] b;
    private final String file;
    private final long fileOffset;
    private int pos;

    EditReader(byte[] b, String file, long fileOffset) {
        this.b = b;
        this.file = file;
        this.fileOffset = fileOffset;
    }

    boolean hasMore() {
        return pos < b.length;
    }

    long varint() {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (pos >= b.length) {
                throw corrupt("truncated varint");
            }
            int x = b[pos++] & 0xFF;
            v |= (long) (x & 0x7F) << shift;
            if ((x & 0x80) == 0) {
                return v;
            }
        }
        throw corrupt("varint too long");
    }

    int smallInt(int max) {
        long v = varint();
        if (v > max) {
            throw corrupt("value " + v + " out of range (at most " + max + ")");
        }
        return (int) v;
    }

    byte[] bytes() {
        int n = smallInt(b.length - pos);
        byte[] out = Arrays.copyOfRange(b, pos, pos + n);
        pos += n;
        return out;
    }

    String string() {
        return new String(bytes(), StandardCharsets.UTF_8);
    }

    CorruptionException corrupt(String detail) {
        return new CorruptionException(file, fileOffset, "manifest: " + detail + " in edit at byte " + pos);
    }
}
