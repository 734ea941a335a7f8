package dev.lacuna.lsm;

import dev.lacuna.base.InternalKey;
import dev.lacuna.manifest.FileMeta;
import dev.lacuna.kv.SstableOptions;
import dev.lacuna.sstable.SstableProperties;
import dev.lacuna.sstable.Lz4;
import dev.lacuna.sstable.SstableWriter;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Writes the output of a flush or compaction as SSTables, starting a new file once one grows past the
 * target size — but only between user keys, so all versions of a key stay in one file and the files of a
 * level keep disjoint user-key ranges. {@link #finish()} fsyncs every file and their directory, so the
 * manifest may refer to them. Not thread-safe.
 */
final class SstableOutputs {
    private final Vfs vfs;
    private final Path dir;
    private final SstableOptions options;
    private final Lz4 lz4;
    private final LongSupplier fileNumbers;
    private final long targetBytes;
    private final long oldestTombstoneTime;

    private final List<FileMeta> done = new ArrayList<>();
    private final List<Long> created = new ArrayList<>();
    private SstableWriter writer;
    private VfsFile file;
    private long number;
    private byte[] lastKey;
    private long bytesWritten;

    SstableOutputs(Vfs vfs, Path dir, SstableOptions options, Lz4 lz4, LongSupplier fileNumbers, long targetBytes,
                 long oldestTombstoneTime) {
        this.vfs = vfs;
        this.dir = dir;
        this.options = options;
        this.lz4 = lz4;
        this.fileNumbers = fileNumbers;
        this.targetBytes = targetBytes;
        this.oldestTombstoneTime = oldestTombstoneTime;
    }

    void add(byte[] internalKey, byte[] value) throws IOException {
        if (writer != null && writer.estimatedFileSize() >= targetBytes
                && !InternalKey.sameUserKey(internalKey, lastKey)) {
            finishFile();
        }
        if (writer == null) {
            number = fileNumbers.getAsLong();
            created.add(number);
            file = vfs.create(dir.resolve(SstableCache.fileName(number)));
            writer = new SstableWriter(file, options, oldestTombstoneTime, lz4);
        }
        writer.add(internalKey, value);
        lastKey = internalKey;
    }

    /** Completes every file and makes them durable; returns their metadata (empty if nothing was added). */
    List<FileMeta> finish() throws IOException {
        if (writer != null) {
            finishFile();
        }
        if (!done.isEmpty()) {
            vfs.syncDirectory(dir);
        }
        return done;
    }

    /** Bytes of the finished files. */
    long bytesWritten() {
        return bytesWritten;
    }

    /**
     * Deletes whatever was written (after a failure), unless {@code released} says the store has let go of its
     * directory meanwhile: another open may then hold it and have reused these file numbers, which were never
     * recorded, for tables of its own. The files are left for that open's cleanup then.
     */
    void abandon(java.util.function.BooleanSupplier released) {
        try {
            if (file != null) {
                file.close();
            }
        } catch (IOException ignored) {
            // already failing
        }
        for (long n : created) {
            if (released.getAsBoolean()) {
                return;
            }
            try {
                vfs.delete(dir.resolve(SstableCache.fileName(n)));
            } catch (IOException ignored) {
                // a leftover file is deleted when the store next opens
            }
        }
    }

    private void finishFile() throws IOException {
        SstableProperties p = writer.finish();
        long size = file.size();
        file.close();
        file = null;
        writer = null;
        bytesWritten += size;
        done.add(new FileMeta(number, size, p.smallestKey(), p.largestKey(), p.minSequence(), p.maxSequence(),
                p.entries(), p.deletions(), p.oldestTombstoneTime()));
    }
}
