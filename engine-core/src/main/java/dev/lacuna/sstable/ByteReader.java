package dev.lacuna.sstable;

import dev.lacuna.base.BoundedReader;
import dev.lacuna.storage.CorruptionException;

/**
 * A {@link BoundedReader} over {@code bytes[position, limit)} for the table's metadata (block handles, the
 * properties block), with its little-endian fixed-width integers. Anything malformed is a
 * {@link CorruptionException} naming the file and the offset of the structure being decoded (a block's
 * offset in the file: positions inside a decompressed block name no byte of the file). Not thread-safe.
 */
final class ByteReader extends BoundedReader {
    private final String file;
    private final long fileOffset;
    private final String what;

    /**
     * @param file       file name for errors
     * @param fileOffset offset in the file reported for errors
     * @param what       what is being decoded, for errors ("properties block")
     */
    ByteReader(byte[] bytes, int position, int limit, String file, long fileOffset, String what) {
        super(bytes, position, limit, false);
        this.file = file;
        this.fileOffset = fileOffset;
        this.what = what;
    }

    long longLE() {
        int at = skip(8);
        return SstableFormat.getLong(array(), at);
    }

    /** Requires that everything was consumed. */
    void expectEnd() {
        if (!atEnd()) {
            throw corrupt(remaining() + " unexpected bytes at the end");
        }
    }

    CorruptionException corrupt(String detail) {
        return new CorruptionException(file, fileOffset, what + ": " + detail);
    }

    @Override
    protected CorruptionException malformed(int at, String detail) {
        return corrupt(detail + " at " + at);
    }
}
