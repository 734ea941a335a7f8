package dev.lacuna.manifest;

import dev.lacuna.base.BoundedReader;
import dev.lacuna.storage.CorruptionException;
import java.nio.charset.StandardCharsets;

/** Reads the fields of one encoded edit, bounds-checked: a damaged edit is a {@link CorruptionException}. */
final class EditReader extends BoundedReader {
    private final String file;
    private final long fileOffset;

    EditReader(byte[] b, String file, long fileOffset) {
        super(b, 0, b.length, false);
        this.file = file;
        this.fileOffset = fileOffset;
    }

    boolean hasMore() {
        return !atEnd();
    }

    /** A number: a varint of up to 64 bits, as the edit's writer puts every number. */
    long varint() {
        return uvarint64();
    }

    int smallInt(int max) {
        int at = position();
        long v = varint();
        if (v > max) {
            throw malformed(at, "value " + v + " out of range (at most " + max + ")");
        }
        return (int) v;
    }

    /** A byte string: a length that fits in the edit, then the bytes. */
    byte[] bytes() {
        return bytes(smallInt(remaining()));
    }

    String string() {
        return new String(bytes(), StandardCharsets.UTF_8);
    }

    /** A damaged edit, found where the reader is. */
    CorruptionException corrupt(String detail) {
        return malformed(position(), detail);
    }

    @Override
    protected CorruptionException malformed(int at, String detail) {
        return new CorruptionException(file, fileOffset, "manifest: " + detail + " in edit at byte " + at);
    }
}
