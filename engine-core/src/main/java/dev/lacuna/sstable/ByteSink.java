package dev.lacuna.sstable;

import dev.lacuna.base.ByteBuilder;

/** A {@link ByteBuilder} with the table format's little-endian fixed-width integers. Not thread-safe. */
final class ByteSink extends ByteBuilder {
    ByteSink(int initialCapacity) {
        super(initialCapacity);
    }

    void putIntLE(int value) {
        int at = reserve(4);
        SstableFormat.putInt(array(), at, value);
    }

    void putLongLE(long value) {
        int at = reserve(8);
        SstableFormat.putLong(array(), at, value);
    }
}
