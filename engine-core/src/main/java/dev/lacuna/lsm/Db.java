package dev.lacuna.lsm;

import dev.lacuna.base.InternalKey;
import dev.lacuna.jfr.EventGuard;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.storage.DatabaseClosedException;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.manifest.FileMeta;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.wal.Wal;
import dev.lacuna.manifest.VersionEdit;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import jdk.jfr.EventType;

/**
 * The state every part of the engine shares: options, files, the log, the versions, the trees, and the
 * counters. The jobs themselves live in {@link WritePath}, {@link ReadPath}, {@link Background},
 * {@link Compactor} and {@link Keyspaces}; {@link Recovery} opens it and {@link LsmStore} closes it.
 */
final class Db {
    private static final System.Logger LOG = System.getLogger(Db.class.getName());

    final KvOptions options;
    final Vfs vfs;
    final Path dir;
    final SstableCache tables;
    final Snapshots snapshots = new Snapshots();
    /** In-flight reads without a snapshot, so dead pairs are only purged from memtables when none needs them. */
    final ReadTracker reads = new ReadTracker();
    /** Frees what cursors collected without being closed held (their read above all). */
    final CursorReaper cursors = new CursorReaper();
    /**
     * Orders writes: the log append happens under it, and the memtable inserts too but for writes of puts
     * alone, which insert after it in parallel ({@link CommitLock}, {@link InsertOrder}).
     */
    final CommitLock commitLock = new CommitLock(this);
    /**
     * The store's JFR events, which never fail the work they describe (see {@link EventGuard}); their types,
     * null if JFR cannot provide them.
     */
    final EventGuard events;
    final EventType flushEvents;
    final EventType compactionEvents;
    final EventType stallEvents;
    /** Background jobs notify it when they finish, so that stalled writers and waiting callers re-check. */
    final Object progress = new Object();

    /** A keyspace's trees: {@code partitions} trees numbered from {@code firstTree}. */
    record Route(int keyspace, int firstTree, int partitions) {
    }

    Wal wal;
    VersionSet versions;
    /** Trees by number; null for the trees of dropped keyspaces. Replaced whole (copy on write) under the commit lock. */
    volatile Tree[] trees;
    /** The non-null entries of {@link #trees}. */
    volatile Tree[] live;
    /** Keyspaces by id; null where there is none. Replaced whole under the commit lock. */
    volatile Route[] routes;

    /**
     * Reads without a snapshot read at it: every write up to here is in the memtables, and every SYNC one is
     * durable ({@link Visibility}).
     */
    volatile long visibleSequence;
    /** Every logged write up to here is in the memtables, durable or not; only a writer reads past visibility. */
    volatile long loggedSequence;
    /** Moves {@link #visibleSequence} as writes are logged and the log is made durable. */
    final Visibility visibility = new Visibility(this);
    /** Writes whose inserts run outside the commit lock, published in LSN order. */
    final InsertOrder inserts = new InsertOrder(visibility);
    /** Bytes held by all memtables, active and frozen. */
    final AtomicLong memoryUsed = new AtomicLong();
    volatile boolean closed;
    /**
     * Set by close just before it releases the directory's lock: from then on another open may own the directory,
     * reuse file numbers this store allocated but never recorded, and nothing in it is this store's to delete.
     */
    volatile boolean released;
    /**
     * Work running in callers' threads that writes or reads the store's files ({@link #enterCallerWork}): close
     * waits for it before it closes the files and releases the lock. Guarded by {@link #progress}.
     */
    private int callerWork;
    /** The threads close may wait for: the store's own, and callers' while their work is counted in. */
    final OwnedThreads owned = new OwnedThreads();
    private volatile Throwable backgroundError;
    /** Background jobs being retried after a transient error, by name, with the error. */
    private final Map<String, Throwable> retrying = new ConcurrentHashMap<>();

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

    // Writers stalled now, and when the first of them stalled: one log line when writes start to stall and
    // one when the last stalled writer goes on, not one per writer. Guarded by stallLock.
    private final Object stallLock = new Object();
    private int stalledWriters;
    private long stallEpisodeStart;

    Db(KvOptions options, Path dir, SstableCache tables) {
        this.options = options;
        this.vfs = options.vfs();
        this.dir = dir;
        this.tables = tables;
        this.events = new EventGuard("store " + dir);
        this.flushEvents = events.type(() -> EventType.getEventType(FlushEvent.class));
        this.compactionEvents = events.type(() -> EventType.getEventType(CompactionEvent.class));
        this.stallEvents = events.type(() -> EventType.getEventType(WriteStallEvent.class));
    }

