package dev.lacuna.sstable;

import dev.lacuna.kv.KeyPrefix;
import dev.lacuna.kv.SstableOptions;
import static dev.lacuna.sstable.SstableFormat.BLOCK_TRAILER_SIZE;

import dev.lacuna.storage.StorageIOException;
import dev.lacuna.base.InternalKey;
import dev.lacuna.base.Varints;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.util.Arrays;
import java.util.Objects;
import net.jpountz.lz4.LZ4Compressor;

/**
 * Writes one SSTable (layout in FORMAT.md) from entries given in strictly increasing
 * {@link InternalKey#COMPARATOR} order: flushes and compactions feed it, then {@link #finish()} writes the
 * filter, properties and index blocks and the footer and forces the file.
 *
 * <p>The writer does not own the file: the caller creates it (empty), and after {@link #finish()} closes
 * it, syncs its directory and records it in the manifest; after {@link #abandon()} (or a failure) the
 * caller deletes it. Writes are buffered (64 KiB) and positional from offset 0. An I/O error is a
 * {@link StorageIOException} and leaves the writer failed: only {@link #abandon()} may follow.
 *
 * <p>Not thread-safe: one thread writes a table.
 */
public final class SstableWriter {
    private static final int WRITE_BUFFER = 64 << 10;

    private enum State { OPEN, FINISHED, ABANDONED, FAILED }

    private final VfsFile file;
    private final SstableOptions options;
    private final long oldestTombstoneTime;
    private final LZ4Compressor compressor;
    private final BlockBuilder dataBlock;
    private final BlockBuilder indexBlock;
    private final BloomFilter.Builder filter;
    private final ByteSink out = new ByteSink(WRITE_BUFFER + 1024);
    private final ByteSink scratch = new ByteSink(32);
    private byte[] compressBuffer = new byte[0];
    /** Data blocks in a row whose compression did not save 1/8. */
    private int incompressibleRun;
    /** Data blocks still to be written without trying to compress them. */
    private int skipCompression;
    private boolean lastBlockCompressed;
    private static final int INCOMPRESSIBLE_BEFORE_SKIPPING = 4;
    private static final int BLOCKS_SKIPPED = 32;

    /** File offset of the next block (bytes written plus bytes buffered in {@link #out}). */
    private long offset;
    private long flushedOffset;

    private byte[] lastKey = new byte[64];
    private int lastKeyLength = -1;
    private byte[] firstKey;
    private byte[] lastPrefix = new byte[64];
    private int lastPrefixLength = -1;
    /** Handle of the last data block written, whose index entry waits for the next key (to shorten it). */
    private BlockHandle pendingHandle;

    private long entries;
    private long deletions;
    private long dataBlocks;
    private long rawKeySize;
    private long rawValueSize;
    private long minSequence = Long.MAX_VALUE;
    private long maxSequence = Long.MIN_VALUE;
    private State state = State.OPEN;
    private SstableProperties properties;

    /**
     * @param file                an empty file open for writing; the writer writes from offset 0
     * @param options             block size, compression, filter
     * @param oldestTombstoneTime epoch millis of the oldest deletion the caller is about to write (for a
     *                            flush, the memtable's oldest; for a compaction, the oldest of its inputs');
     *                            recorded in {@link SstableProperties#oldestTombstoneTime()} if the table ends up
     *                            holding a deletion, otherwise {@link Long#MAX_VALUE} is recorded
     * @param lz4                 the store's LZ4 implementation (used if {@code options} compress)
     */
    public SstableWriter(VfsFile file, SstableOptions options, long oldestTombstoneTime, Lz4 lz4) {
        this.file = Objects.requireNonNull(file, "file");
        this.options = Objects.requireNonNull(options, "options");
        this.oldestTombstoneTime = oldestTombstoneTime;
        this.compressor = options.compression() ? lz4.compressor() : null;
        this.dataBlock = new BlockBuilder(options.restartInterval(), options.blockSize());
        this.indexBlock = new BlockBuilder(SstableFormat.INDEX_RESTART_INTERVAL, 4096);
        this.filter = new BloomFilter.Builder(options.bloomBitsPerKey());
    }

