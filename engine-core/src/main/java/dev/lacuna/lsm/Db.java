package dev.lacuna.lsm;

import dev.lacuna.DatabaseClosedException;
import dev.lacuna.StorageIOException;
import dev.lacuna.manifest.FileMeta;
import dev.lacuna.sstable.TableReader;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.wal.Wal;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The state every part of the engine shares: options, files, the log, the versions, the trees, and the
 * counters. The jobs themselves live in {@link WritePath}, {@link ReadPath}, {@link Background} and
 * {@link Compactor}; {@link KvStore} opens and closes it.
 */
final class Db {
    final KvOptions options;
    final Vfs vfs;
    final Path dir;
    final TableCache tables;
    final Snapshots snapshots = new Snapshots();
    /** In-flight reads without a snapshot, so dead pairs are only purged from memtables when none needs them. */
    final ReadTracker reads = new ReadTracker();
    /** Orders writes: the log append and the memtable inserts of one write happen under it, as one step. */
    final ReentrantLock commitLock = new ReentrantLock();
    /** Background jobs notify it when they finish, so that stalled writers and waiting callers re-check. */
    final Object progress = new Object();

    Wal wal;
    VersionSet versions;
    Tree[] trees;

    /** Every write up to here is in the memtables; reads without a snapshot read at it. */
    volatile long visibleSequence;
    /** Bytes held by all memtables, active and frozen. */
    final AtomicLong memoryUsed = new AtomicLong();
    volatile boolean closed;
    private volatile Throwable backgroundError;

    // Counters.
    final LongAdder userBytes = new LongAdder();
    final LongAdder flushes = new LongAdder();
    final LongAdder flushBytes = new LongAdder();
    final LongAdder compactions = new LongAdder();
    final LongAdder trivialMoves = new LongAdder();
    final LongAdder compactionBytesRead = new LongAdder();
    final LongAdder compactionBytesWritten = new LongAdder();
    final LongAdder droppedEntries = new LongAdder();
    final LongAdder droppedDeletions = new LongAdder();
    final LongAdder stallNanos = new LongAdder();
    final LongAdder deletedFiles = new LongAdder();
    final LongAdder scanTriggeredFlushes = new LongAdder();

    Db(KvOptions options, Path dir, TableCache tables) {
        this.options = options;
        this.vfs = options.vfs();
        this.dir = dir;
        this.tables = tables;
    }

    /** The tree (partition) holding {@code key}: a hash of its prefix. */
    int treeOf(byte[] key) {
        if (trees.length == 1) {
            return 0;
        }
        int prefix = options.keyPrefix().prefixLength(key);
        return (int) (KeyHash.hash(key, prefix) & (trees.length - 1));
    }

    /** Whether some SSTable of {@code version} may hold a version of the user key in {@code internalKey}. */
    boolean mayExistIn(Version version, byte[] internalKey) {
        byte[] userKey = null;
        for (int level = 0; level < Version.LEVELS; level++) {
            for (FileMeta f : version.files(level)) {
                if (InternalKey.compareUserKeys(f.smallest(), internalKey) <= 0
                        && InternalKey.compareUserKeys(f.largest(), internalKey) >= 0) {
                    if (userKey == null) {
                        userKey = InternalKey.userKey(internalKey);
                    }
                    TableReader table = tables.get(f.number());
                    if (table.mayContainKey(userKey)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    void checkOpen() {
        if (closed) {
            throw new DatabaseClosedException("key/value store " + dir);
        }
    }

    /** Refuses writes after a background I/O error: the store cannot tell what reached the disk. */
    void checkWritable() {
        checkOpen();
        Throwable error = backgroundError;
        if (error != null) {
            throw new StorageIOException("store " + dir + " refuses writes after a background error: "
                    + error.getMessage(), error);
        }
    }

    Throwable backgroundError() {
        return backgroundError;
    }

    void setBackgroundError(Throwable error) {
        if (backgroundError == null) {
            backgroundError = error;
        }
        signalProgress();
    }

    void signalProgress() {
        synchronized (progress) {
            progress.notifyAll();
        }
    }

    /** Called when no live version holds table {@code number} any more. */
    void deleteObsoleteFile(long number) {
        tables.evict(number);
        try {
            vfs.delete(dir.resolve(TableCache.fileName(number)));
            deletedFiles.increment();
        } catch (NoSuchFileException e) {
            // already gone (deleted before a crash that the manifest did not see)
        } catch (IOException e) {
            // a leftover file wastes space but harms nothing; the next open deletes it
        }
    }
}
