package dev.lacuna.inspect;

import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;
import dev.lacuna.sstable.BlockCache;
import dev.lacuna.sstable.Lz4;
import dev.lacuna.sstable.SstableProperties;
import dev.lacuna.sstable.SstableReader;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.NioVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * One SSTable ({@code sst_dump}): its properties as recorded when it was written, its bloom filter, a check of
 * every block against its checksum, and optionally every entry. Opening verifies the footer, index, filter and
 * properties blocks; {@link #verify()} and {@link #entries} read the data blocks. Damage is a
 * {@link CorruptionException} naming the file and the block's offset. Not thread-safe; close it when done.
 */
public final class SstableDump implements AutoCloseable {
    /**
     * What the table's properties and filter say.
     *
     * @param fileSize             the file's size in bytes
     * @param formatVersion        the table format version
     * @param entries              entries of every kind, deletions included
     * @param deletions            deletions (tombstones)
     * @param dataBlocks           data blocks
     * @param dataSize             bytes of the data blocks, trailers included
     * @param rawKeySize           bytes of the internal keys before prefix compression
     * @param rawValueSize         bytes of the values before compression
     * @param smallestKey          the first key, printable, with its sequence and kind
     * @param largestKey           the last key, likewise
     * @param minSequence          the smallest sequence number of an entry
     * @param maxSequence          the largest
     * @param oldestTombstoneMillis epoch millis of the oldest deletion, or {@link Long#MAX_VALUE} if none
     * @param filterBits           the bloom filter's bits (0: no filter)
     * @param filterProbes         its probes per key
     */
    public record Properties(long fileSize, int formatVersion, long entries, long deletions, long dataBlocks,
                             long dataSize, long rawKeySize, long rawValueSize, String smallestKey, String largestKey,
                             long minSequence, long maxSequence, long oldestTombstoneMillis, long filterBits,
                             int filterProbes) {
    }

    /**
     * One entry: every version and every deletion is one.
     *
     * @param key      the user key, printable
     * @param sequence its sequence number (the LSN of the write)
     * @param kind     {@code put}, {@code delete} or {@code single-delete}
     * @param value    the value, printable; empty for deletions
     */
    public record Entry(String key, long sequence, String kind, String value) {
    }

    private final SstableReader reader;
    private final long size;

    private SstableDump(SstableReader reader, long size) {
        this.reader = reader;
        this.size = size;
    }

    /**
     * Opens table file {@code path}, verifying its footer, index, filter and properties.
     *
     * @throws CorruptionException naming the file and offset if one of those is damaged
     * @throws StorageIOException  if the file cannot be read
     */
    public static SstableDump open(Path path) {
        VfsFile file = null;
        try {
            file = new NioVfs().openReadOnly(path);
            long size = file.size();
            return new SstableDump(SstableReader.open(file, 1, new BlockCache(0), Lz4.fastest()), size);
        } catch (IOException e) {
            WalDump.closeQuietly(file);
            throw new StorageIOException("cannot read " + path + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            WalDump.closeQuietly(file);
            throw e;
        }
    }

    /** The properties and filter. */
    public Properties properties() {
        SstableProperties p = reader.properties();
        return new Properties(size, p.formatVersion(), p.entries(), p.deletions(), p.dataBlocks(), p.dataSize(),
                p.rawKeySize(), p.rawValueSize(), internalKey(p.smallestKey()), internalKey(p.largestKey()),
                p.minSequence(), p.maxSequence(), p.oldestTombstoneTime(), reader.filterBits(), reader.filterProbes());
    }

    /**
     * Reads every data block from the file and checks it (checksum, entries in order, their count against the
     * properties).
     *
     * @return the entries read
     * @throws CorruptionException naming the file and the offset of the first damaged block
     */
    public long verify() {
        return reader.verify();
    }

    /**
     * Hands every entry, in order, to {@code sink}.
     *
     * @throws CorruptionException naming the file and the offset of a damaged block
     */
    public void entries(Consumer<Entry> sink) {
        try (InternalIterator it = reader.iterator(false)) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                byte[] key = it.key();
                int kind = InternalKey.kind(key);
                sink.accept(new Entry(Printable.key(InternalKey.userKey(key)), InternalKey.sequence(key), kind(kind),
                        InternalKey.isDeletion(key) ? "" : Printable.value(it.value())));
            }
        }
    }

    /** An internal key as {@code key @sequence kind}. */
    static String internalKey(byte[] internalKey) {
        return Printable.key(InternalKey.userKey(internalKey)) + " @" + InternalKey.sequence(internalKey) + " "
                + kind(InternalKey.kind(internalKey));
    }

    static String kind(int kind) {
        return switch (kind) {
            case InternalKey.KIND_PUT -> "put";
            case InternalKey.KIND_DELETE -> "delete";
            case InternalKey.KIND_SINGLE_DELETE -> "single-delete";
            default -> "kind " + kind;
        };
    }

    @Override
    public void close() {
        reader.close();
    }
}