    /**
     * Appends an entry.
     *
     * @param internalKey an internal key (user key + 8-byte trailer with a known kind) sorting strictly
     *                    after the previous one; at most 1 MiB
     * @param value       the value (empty for deletions), at most 64 MiB; both arrays are copied
     * @throws IllegalArgumentException if the key is out of order, malformed or too large
     * @throws IllegalStateException    after {@link #finish()}, {@link #abandon()} or a failure
     * @throws StorageIOException       if writing a full block fails
     */
    public void add(byte[] internalKey, byte[] value) {
        requireOpen();
        int keyLength = internalKey.length;
        if (keyLength < InternalKey.TRAILER_SIZE || keyLength > SstableFormat.MAX_KEY_SIZE) {
            throw new IllegalArgumentException("internal key of " + keyLength + " bytes");
        }
        if (value.length > SstableFormat.MAX_VALUE_SIZE) {
            throw new IllegalArgumentException("value of " + value.length + " bytes exceeds "
                    + SstableFormat.MAX_VALUE_SIZE);
        }
        int kind = internalKey[keyLength - 1] & 0xFF;
        if (kind != InternalKey.KIND_PUT && kind != InternalKey.KIND_DELETE && kind != InternalKey.KIND_SINGLE_DELETE) {
            throw new IllegalArgumentException("unknown entry kind " + kind);
        }
        boolean newUserKey = true;
        if (lastKeyLength >= 0) {
            if (InternalKey.compare(lastKey, 0, lastKeyLength, internalKey, 0, keyLength) >= 0) {
                throw new IllegalArgumentException("keys must be added in strictly increasing order");
            }
            int userLength = keyLength - InternalKey.TRAILER_SIZE;
            newUserKey = !Arrays.equals(lastKey, 0, lastKeyLength - InternalKey.TRAILER_SIZE, internalKey, 0, userLength);
        }
        int prefixLength = newUserKey ? prefixLength(internalKey) : -1;
        // Nothing is changed above this line, so a rejected entry leaves the writer usable.
        if (pendingHandle != null) {
            addIndexEntry(separator(lastKey, lastKeyLength, internalKey), pendingHandle);
            pendingHandle = null;
        }
        if (newUserKey) {
            addToFilter(internalKey, prefixLength);
        }
        dataBlock.add(internalKey, value);

        long sequence = InternalKey.sequence(internalKey);
        minSequence = Math.min(minSequence, sequence);
        maxSequence = Math.max(maxSequence, sequence);
        entries++;
        if (kind != InternalKey.KIND_PUT) {
            deletions++;
        }
        rawKeySize += keyLength;
        rawValueSize += value.length;
        if (firstKey == null) {
            firstKey = internalKey.clone();
        }
        if (lastKey.length < keyLength) {
            lastKey = new byte[Math.max(keyLength, lastKey.length * 2)];
        }
        System.arraycopy(internalKey, 0, lastKey, 0, keyLength);
        lastKeyLength = keyLength;

        if (dataBlock.estimatedSize() >= options.blockSize()) {
            flushDataBlock();
        }
    }

    /**
     * The size the file would have if finished now (excluding the filter, properties and index blocks not
     * yet written); after {@link #finish()}, the exact file size.
     */
    public long estimatedFileSize() {
        if (state == State.FINISHED) {
            return offset;
        }
        return offset + (dataBlock.isEmpty() ? 0 : dataBlock.estimatedSize());
    }

    /** Entries added so far. */
    public long entries() {
        return entries;
    }

