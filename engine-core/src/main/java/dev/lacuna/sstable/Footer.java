package dev.lacuna.sstable;

import static dev.lacuna.sstable.SstableFormat.FOOTER_CRC_OFFSET;
import static dev.lacuna.sstable.SstableFormat.FOOTER_FILTER_OFFSET;
import static dev.lacuna.sstable.SstableFormat.FOOTER_INDEX_OFFSET;
import static dev.lacuna.sstable.SstableFormat.FOOTER_MAGIC_OFFSET;
import static dev.lacuna.sstable.SstableFormat.FOOTER_PROPERTIES_OFFSET;
import static dev.lacuna.sstable.SstableFormat.FOOTER_SIZE;
import static dev.lacuna.sstable.SstableFormat.FOOTER_VERSION_OFFSET;

import dev.lacuna.storage.CorruptionException;

/** The fixed-size footer at the end of a table: where the index, filter and properties blocks are. */
record Footer(BlockHandle index, BlockHandle filter, BlockHandle properties) {

    byte[] encode() {
        byte[] b = new byte[FOOTER_SIZE];
        putHandle(b, FOOTER_INDEX_OFFSET, index);
        putHandle(b, FOOTER_FILTER_OFFSET, filter);
        putHandle(b, FOOTER_PROPERTIES_OFFSET, properties);
        SstableFormat.putInt(b, FOOTER_VERSION_OFFSET, SstableFormat.VERSION);
        SstableFormat.putLong(b, FOOTER_MAGIC_OFFSET, SstableFormat.MAGIC);
        SstableFormat.putInt(b, FOOTER_CRC_OFFSET, SstableFormat.crc(b, 0, FOOTER_CRC_OFFSET));
        return b;
    }

    /**
     * Decodes and checks the footer read from {@code footerStart} of {@code file}: checksum, magic,
     * version, and that the three blocks are laid out as a writer lays them out (data blocks from offset
     * 0 up to the filter block, then the properties block, then the index block, then the footer).
     */
    static Footer decode(byte[] b, String file, long footerStart) {
        int storedCrc = SstableFormat.getInt(b, FOOTER_CRC_OFFSET);
        if (storedCrc != SstableFormat.crc(b, 0, FOOTER_CRC_OFFSET)) {
            throw new CorruptionException(file, footerStart, "footer checksum mismatch (not an SSTable, or damaged)");
        }
        if (SstableFormat.getLong(b, FOOTER_MAGIC_OFFSET) != SstableFormat.MAGIC) {
            throw new CorruptionException(file, footerStart + FOOTER_MAGIC_OFFSET, "bad SSTable magic number");
        }
        int version = SstableFormat.getInt(b, FOOTER_VERSION_OFFSET);
        if (version != SstableFormat.VERSION) {
            throw new CorruptionException(file, footerStart + FOOTER_VERSION_OFFSET,
                    "unsupported SSTable format version " + Integer.toUnsignedString(version)
                            + " (this reader knows " + SstableFormat.VERSION + ")");
        }
        BlockHandle index = handle(b, FOOTER_INDEX_OFFSET, file, footerStart);
        BlockHandle filter = handle(b, FOOTER_FILTER_OFFSET, file, footerStart);
        BlockHandle properties = handle(b, FOOTER_PROPERTIES_OFFSET, file, footerStart);
        if (filter.end() != properties.offset() || properties.end() != index.offset()
                || index.end() != footerStart) {
            throw new CorruptionException(file, footerStart, "footer block handles do not tile the file: filter "
                    + filter + ", properties " + properties + ", index " + index);
        }
        return new Footer(index, filter, properties);
    }

    private static BlockHandle handle(byte[] b, int at, String file, long footerStart) {
        long offset = SstableFormat.getLong(b, at);
        int size = SstableFormat.getInt(b, at + 8);
        if (offset < 0 || size < 0 || offset > footerStart
                || footerStart - offset < (long) size + SstableFormat.BLOCK_TRAILER_SIZE) {
            throw new CorruptionException(file, footerStart + at, "footer block handle " + offset + "+" + size
                    + " out of range");
        }
        return new BlockHandle(offset, size);
    }

    private static void putHandle(byte[] b, int at, BlockHandle h) {
        SstableFormat.putLong(b, at, h.offset());
        SstableFormat.putInt(b, at + 8, h.size());
    }
}
