package dev.lacuna.lsm;

import dev.lacuna.base.InternalIterator;
import dev.lacuna.storage.DatabaseClosedException;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.sstable.BlockCache;
import dev.lacuna.sstable.Lz4;
import dev.lacuna.sstable.SstableReader;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Open {@link SstableReader}s by file number (LevelDB's table cache), at most {@code maxOpen} of them
 * unless more are in use at once. Each open reader holds a file descriptor, its index block and its bloom
 * filter, so a store with many tables must not keep them all open.
 *
 * <p>Every use pins its reader: {@link #acquire} (a point read, a filter check) is paired with
 * {@link Handle#release()}, and {@link #iterator} returns an iterator that holds its pin until closed. A
 * reader is closed only when it is unpinned and out of the cache, so no read or iterator ever sees its
 * table closed under it:
 * <ul>
 *   <li>when more than {@code maxOpen} readers are cached, the least recently used <em>unpinned</em> ones
 *       are closed and dropped; pinned ones stay, so the cache exceeds its limit by at most the readers in
 *       use, and is trimmed again as they are released;</li>
 *   <li>when a table file is deleted ({@link #evict}) or the cache is closed, its reader leaves the cache at
 *       once and is closed when its last user releases it.</li>
 * </ul>
 *
 * <p>Why not a general cache (Caffeine): its eviction cannot see pins, so it would evict a reader an
 * iterator still uses, and the next read of that table would open a second descriptor and a second copy of
 * its index and filter, while the first stays open: the limit would be exceeded exactly when it matters.
 * Here eviction skips what is in use. Recency is kept without a lock on the read path: a use stamps its
 * reader with a tick that moves on each open, so eviction (which only runs with an open, already a file
 * operation) scans for the oldest stamp among unpinned readers. Blocks an evicted reader put in the
 * {@link BlockCache} stay there (keyed by file number, still valid); only a deleted file drops them.
 *
 * <p>Thread-safe. A hit costs a map lookup and an atomic increment and decrement; a point read's
 * ({@link #peekUnpinned}) only the lookup.
 */
final class SstableCache implements AutoCloseable {
    private final Vfs vfs;
    private final Path dir;
    private final BlockCache blockCache;
    private final Lz4 lz4;
    private final int maxOpen;
    private final ConcurrentHashMap<Long, Handle> readers = new ConcurrentHashMap<>();
    /** Moves on each open; a use stamps its reader with it (least recently used = smallest stamp). */
    private final AtomicLong tick = new AtomicLong();
    /** Set while more readers are cached than allowed because the rest were pinned: releases trim then. */
    private volatile boolean overLimit;
    private volatile boolean closed;
    private final Object trimLock = new Object();
    /** Runs in {@link #trim} between picking a reader to close and closing it: a test's window (else nothing). */
    private final Runnable trimPicked;

    /**
     * A pinned reader. Holds one reference per user plus one for the cache while cached; the reader is
     * closed when the count reaches zero, and a count of zero is final.
     */
    final class Handle {
        final long number;
        final SstableReader reader;
        private final AtomicInteger refs = new AtomicInteger(1); // the cache's
        private volatile long lastUsed;

        private Handle(long number, SstableReader reader) {
            this.number = number;
            this.reader = reader;
        }

        private boolean tryPin() {
            while (true) {
                int r = refs.get();
                if (r == 0) {
                    return false; // closed by eviction: the caller opens it again
                }
                if (refs.compareAndSet(r, r + 1)) {
                    return true;
                }
            }
        }

        /** Ends this use of the reader (once per {@link #acquire}). */
        void release() {
            int r = refs.decrementAndGet();
            if (r == 0) {
                closeReader(reader);
            } else if (r == 1 && overLimit) {
                trim(); // the cache was over its limit because of pins like this one
            }
        }
    }

    /**
     * @param lz4     the store's LZ4 implementation, for its readers and writers
     * @param maxOpen readers kept open when none is in use (at least 1)
     */
    SstableCache(Vfs vfs, Path dir, BlockCache blockCache, Lz4 lz4, int maxOpen) {
        this(vfs, dir, blockCache, lz4, maxOpen, () -> { });
    }

    /** As above, with {@code trimPicked} run where {@link #trim} has picked a reader and not yet closed it. */
    SstableCache(Vfs vfs, Path dir, BlockCache blockCache, Lz4 lz4, int maxOpen, Runnable trimPicked) {
        if (maxOpen < 1) {
            throw new IllegalArgumentException("maxOpen must be at least 1: " + maxOpen);
        }
        this.vfs = vfs;
        this.dir = dir;
        this.blockCache = blockCache;
        this.lz4 = lz4;
        this.maxOpen = maxOpen;
        this.trimPicked = trimPicked;
    }

    static String fileName(long number) {
        return String.format("%06d.sst", number);
    }

    /** Whether {@code name} is a table's file name ({@link #fileName}). */
    static boolean isTableFile(String name) {
        return name.endsWith(".sst");
    }

    /**
     * The reader of table {@code number}, opened if needed, pinned until the caller calls
     * {@link Handle#release()} (in a {@code finally}).
     *
     * @throws DatabaseClosedException if the cache is closed
     * @throws StorageIOException      if the table cannot be opened
     */
    Handle acquire(long number) {
        while (true) {
            Handle h = readers.get(number);
            boolean missed = h == null;
            if (missed) {
                checkOpen();
                h = readers.computeIfAbsent(number, this::open);
            }
            if (h.tryPin()) {
                long t = tick.get();
                if (h.lastUsed != t) {
                    h.lastUsed = t; // a write only when the tick moved: hot readers' lines stay shared
                }
                if (closed) {
                    // close() may have swept the map before this reader was put in it: do not leak it.
                    forget(h);
                    h.release();
                    checkOpen();
                }
                if (missed || overLimit) {
                    trim(); // after pinning, so that the reader just opened is not the one closed for room
                }
                return h;
            }
            readers.remove(number, h);
        }
    }

    /**
     * The reader of table {@code number} if it is cached, stamped as used but not pinned, or null. For a point read,
     * which needs a reader for a moment: a pin is an increment and a decrement of the count every user of the table
     * shares, and two threads reading one table moved that count's cache line between their cores at every read.
     * Unpinned, the reader may be closed for room ({@link #trim}) while it is used. Its memory stays valid, and so
     * do the blocks it finds in the block cache, but a read of its file then fails: the caller reads again with a
     * pin ({@link #acquire}) when the read failed and {@link SstableReader#isClosed} says why. The file itself is
     * not deleted meanwhile: the caller holds a version that names it.
     */
    SstableReader peekUnpinned(long number) {
        Handle h = readers.get(number);
        if (h == null) {
            return null;
        }
        long t = tick.get();
        if (h.lastUsed != t) {
            h.lastUsed = t; // as a pinned use does: a write only when the tick moved
        }
        return h.reader;
    }

    /**
     * An iterator over table {@code number} (see {@link SstableReader#iterator(boolean)}) that keeps the
     * reader pinned until it is closed.
     */
    InternalIterator iterator(long number, boolean fillCache) {
        Handle h = acquire(number);
        try {
            return new PinnedIterator(h.reader.iterator(fillCache), h);
        } catch (RuntimeException | Error e) {
            h.release();
            throw e;
        }
    }

    private Handle open(long number) {
        Path path = dir.resolve(fileName(number));
        VfsFile file = null;
        try {
            file = vfs.openReadOnly(path);
            Handle h = new Handle(number, SstableReader.open(file, number, blockCache, lz4));
            tick.incrementAndGet(); // readers used before this open are now older than those used after
            return h;
        } catch (IOException e) {
            closeQuietly(file);
            throw new StorageIOException("cannot open table " + path + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeQuietly(file);
            throw e;
        }
    }

    /**
     * Closes least recently used unpinned readers until at most {@code maxOpen} are cached, or only pinned
     * ones are left (then {@link #overLimit} asks the next release to try again). Scans the cache per
     * reader closed: it runs after an open, which reads a footer, an index and a filter anyway.
     */
    private void trim() {
        synchronized (trimLock) {
            while (readers.size() > maxOpen) {
                Handle victim = null;
                for (Handle h : readers.values()) {
                    if (h.refs.get() == 1 && (victim == null || h.lastUsed < victim.lastUsed)) {
                        victim = h;
                    }
                }
                if (victim == null) {
                    overLimit = true;
                    return;
                }
                trimPicked.run();
                // Whoever takes a reader out of the map drops the cache's reference, as evict and close do. Not a
                // compare-and-set of the count from 1 to 0: once close or evict had dropped the cache's reference,
                // the 1 it saw could be a user's pin, and the reader was closed under that user (a read racing a
                // close failed with an I/O error, not as closed: SstableCacheTrimTest). A reader pinned since the
                // scan leaves the cache all the same, and is closed when that use ends.
                if (readers.remove(victim.number, victim) && victim.refs.decrementAndGet() == 0) {
                    closeReader(victim.reader);
                }
            }
            overLimit = false;
        }
    }

    /** Table {@code number} was deleted: its reader leaves the cache (closed once unused) and its blocks are dropped. */
    void evict(long number) {
        Handle h = readers.remove(number);
        blockCache.evictFile(number);
        if (h != null) {
            h.release(); // the cache's reference
        }
    }

    /** Removes {@code h} from the cache and drops the cache's reference, unless someone else already did. */
    private void forget(Handle h) {
        if (readers.remove(h.number, h)) {
            h.release();
        }
    }

    /** Readers currently cached (pinned or not); readers evicted while in use are not counted. */
    int cachedReaders() {
        return readers.size();
    }

    BlockCache blockCache() {
        return blockCache;
    }

    /** The store's LZ4 implementation, chosen once when it opened. */
    Lz4 lz4() {
        return lz4;
    }

    /**
     * Drops every reader; each is closed now, or when the last iterator using it is closed. Later
     * {@link #acquire} calls fail.
     */
    @Override
    public void close() {
        closed = true;
        for (Handle h : readers.values()) {
            forget(h);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new DatabaseClosedException("key/value store " + dir);
        }
    }

    private static void closeReader(SstableReader reader) {
        try {
            reader.close();
        } catch (StorageIOException e) {
            // a read-only file: nothing is lost by a failed close
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