    /**
     * Writes the last data block, the filter, properties and index blocks and the footer, then
     * {@link VfsFile#force() forces} the file. The caller then closes the file and syncs its directory.
     *
     * @return the table's properties, as a reader will see them
     * @throws IllegalStateException if no entry was added (an empty table is never written: abandon it),
     *                               or after {@link #finish()}, {@link #abandon()} or a failure
     * @throws StorageIOException    if a write or the force fails
     */
    public SstableProperties finish() {
        requireOpen();
        if (entries == 0) {
            throw new IllegalStateException("a table needs at least one entry; abandon() an empty one");
        }
        try {
            if (!dataBlock.isEmpty()) {
                flushDataBlock();
            }
            long dataSize = offset;
            addIndexEntry(Arrays.copyOf(lastKey, lastKeyLength), pendingHandle);
            pendingHandle = null;

            ByteSink meta = new ByteSink((int) Math.min(Integer.MAX_VALUE - 64, filter.estimatedSize() + 16));
            filter.finish(meta);
            BlockHandle filterHandle = writeBlock(meta.array(), meta.size(), false);

            properties = new SstableProperties(SstableFormat.VERSION, entries, deletions, dataBlocks, dataSize,
                    rawKeySize, rawValueSize, firstKey, Arrays.copyOf(lastKey, lastKeyLength), minSequence,
                    maxSequence, deletions > 0 ? oldestTombstoneTime : Long.MAX_VALUE);
            meta = new ByteSink(128 + 2 * lastKeyLength);
            properties.encodeTo(meta);
            BlockHandle propertiesHandle = writeBlock(meta.array(), meta.size(), false);

            ByteSink index = indexBlock.finish();
            BlockHandle indexHandle = writeBlock(index.array(), index.size(), options.compression());

            byte[] footer = new Footer(indexHandle, filterHandle, propertiesHandle).encode();
            out.putBytes(footer, 0, footer.length);
            offset += footer.length;
            flushBuffer();
            file.force();
        } catch (IOException e) {
            state = State.FAILED;
            throw new StorageIOException("writing SSTable " + file.name() + " failed", e);
        } catch (RuntimeException e) {
            state = State.FAILED;
            throw e;
        }
        state = State.FINISHED;
        return properties;
    }

    /**
     * Gives up on the table: nothing more is written and buffers are released. The caller deletes the
     * file. Does nothing after {@link #finish()} or a previous abandon.
     */
    public void abandon() {
        if (state != State.FINISHED) {
            state = State.ABANDONED;
            out.reset();
            dataBlock.reset();
        }
    }

    /** The length of the key's prefix by the options' {@link KeyPrefix}, checked. */
    private int prefixLength(byte[] internalKey) {
        int userLength = internalKey.length - InternalKey.TRAILER_SIZE;
        if (options.keyPrefix() == KeyPrefix.WHOLE_KEY || options.bloomBitsPerKey() == 0) {
            return userLength;
        }
        int prefixLength = options.keyPrefix().prefixLength(Arrays.copyOf(internalKey, userLength));
        if (prefixLength < 0 || prefixLength > userLength) {
            throw new IllegalArgumentException("keyPrefix returned " + prefixLength + " for a user key of "
                    + userLength + " bytes");
        }
        return prefixLength;
    }

    /** Adds the whole user key and, once per run of keys sharing it, its prefix. */
    private void addToFilter(byte[] internalKey, int prefixLength) {
        int userLength = internalKey.length - InternalKey.TRAILER_SIZE;
        filter.add(internalKey, 0, userLength);
        if (prefixLength == userLength) {
            return; // the whole key is the prefix and is already in the filter
        }
        if (prefixLength == lastPrefixLength && Arrays.equals(lastPrefix, 0, prefixLength, internalKey, 0, prefixLength)) {
            return; // consecutive keys of one prefix: add it once
        }
        filter.add(internalKey, 0, prefixLength);
        if (lastPrefix.length < prefixLength) {
            lastPrefix = new byte[Math.max(prefixLength, lastPrefix.length * 2)];
        }
        System.arraycopy(internalKey, 0, lastPrefix, 0, prefixLength);
        lastPrefixLength = prefixLength;
    }

