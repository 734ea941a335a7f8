package dev.lacuna.sstable;

import static dev.lacuna.sstable.SstableFormat.BLOCK_TRAILER_SIZE;

import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;
import dev.lacuna.base.Varints;
import dev.lacuna.vfs.VfsFile;
import java.io.EOFException;
import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4SafeDecompressor;

/**
 * An open SSTable. {@link #open} reads and verifies everything but the data blocks (footer, index,
 * filter and properties, each against its checksum, and the index's block handles against the file's
 * layout) and keeps those in memory; data blocks are read on demand, verified, decompressed once and
 * shared through the {@link BlockCache}.
 *
 * <p>Thread-safe: any number of threads may create iterators and call {@link #get} concurrently; each
 * iterator is independent (and itself single-threaded).
 *
 * <p>Ownership: the reader owns the file once {@link #open} succeeds and closes it in {@link #close()}.
 * Iterators read through the reader's file, so the caller (the engine) reference-counts readers and closes
 * one only when no iterator over it remains open; an iterator used after its reader was closed fails with a
 * {@link StorageIOException}. Closing the reader leaves its blocks in the cache (another reader of the
 * same file may use them); drop them with {@link BlockCache#evictFile(long)} when the file is deleted.
 *
 * <p>Damage is reported as a {@link CorruptionException} naming the file and the offset of the damaged
 * block or footer: at open for the footer, index, filter and properties; when a data block is first read
 * otherwise.
 */
