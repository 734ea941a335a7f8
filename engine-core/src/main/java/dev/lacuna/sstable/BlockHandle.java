package dev.lacuna.sstable;

/**
 * Where a stored block lives: {@code size} payload bytes at {@code offset}, followed by the 5-byte
 * trailer. In an index entry it is encoded as {@code offset varint64, size varint32}.
 */
record BlockHandle(long offset, int size) {
    BlockHandle {
        if (offset < 0 || size < 0) {
            throw new IllegalArgumentException("bad handle " + offset + "+" + size);
        }
    }

    /** Offset just past the block's trailer. */
    long end() {
        return offset + size + SstableFormat.BLOCK_TRAILER_SIZE;
    }

    void encodeTo(ByteSink sink) {
        sink.putVarint64(offset);
        sink.putVarint32(size);
    }

    /** Decodes a handle that must fill {@code bytes[offset, offset+length)} exactly. */
    static BlockHandle decode(byte[] bytes, int offset, int length, String file, long fileOffset, String what) {
        ByteReader in = new ByteReader(bytes, offset, offset + length, file, fileOffset, what);
        long blockOffset = in.varint64();
        int size = in.varint32();
        in.expectEnd();
        return new BlockHandle(blockOffset, size);
    }
}