    private void flushDataBlock() {
        ByteSink contents = dataBlock.finish();
        try {
            // Data that did not compress in the last few blocks (random or already compressed values)
            // is unlikely to start now: skip the attempt for a while and sample again later.
            boolean tryCompression = options.compression() && skipCompression == 0;
            if (skipCompression > 0) {
                skipCompression--;
            }
            pendingHandle = writeBlock(contents.array(), contents.size(), tryCompression);
            if (tryCompression) {
                incompressibleRun = lastBlockCompressed ? 0 : incompressibleRun + 1;
                if (incompressibleRun >= INCOMPRESSIBLE_BEFORE_SKIPPING) {
                    incompressibleRun = 0;
                    skipCompression = BLOCKS_SKIPPED;
                }
            }
        } catch (IOException e) {
            state = State.FAILED;
            throw new StorageIOException("writing SSTable " + file.name() + " failed", e);
        }
        dataBlock.reset();
        dataBlocks++;
    }

    private void addIndexEntry(byte[] key, BlockHandle handle) {
        scratch.reset();
        handle.encodeTo(scratch);
        indexBlock.add(key, key.length, scratch.array(), 0, scratch.size());
    }

    /** Appends {@code payload, type, crc}, compressed if asked and worth it; returns its handle. */
    private BlockHandle writeBlock(byte[] contents, int length, boolean compress) throws IOException {
        long blockOffset = offset;
        byte[] payload = contents;
        int payloadLength = length;
        byte type = SstableFormat.NO_COMPRESSION;
        lastBlockCompressed = false;
        if (compress && length > 0) {
            int bound = 5 + compressor.maxCompressedLength(length);
            if (compressBuffer.length < bound) {
                compressBuffer = new byte[bound];
            }
            int header = Varints.encode(compressBuffer, 0, length);
            int n = compressor.compress(contents, 0, length, compressBuffer, header, bound - header);
            // Keep the compressed form only if it saves at least 1/8, as LevelDB does.
            if (header + n <= length - length / 8) {
                payload = compressBuffer;
                payloadLength = header + n;
                type = SstableFormat.LZ4_COMPRESSION;
                lastBlockCompressed = true;
            }
        }
        int crc = SstableFormat.blockCrc(payload, 0, payloadLength, type);
        out.putBytes(payload, 0, payloadLength);
        out.putByte(type);
        out.putIntLE(crc);
        offset += payloadLength + BLOCK_TRAILER_SIZE;
        if (out.size() >= WRITE_BUFFER) {
            flushBuffer();
        }
        return new BlockHandle(blockOffset, payloadLength);
    }

    private void flushBuffer() throws IOException {
        if (out.size() > 0) {
            file.write(flushedOffset, out.array(), 0, out.size());
            flushedOffset += out.size();
            out.reset();
        }
    }

    /**
     * A short key {@code s} with {@code last ≤ s < next} for the index (LevelDB's
     * {@code FindShortestSeparator}): the user key of {@code last} cut just after the first byte where it
     * differs from {@code next}'s, that byte incremented, with the smallest trailer. Falls back to
     * {@code last} itself when no shorter user key fits.
     */
    static byte[] separator(byte[] last, int lastLength, byte[] next) {
        int lastUser = lastLength - InternalKey.TRAILER_SIZE;
        int nextUser = next.length - InternalKey.TRAILER_SIZE;
        int common = Math.min(lastUser, nextUser);
        int diff = Arrays.mismatch(last, 0, common, next, 0, common);
        if (diff >= 0 && diff + 1 < lastUser) {
            int lastByte = last[diff] & 0xFF;
            if (lastByte < 0xFF && lastByte + 1 < (next[diff] & 0xFF)) {
                byte[] s = new byte[diff + 1 + InternalKey.TRAILER_SIZE];
                System.arraycopy(last, 0, s, 0, diff);
                s[diff] = (byte) (lastByte + 1);
                SstableFormat.putBigEndianLong(s, diff + 1, SstableFormat.SEPARATOR_TRAILER);
                return s;
            }
        }
        return Arrays.copyOf(last, lastLength);
    }

    private void requireOpen() {
        if (state != State.OPEN) {
            throw new IllegalStateException("table writer for " + file.name() + " is " + state.name().toLowerCase());
        }
    }
}
