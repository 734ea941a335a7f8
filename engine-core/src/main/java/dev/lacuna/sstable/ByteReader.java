package dev.lacuna.sstable;

import dev.lacuna.storage.CorruptionException;

/**
 * Reads the format's integers from {@code bytes[position, limit)}, checking every length against the
 * limit: anything malformed is a {@link CorruptionException} naming the file and the offset of the
 * structure being decoded (a block's offset in the file). Not thread-safe.
 */
final class ByteReader {
    private final byte[] bytes;
    private final int limit;
    private final String file;
    private final long fileOffset;
    private final String what;
    private int position;

    /**
     * @param file       file name for errors
     * @param fileOffset offset in the file reported for errors
     * @param what       what is being decoded, for errors ("properties block")
     */
    ByteReader(byte[] bytes, int position, int limit, String file, long fileOffset, String what) {
        this.bytes = bytes;
        this.position = position;
        this.limit = limit;
        this.file = file;
        this.fileOffset = fileOffset;
        this.what = what;
    }

    int position() {
        return position;
    }

    int remaining() {
        return limit - position;
    }

    int varint32() {
        long r = SstableFormat.decodeVarint32(bytes, position, limit);
        if (r < 0) {
            throw corrupt("bad varint32 at " + position);
        }
        position = (int) (r >>> 32);
        return (int) r;
    }

    /** A varint of at most 9 bytes whose value is a non-negative long. */
    long varint64() {
        long value = 0;
        for (int shift = 0; shift <= 56; shift += 7) {
            if (position >= limit) {
                throw corrupt("varint64 runs past the end at " + position);
            }
            int x = bytes[position++];
            value |= (long) (x & 0x7F) << shift;
            if (x >= 0) {
                return value;
            }
        }
        throw corrupt("bad varint64 before " + position);
    }

    long longLE() {
        need(8);
        long v = SstableFormat.getLong(bytes, position);
        position += 8;
        return v;
    }

    int unsignedByte() {
        need(1);
        return bytes[position++] & 0xFF;
    }

    /** A fresh copy of the next {@code length} bytes. */
    byte[] bytes(int length) {
        need(length);
        byte[] b = new byte[length];
        System.arraycopy(bytes, position, b, 0, length);
        position += length;
        return b;
    }

    /** Requires that everything was consumed. */
    void expectEnd() {
        if (position != limit) {
            throw corrupt((limit - position) + " unexpected bytes at the end");
        }
    }

    CorruptionException corrupt(String detail) {
        return new CorruptionException(file, fileOffset, what + ": " + detail);
    }

    private void need(int length) {
        if (length < 0 || length > limit - position) {
            throw corrupt(length + " bytes needed at " + position + ", " + (limit - position) + " left");
        }
    }
}