    /**
     * The tree (partition) holding {@code key}: its keyspace's trees, then a hash of its prefix.
     *
     * @throws IllegalArgumentException if the key's keyspace does not exist
     */
    int treeOf(byte[] key) {
        int tree = treeOrNone(key);
        if (tree < 0) {
            throw new IllegalArgumentException("the key's keyspace " + options.keyspaceRouter().keyspaceOf(key)
                    + " does not exist");
        }
        return tree;
    }

    /** Like {@link #treeOf}, or -1 if the key's keyspace does not exist (or was dropped). */
    int treeOrNone(byte[] key) {
        Route route = route(options.keyspaceRouter().keyspaceOf(key));
        if (route == null) {
            return -1;
        }
        if (route.partitions() == 1) {
            return route.firstTree();
        }
        int prefix = options.keyPrefix().prefixLength(key);
        return route.firstTree() + (int) (KeyHash.hash(key, prefix) & (route.partitions() - 1));
    }

    /** The keyspace {@code id}, or null. */
    Route route(int id) {
        Route[] r = routes;
        return id >= 0 && id < r.length ? r[id] : null;
    }

    /** Installs the trees and keyspaces the version set has. Called while no write runs (open, or under the commit lock). */
    void installTrees(Tree[] nextTrees, List<VersionEdit.Keyspace> keyspaces) {
        int maxId = 0;
        for (VersionEdit.Keyspace k : keyspaces) {
            maxId = Math.max(maxId, k.id());
        }
        Route[] r = new Route[maxId + 1];
        r[0] = new Route(0, 0, versions.treeCount());
        for (VersionEdit.Keyspace k : keyspaces) {
            Tree first = k.firstTree() < nextTrees.length ? nextTrees[k.firstTree()] : null;
            if (first != null && first.dropped) {
                // Being dropped: the manifest lists it until the drop's edit, but writes to it fail from the drop's
                // start (a keyspace created meanwhile must not bring its route back, or writes to it would be
                // acknowledged and then discarded with its trees).
                continue;
            }
            r[k.id()] = new Route(k.id(), k.firstTree(), k.partitions());
        }
        List<Tree> l = new ArrayList<>();
        for (Tree t : nextTrees) {
            if (t != null) {
                l.add(t);
            }
        }
        trees = nextTrees;
        live = l.toArray(new Tree[0]);
        routes = r;
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
                    SstableCache.Handle table = tables.acquire(f.number());
                    try {
                        if (table.reader.mayContainKey(userKey)) {
                            return true;
                        }
                    } finally {
                        table.release();
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

    /**
     * Refuses writes after a permanent background error (corruption, a programming error): the store cannot
     * tell what is right any more. A transient one (see {@link #retrying}) refuses only the writes that need
     * the failing job ({@link WritePath}).
     */
    void checkWritable() {
        checkOpen();
        Throwable error = backgroundError;
        if (error != null) {
            throw new StorageIOException("store " + dir + " refuses writes after a background error: "
                    + error.getMessage(), error);
        }
    }

    /** The permanent background error, or null. */
    Throwable backgroundError() {
        return backgroundError;
    }

    /** Records a permanent error: from now on the store refuses writes until it is reopened. */
    void setBackgroundError(Throwable error) {
        if (backgroundError == null) {
            backgroundError = error;
            LOG.log(System.Logger.Level.ERROR, "store " + dir + " refuses writes until reopened", error);
        }
        signalProgress();
    }

    /**
     * A writer starts to wait for room in partition {@code tree}, full because of {@code cause}. Only on the
     * stall path; the first stalled writer logs that writes are stalled.
     */
    void stallStarted(int tree, String cause) {
        synchronized (stallLock) {
            if (stalledWriters++ == 0) {
                stallEpisodeStart = System.nanoTime();
                LOG.log(System.Logger.Level.INFO, () -> "store " + dir + ": writes stalled, partition " + tree
                        + " has " + cause + "; waiting for background work to catch up");
            }
        }
    }

    /**
     * A stalled writer goes on (or gives up); the last one logs how long writes were stalled: INFO, or WARNING
     * from a second on, which writers notice as latency.
     */
    void stallEnded() {
        synchronized (stallLock) {
            if (--stalledWriters == 0) {
                long millis = (System.nanoTime() - stallEpisodeStart) / 1_000_000;
                System.Logger.Level level = millis >= 1000 ? System.Logger.Level.WARNING : System.Logger.Level.INFO;
                LOG.log(level, () -> "store " + dir + ": writes no longer stalled, after " + millis + " ms");
            }
        }
    }

    /**
     * A foreground operation met {@code error} (the caller is told): a permanent one also stops writes, a
     * transient one stops nothing, as the operation changed nothing (a manifest edit is installed only once
     * durable, and the manifest is replaced at the next edit).
     */
    void failed(Throwable error) {
        if (!options.retry().retries(error)) {
            setBackgroundError(error);
        }
    }

    /** Background job {@code job} failed on {@code error}, which is transient: it will be run again. */
    void retrying(String job, Throwable error) {
        if (retrying.put(job, error) == null) {
            LOG.log(System.Logger.Level.WARNING, "store " + dir + ": " + job + " failed, retrying: " + error);
        }
    }

    /** Background job {@code job} succeeded (or stopped for good): it no longer holds writes back. */
    void recovered(String job) {
        if (retrying.remove(job) != null && !closed) {
            LOG.log(System.Logger.Level.INFO, "store " + dir + ": " + job + " succeeded after retries");
        }
    }

    /**
     * Refuses {@code what} (which needs a flush or compaction) while a background job is being retried after
     * a transient error: waiting would last as long as the disk stays full, with no bound.
     */
    void checkNotRetrying(String what) {
        Throwable retrying = retryingError();
        if (retrying != null) {
            throw new StorageIOException("store " + dir + " refuses " + what + " while it retries a failed flush or"
                    + " compaction (it goes on by itself once one succeeds): " + retrying.getMessage(), retrying);
        }
    }

    /** A transient error some background job is being retried after, or null if none is. */
    Throwable retryingError() {
        for (Throwable t : retrying.values()) {
            return t;
        }
        return null;
    }

    /**
     * Waits {@code nanos} before a retry, or less if the store closes (returns false then). A close or an
     * interrupt ends the wait at once.
     */
    boolean pauseBeforeRetry(long nanos) {
        long deadline = System.nanoTime() + nanos;
        synchronized (progress) {
            while (!closed) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return true;
                }
                try {
                    progress.wait(left / 1_000_000, (int) (left % 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        return false;
    }

    /**
     * Counts in work that runs in the caller's thread and uses the store's files ({@code compactRange}, a
     * checkpoint, a check of every checksum): close waits until it is counted out ({@link #exitCallerWork}). Without this, close released the
     * directory under a compaction, whose outputs' file numbers (never recorded) the next open reused; the
     * compaction, failing on its closed tables, then deleted those files by name: the next store's tables.
     *
     * @throws DatabaseClosedException if the store is closed (or closing): nothing is counted in then
     */
    void enterCallerWork() {
        synchronized (progress) {
            // Close sets closed before it waits under this monitor: either it sees this work, or this sees it closed.
            checkOpen();
            callerWork++;
            owned.enter(); // a close from this thread (a file system hook) must not wait for the close waiting for it
        }
    }

    /** Counts out work counted in by {@link #enterCallerWork}. */
    void exitCallerWork() {
        synchronized (progress) {
            owned.exit();
            if (--callerWork == 0) {
                progress.notifyAll();
            }
        }
    }

    /**
     * Waits until no work counted in by {@link #enterCallerWork} runs. Called by close once {@link #closed} is set,
     * so that none starts after; keeps waiting through an interrupt (the files must not close under the work) and
     * sets the thread's interrupt flag again after.
     */
    void awaitCallerWork() {
        boolean interrupted = false;
        synchronized (progress) {
            if (callerWork > 0) {
                int running = callerWork;
                LOG.log(System.Logger.Level.INFO, () -> "closing store " + dir + " waits for " + running
                        + " compaction(s), checkpoint(s) or check(s) running in callers' threads");
            }
            while (callerWork > 0) {
                try {
                    progress.wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    void signalProgress() {
        synchronized (progress) {
            progress.notifyAll();
        }
    }

    /** Called when no live version holds table {@code number} any more. */
    void deleteObsoleteFile(long number) {
        tables.evict(number);
        if (released) {
            return; // a version released after close: the directory may be another store's now (its next open deletes it)
        }
        try {
            vfs.delete(dir.resolve(SstableCache.fileName(number)));
            deletedFiles.increment();
        } catch (NoSuchFileException e) {
            // already gone (deleted before a crash that the manifest did not see)
        } catch (IOException e) {
            // A leftover file wastes space but harms nothing: no version names it, and the next open deletes it.
            LOG.log(System.Logger.Level.WARNING, "cannot delete obsolete table " + number + " in " + dir
                    + "; the next open deletes it: " + e);
        }
    }
}