public final class SstableReader implements AutoCloseable {
    private final VfsFile file;
    private final String name;
    private final long fileNumber;
    private final BlockCache cache;
    private final LZ4SafeDecompressor decompressor;
    private final Block index;
    private final BloomFilter filter;
    private final SstableProperties properties;
    private final byte[] smallestKey;
    private final byte[] largestKey;
    private final long dataEnd;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * An entry found by {@link #get}: its internal key (whose kind may be a deletion) and its value.
     * The arrays belong to the caller.
     */
    public record Entry(byte[] key, byte[] value) {
    }

    private SstableReader(VfsFile file, long fileNumber, BlockCache cache, Lz4 lz4) {
        this.file = file;
        this.name = file.name();
        this.fileNumber = fileNumber;
        this.cache = cache;
        this.decompressor = lz4.decompressor();
        long size;
        try {
            size = file.size();
        } catch (IOException e) {
            throw new StorageIOException("reading the size of SSTable " + name + " failed", e);
        }
        if (size < SstableFormat.FOOTER_SIZE) {
            throw new CorruptionException(name, 0, "file of " + size + " bytes is too short for an SSTable footer");
        }
        long footerStart = size - SstableFormat.FOOTER_SIZE;
        byte[] footerBytes = new byte[SstableFormat.FOOTER_SIZE];
        readFully(footerStart, footerBytes, SstableFormat.FOOTER_SIZE, "footer");
        Footer footer = Footer.decode(footerBytes, name, footerStart);
        this.dataEnd = footer.filter().offset();

        byte[][] contents = new byte[1][];
        int length = readBlock(footer.properties(), SstableFormat.MAX_META_BLOCK_SIZE, "properties block", contents);
        this.properties = SstableProperties.decode(contents[0], length, name, footer.properties().offset());
        this.smallestKey = properties.smallestKey();
        this.largestKey = properties.largestKey();

        length = readBlock(footer.filter(), SstableFormat.MAX_META_BLOCK_SIZE, "filter block", contents);
        this.filter = BloomFilter.parse(contents[0], length, name, footer.filter().offset());

        length = readBlock(footer.index(), SstableFormat.MAX_META_BLOCK_SIZE, "index block", contents);
        this.index = new Block(contents[0], length, name, footer.index().offset());
        checkIndex(footer.index().offset());
    }

    /**
     * Opens a table and verifies its footer, index, filter and properties.
     *
     * @param file       the table file, open for reading; owned by the reader if this returns, still the
     *                   caller's to close if it throws
     * @param fileNumber the table's number, unique among the tables sharing {@code cache}
     * @param cache      the block cache to read data blocks through (a {@code new BlockCache(0)} caches
     *                   nothing)
     * @param lz4        the store's LZ4 implementation, to decompress blocks with
     * @throws CorruptionException if any of those is damaged, with the file and the damaged offset
     * @throws StorageIOException  if reading fails
     */
    public static SstableReader open(VfsFile file, long fileNumber, BlockCache cache, Lz4 lz4) {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(cache, "cache");
        Objects.requireNonNull(lz4, "lz4");
        return new SstableReader(file, fileNumber, cache, lz4);
    }

    /** The number the table was opened under. */
    public long fileNumber() {
        return fileNumber;
    }

    /** The bloom filter's size in bits (m), or 0 if the table has none: for tools. */
    public long filterBits() {
        return filter == null ? 0 : filter.bitCount();
    }

    /** The bloom filter's probes per key (k), or 0 if the table has none: for tools. */
    public int filterProbes() {
        return filter == null ? 0 : filter.probes();
    }

    /** The table's properties, as recorded when it was written. */
    public SstableProperties properties() {
        return properties;
    }

    /**
     * A new iterator over every entry (every version, deletions included), positioned nowhere, which caches
     * the data blocks it reads. The caller closes it; see the class comment for the reader's lifetime.
     */
    public InternalIterator iterator() {
        return new SstableIterator(this, true);
    }

    /**
     * A new iterator as {@link #iterator()}; with {@code fillCache} false the data blocks it reads are not
     * added to the cache (blocks already there are still used), so a compaction reading whole tables does
     * not evict the blocks that point reads need.
     */
    public InternalIterator iterator(boolean fillCache) {
        return new SstableIterator(this, fillCache);
    }

    /**
     * Whether the table may hold a key with prefix {@code prefix}, as extracted by the {@link dev.lacuna.kv.KeyPrefix}
     * the table was written with; false is certain. Always true if the table has no filter.
     *
     * <p>Only meaningful for prefixes that {@link dev.lacuna.kv.KeyPrefix} produces: with {@link dev.lacuna.kv.KeyPrefix#WHOLE_KEY}
     * (the default) the filter holds whole user keys only, so this answers whether {@code prefix} is a
     * whole user key, and a partition prefix would be wrongly reported absent.
     */
    public boolean mayContainPrefix(byte[] prefix) {
        return filter == null || filter.mayContain(prefix, 0, prefix.length);
    }

    /** Whether the table may hold an entry for {@code userKey}; false is certain. Always true without a filter. */
    public boolean mayContainKey(byte[] userKey) {
        return filter == null || filter.mayContain(userKey, 0, userKey.length);
    }

    /**
     * The newest entry for {@code userKey} with sequence number ≤ {@code snapshot}, which may be a deletion
     * (check {@link InternalKey#isDeletion}), or null if the table holds none. Consults the bloom filter
     * and the key range first, so a miss usually reads nothing.
     *
     * @throws CorruptionException if a data block it reads is damaged
     */
    public Entry get(byte[] userKey, long snapshot) {
        if (snapshot < 0 || snapshot > InternalKey.MAX_SEQUENCE) {
            throw new IllegalArgumentException("snapshot out of range: " + snapshot);
        }
        if (!mayContainKey(userKey)) {
            return null;
        }
        if (InternalKey.compareUserKey(smallestKey, userKey) > 0 || InternalKey.compareUserKey(largestKey, userKey) < 0) {
            return null;
        }
        try (SstableIterator it = new SstableIterator(this, true)) {
            it.seek(InternalKey.seekKey(userKey, snapshot));
            if (it.valid() && it.currentUserKeyEquals(userKey)) {
                return new Entry(it.key(), it.value());
            }
            return null;
        }
    }

    /**
     * Whether {@link #close} was called. Set before the file is closed, so a read that failed because the file was
     * closed under it finds this true afterwards; what the reader holds in memory (index, filter, key range) stays
     * valid after a close.
     */
    public boolean isClosed() {
        return closed.get();
    }

    /**
     * Closes the file (once; later calls do nothing). The caller ensures no iterator is still in use.
     *
     * @throws StorageIOException if closing the file fails
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            try {
                file.close();
            } catch (IOException e) {
                throw new StorageIOException("closing SSTable " + name + " failed", e);
            }
        }
    }

    /** The file name and number, for messages. */
    @Override
    public String toString() {
        return "SstableReader[" + name + ", #" + fileNumber + "]";
    }

    /**
     * Reads every data block from the file, bypassing the cache so that what is checked is what is on disk,
     * verifies each against its checksum, decodes its entries, and checks that they are in order and as many
     * as the properties say: with {@link #open}'s checks, every byte of the table is verified. What {@code
     * lacuna check} and RocksDB's {@code VerifyChecksum} do.
     *
     * @return the number of entries
     * @throws CorruptionException naming the file and the offset of the first damaged block
     * @throws StorageIOException  if reading fails
     */
    public long verify() {
        long entries = 0;
        byte[] previous = null;
        BlockIterator it = index.iterator();
        for (it.seekToFirst(); it.valid(); it.next()) {
            BlockHandle handle = handleAt(it);
            byte[][] contents = new byte[1][];
            int length = readBlock(handle, SstableFormat.MAX_DATA_BLOCK_SIZE, "data block", contents);
            BlockIterator entry = new Block(contents[0], length, name, handle.offset()).iterator();
            for (entry.seekToFirst(); entry.valid(); entry.next()) {
                byte[] key = entry.key();
                if (previous != null && InternalKey.compare(previous, key) >= 0) {
                    throw new CorruptionException(name, handle.offset(), "data block: keys out of order at entry "
                            + entries);
                }
                previous = key;
                entries++;
            }
            if (previous != null && InternalKey.compare(previous, it.key()) > 0) {
                throw new CorruptionException(name, handle.offset(), "data block: its last key is past its index key");
            }
        }
        if (entries != properties.entries()) {
            throw new CorruptionException(name, 0, "the data blocks hold " + entries + " entries, the properties say "
                    + properties.entries());
        }
        return entries;
    }

    Block indexBlock() {
        return index;
    }

    String name() {
        return name;
    }

    /** The data block at {@code handle}, from the cache or read, verified and decoded. */
    Block dataBlock(BlockHandle handle, boolean fillCache) {
        Block block = cache.get(fileNumber, handle.offset());
        if (block == null) {
            byte[][] contents = new byte[1][];
            int length = readBlock(handle, SstableFormat.MAX_DATA_BLOCK_SIZE, "data block", contents);
            block = new Block(contents[0], length, name, handle.offset());
            if (fillCache) {
                cache.put(fileNumber, handle.offset(), block);
            }
        }
        return block;
    }

    /** Decodes the handle in the index entry the iterator is on. */
    BlockHandle handleAt(BlockIterator indexIterator) {
        return BlockHandle.decode(indexIterator.data(), indexIterator.valueOffset(), indexIterator.valueLength(),
                name, index.fileOffset(), "index block");
    }

    /**
     * Reads the stored block at {@code handle}, verifies its checksum and decompresses it.
     *
     * @param out receives the contents array in {@code out[0]}
     * @return the contents' length (the array may be longer)
     */
    private int readBlock(BlockHandle handle, int maxLength, String what, byte[][] out) {
        int size = handle.size();
        long offset = handle.offset();
        if (size > SstableFormat.MAX_META_BLOCK_SIZE) {
            throw new CorruptionException(name, offset, what + " of " + size + " bytes is too large");
        }
        byte[] stored = new byte[size + BLOCK_TRAILER_SIZE];
        readFully(offset, stored, stored.length, what);
        byte type = stored[size];
        int crc = SstableFormat.getInt(stored, size + 1);
        if (crc != SstableFormat.blockCrc(stored, 0, size, type)) {
            throw new CorruptionException(name, offset, what + " checksum mismatch");
        }
        if (size > maxLength) {
            throw new CorruptionException(name, offset, what + " of " + size + " bytes is too large");
        }
        switch (type) {
            case SstableFormat.NO_COMPRESSION -> {
                out[0] = stored;
                return size;
            }
            case SstableFormat.LZ4_COMPRESSION -> {
                long r = Varints.decode32(stored, 0, size);
                if (r < 0) {
                    throw new CorruptionException(name, offset, what + ": bad uncompressed length");
                }
                int length = (int) r;
                int start = (int) (r >>> 32);
                int compressed = size - start;
                if (length > maxLength || length > (long) compressed * SstableFormat.LZ4_MAX_RATIO + 16) {
                    throw new CorruptionException(name, offset, what + ": uncompressed length " + length
                            + " impossible for " + compressed + " compressed bytes");
                }
                byte[] contents = new byte[length];
                int n;
                try {
                    n = decompressor.decompress(stored, start, compressed, contents, 0, length);
                } catch (LZ4Exception e) {
                    throw new CorruptionException(name, offset, what + ": LZ4 data malformed (" + e.getMessage() + ")");
                }
                if (n != length) {
                    throw new CorruptionException(name, offset, what + ": decompressed to " + n + " bytes, expected "
                            + length);
                }
                out[0] = contents;
                return length;
            }
            default -> throw new CorruptionException(name, offset + size, what + ": unknown compression type "
                    + (type & 0xFF));
        }
    }

    private void readFully(long offset, byte[] dst, int length, String what) {
        try {
            file.readFully(offset, dst, 0, length);
        } catch (EOFException e) {
            throw new CorruptionException(name, offset, what + " runs past the end of the file");
        } catch (IOException e) {
            throw new StorageIOException("reading " + what + " at " + offset + " of SSTable " + name + " failed", e);
        }
    }

    /**
     * Checks that the index's handles tile the data region exactly, in order, and agree with the
     * properties, so that an iterator never reads outside the data blocks.
     */
    private void checkIndex(long indexOffset) {
        long expected = 0;
        long count = 0;
        byte[] previous = null;
        BlockIterator it = index.iterator();
        for (it.seekToFirst(); it.valid(); it.next()) {
            BlockHandle h = handleAt(it);
            if (h.offset() != expected || h.end() > dataEnd) {
                throw new CorruptionException(name, indexOffset, "index entry " + count + " points at " + h
                        + ", expected a block at " + expected + " ending by " + dataEnd);
            }
            byte[] key = it.key();
            if (previous != null && InternalKey.compare(previous, key) >= 0) {
                throw new CorruptionException(name, indexOffset, "index keys out of order at entry " + count);
            }
            previous = key;
            expected = h.end();
            count++;
        }
        if (expected != dataEnd || count != properties.dataBlocks() || dataEnd != properties.dataSize()) {
            throw new CorruptionException(name, indexOffset, "index covers " + count + " blocks up to " + expected
                    + ", properties say " + properties.dataBlocks() + " blocks up to " + properties.dataSize()
                    + ", data ends at " + dataEnd);
        }
    }
}
