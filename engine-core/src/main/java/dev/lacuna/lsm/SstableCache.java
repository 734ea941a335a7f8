package dev.lacuna.lsm;

import dev.lacuna.storage.StorageIOException;
import dev.lacuna.sstable.BlockCache;
import dev.lacuna.sstable.SstableReader;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Open {@link SstableReader}s by file number, opened on first use and kept until the file is deleted. A
 * reader is only closed by {@link #evict} once no live version holds its file, so iterators never see
 * their table closed under them. Thread-safe.
 */
final class SstableCache implements AutoCloseable {
    private final Vfs vfs;
    private final Path dir;
    private final BlockCache blockCache;
    private final ConcurrentHashMap<Long, SstableReader> readers = new ConcurrentHashMap<>();

    SstableCache(Vfs vfs, Path dir, BlockCache blockCache) {
        this.vfs = vfs;
        this.dir = dir;
        this.blockCache = blockCache;
    }

    static String fileName(long number) {
        return String.format("%06d.sst", number);
    }

    /** The reader of table {@code number}, opening it if needed. */
    SstableReader get(long number) {
        SstableReader reader = readers.get(number);
        if (reader != null) {
            return reader;
        }
        return readers.computeIfAbsent(number, this::open);
    }

    private SstableReader open(long number) {
        Path path = dir.resolve(fileName(number));
        VfsFile file = null;
        try {
            file = vfs.openReadOnly(path);
            return SstableReader.open(file, number, blockCache);
        } catch (IOException e) {
            closeQuietly(file);
            throw new StorageIOException("cannot open table " + path + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeQuietly(file);
            throw e;
        }
    }

    /** Closes table {@code number} and drops its cached blocks; called once no version holds it. */
    void evict(long number) {
        SstableReader reader = readers.remove(number);
        blockCache.evictFile(number);
        if (reader != null) {
            try {
                reader.close();
            } catch (StorageIOException e) {
                // a read-only file: nothing is lost by a failed close
            }
        }
    }

    BlockCache blockCache() {
        return blockCache;
    }

    @Override
    public void close() {
        for (Long number : readers.keySet()) {
            evict(number);
        }
    }

    private static void closeQuietly(VfsFile file) {
        if (file != null) {
            try {
                file.close();
            } catch (IOException ignored) {
                // already failing
            }
        }
    }
}
