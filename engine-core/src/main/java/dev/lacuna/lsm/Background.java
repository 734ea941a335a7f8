package dev.lacuna.lsm;

import dev.lacuna.base.InternalIterator;
import dev.lacuna.manifest.FileMeta;
import dev.lacuna.manifest.VersionEdit;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The store's background threads and the flush job. Flushes and compactions of one partition never
 * overlap with another of the same kind; different partitions proceed in parallel. A job that fails on a
 * transient error (an I/O error: a full disk) is retried with a bounded backoff ({@link
 * dev.lacuna.kv.KvOptions#retry()}), while writes that need it are refused (see {@link WritePath}); one that
 * fails on a permanent error (corruption, a bug) records it, after which the store refuses writes (see
 * {@link Db#checkWritable()}). A backoff ends early when the store closes. Every job
 * signals {@link Db#progress} when it ends. The threads are named {@code lacuna-bg-N} and stop on
 * {@link #shutdown()}.
 */
final class Background {
    private static final System.Logger LOG = System.getLogger(Background.class.getName());
    private final Db db;
    private final ExecutorService executor;
    /** Every thread the pool made, so that shutdown can wait for each to be gone, not just idle. */
    private final List<Thread> created = new ArrayList<>();
    private Compactor compactor;

    Background(Db db) {
        this.db = db;
        AtomicInteger n = new AtomicInteger();
        ThreadFactory threads = r -> {
            Thread t = new Thread(db.owned.owning(r), "lacuna-bg-" + n.incrementAndGet());
            t.setDaemon(true);
            synchronized (created) {
                created.add(t);
            }
            return t;
        };
        this.executor = new ThreadPoolExecutor(db.options.backgroundThreads(), db.options.backgroundThreads(),
                0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), threads);
    }

    void setCompactor(Compactor compactor) {
        this.compactor = compactor;
    }

    /** Queues a flush of {@code tree}'s oldest frozen memtable, unless one is queued or running. */
    void scheduleFlush(Tree tree) {
        if (tree.claimFlushSlot()) {
            submit(() -> {
                try {
                    flushAll(tree);
                } finally {
                    tree.releaseFlushSlot();
                    db.signalProgress();
                }
                scheduleCompaction(tree);
                if (tree.immutableCount() > 0 && db.backgroundError() == null) {
                    scheduleFlush(tree); // frozen while the slot was held
                }
            });
        }
    }

    /** Queues a compaction check of {@code tree}, unless one is queued or running. */
    void scheduleCompaction(Tree tree) {
        if (tree.claimCompactionSlot()) {
            submit(() -> {
                boolean didWork = false;
                boolean askedAgain;
                try {
                    didWork = compactRetrying(tree);
                } finally {
                    askedAgain = tree.releaseCompactionSlot();
                    db.signalProgress();
                }
                if (didWork || askedAgain) {
                    scheduleCompaction(tree);
                }
            });
        }
    }

    /**
     * Runs one compaction of {@code tree} if one is due, retrying it after a transient error (a failed
     * compaction leaves its outputs deleted and the version unchanged, so it can simply run again). A
     * permanent error stops writes with a clear error; a silent one would leave writers waiting for a
     * compaction that never comes.
     */
    private boolean compactRetrying(Tree tree) {
        String job = "compaction of partition " + tree.id;
        for (int attempt = 1; db.backgroundError() == null && !db.closed; attempt++) {
            try {
                boolean didWork = compactor.compactOnce(tree);
                db.recovered(job);
                return didWork;
            } catch (IOException | RuntimeException | Error e) {
                if (!retryAfter(job, e, attempt)) {
                    break;
                }
            }
        }
        db.recovered(job); // stopped for good (closed, or a permanent error that stops writes anyway)
        return false;
    }

    /**
     * After background job {@code job} failed on {@code error}: a transient error is recorded and waited out
     * (the backoff of {@link dev.lacuna.kv.KvOptions#retry()}), and true returned to run the job again; a
     * permanent error stops writes, and false is returned, as it is when the store closes meanwhile.
     */
    private boolean retryAfter(String job, Throwable error, int attempt) {
        if (!db.options.retry().retries(error)) {
            db.setBackgroundError(error);
            return false;
        }
        db.retrying(job, error);
        db.signalProgress(); // writers stalled on this job re-check, and are told it is being retried
        return db.pauseBeforeRetry(db.options.retry().delayNanos(attempt));
    }

    /**
     * A scan stepped over many dead entries in these partitions: freeze their memtables (a put and its
     * deletion that meet in one memtable are both dropped by the flush) and look for compactions (files
     * dense with deletions are compacted first), so the next scan meets a bounded backlog.
     */
    void flushForDeadEntries(List<Tree.View> scanned) {
        if (db.closed || db.backgroundError() != null) {
            return;
        }
        for (Tree.View view : scanned) {
            Tree[] trees = db.trees;
            Tree tree = view.tree() < trees.length ? trees[view.tree()] : null;
            if (tree == null) {
                continue; // its keyspace was dropped while the scan ran: nothing left to flush
            }
            scheduleCompaction(tree);
            db.commitLock.lock();
            try {
                // A memtable with far fewer deletions than the backlog is not where the scan met it (the live keys
                // carried into it by the last such freeze are not): leave it be. Nor while flushes are behind: see
                // WritePath.MAX_FROZEN_FOR_DEAD_ENTRIES.
                if (db.closed || tree.activeDeletions() < db.options.deadEntryTrigger() / 4
                        || tree.immutableCount() >= WritePath.MAX_FROZEN_FOR_DEAD_ENTRIES && db.retryingError() == null) {
                    continue;
                }
                // Its sole puts stay in memory (an index's memtable): frozen whole, a queue's open entries went into a
                // file and came back as dead entries under the next scan, which froze the next memtable
                // (see Memtable#carryLive).
                long carried = tree.switchMemtableCarryingLive(WritePath.MAX_CARRY_FOR_DEAD_ENTRIES,
                        FlushReason.SCAN_DEAD_ENTRIES);
                if (carried < 0) {
                    continue;
                }
                db.memoryUsed.addAndGet(carried); // the frozen memtable gives its own back once flushed
            } finally {
                db.commitLock.unlock();
            }
            db.scanTriggeredFlushes.increment();
            scheduleFlush(tree);
        }
    }

    private void submit(Runnable job) {
        try {
            executor.execute(job);
        } catch (RejectedExecutionException e) {
            // shutting down: the work is redone from the log or the manifest on the next open
        }
    }

    /**
     * Flushes every frozen memtable of {@code tree}, oldest first. A flush that fails on a transient error is
     * run again after a backoff (it left nothing behind: its tables are deleted, the version is unchanged);
     * a permanent error stops writes.
     */
    private void flushAll(Tree tree) {
        String job = "flush of partition " + tree.id;
        int attempt = 0;
        while (db.backgroundError() == null && !db.closed) {
            Memtable imm = tree.startFlush();
            if (imm == null) {
                break;
            }
            boolean ok = false;
            Throwable error = null;
            try {
                flush(tree, imm);
                ok = true;
            } catch (IOException | RuntimeException | Error e) {
                error = e;
            } finally {
                tree.endFlush(imm, ok);
                if (ok) {
                    db.memoryUsed.addAndGet(-imm.bytes());
                }
            }
            if (ok) {
                attempt = 0;
                db.recovered(job);
            } else if (!retryAfter(job, error, ++attempt)) {
                break;
            }
        }
        db.recovered(job); // done, or stopped for good (closed, or a permanent error that stops writes anyway)
        trimAfterFlushes();
    }

    /**
     * Moves the log's start past what the flushes that just ended left needed. Each flush moves it only to below
     * the oldest write still in a memtable, and partitions flush in parallel: two flushes that each computed it
     * while the other's memtable was still unflushed both stop there, and the log kept what neither needs any
     * more until the next flush. The last of them to end sees no such memtable. An edit is written only when
     * the start moves; the start never moves back ({@link VersionSet} keeps the highest), so racing calls are
     * harmless. A failure leaves the log as it was, for the next flush to trim.
     */
    private void trimAfterFlushes() {
        if (db.backgroundError() != null || db.closed) {
            return;
        }
        long trimTo = logNeededAfterFlushing(null);
        long start = db.versions.walStartLsn();
        if (trimTo + 1 <= start) {
            // The start is in place, but a segment sealed since the last trim may hold nothing after it: an explicit
            // flush seals the one being written, even with nothing to write. No edit: trimming needs none.
            try {
                db.wal.deleteObsoleteSegments(start - 1);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "deleting log segments after flushes failed; the next flush"
                        + " deletes them: " + e);
            }
            return;
        }
        try {
            db.versions.logAndApply(new VersionEdit().walStartLsn(trimTo + 1), db.loggedSequence);
            db.wal.deleteObsoleteSegments(trimTo);
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "moving the log's start after flushes failed; the next flush"
                    + " moves it: " + e);
        }
    }

    /**
     * Writes a frozen memtable as a level-0 table. The log is made durable (and so visible) up to the
     * memtable's last write first, so the manifest never claims data the log could lose. Versions every snapshot cannot
     * see are dropped, and so are deletions of keys no table may hold (a queue's put and delete often
     * meet in one memtable and then never reach a file). The edit also moves the log's start past
     * everything now in tables, and the log is trimmed after it.
     */
    void flush(Tree tree, Memtable imm) throws IOException {
        // Allocated only while a recording wants it; the begin is the flush's start, wait for the log included.
        FlushEvent event = db.events.begin(db.flushEvents, FlushEvent::new);
        db.cursors.reap(); // a cursor left open and collected no longer holds back what this flush may drop
        db.wal.awaitDurable(imm.maxSequence());
        // And visible: a SYNC write waiting for the fsync just made is not, until its writer sees the fsync.
        // The flush below drops versions that newer ones hide; if the newest were not visible yet, a reader
        // would find neither. Tables therefore hold visible writes only, and compactions never meet others.
        db.visibility.durable(db.wal.durableLsn());
        Version base = db.versions.acquire(tree.id);
        List<FileMeta> files;
        long dropped;
        long droppedDeletions;
        SstableOutputs out = new SstableOutputs(db.vfs, db.dir, db.options.table(), db.tables.lz4(), db.versions::newFileNumber,
                Long.MAX_VALUE, db.options.clock().millis());
        try (InternalIterator it = imm.flushIterator()) { // less the keys carried into the next memtable
            it.seekToFirst();
            CompactionStream stream = new CompactionStream(it, db.snapshots.toArray(), ik -> db.mayExistIn(base, ik));
            while (stream.next()) {
                out.add(stream.key(), stream.value());
            }
            files = out.finish();
            dropped = stream.dropped();
            droppedDeletions = stream.droppedDeletions();
        } catch (IOException | RuntimeException e) {
            out.abandon(() -> db.released);
            throw e;
        } finally {
            base.unref();
        }
        long trimTo = logNeededAfterFlushing(imm);
        VersionEdit edit = new VersionEdit().flushedLsn(tree.id, imm.flushedUpTo()).walStartLsn(trimTo + 1);
        for (FileMeta f : files) {
            edit.addFile(tree.id, 0, f);
        }
        try {
            db.versions.logAndApply(edit, db.loggedSequence);
        } catch (IOException | RuntimeException e) {
            db.versions.abandonOutputs(files);
            throw e;
        }
        db.flushes.increment();
        db.flushBytes.add(out.bytesWritten());
        // Guarded: the edit is durable and installed, and an event failing here must not fail (and so retry)
        // a flush that is done.
        db.events.commit(event, e -> {
            e.store = db.dir.toString();
            e.partition = tree.id;
            // Counted, not walked: walking the skip list here took as long as the flush itself (a JFR profile of
            // IndexLagProfile: half of the flush thread's samples), and only while a recording was on.
            e.entries = imm.liveEntries();
            e.bytes = out.bytesWritten();
            e.files = files.size();
            FlushReason reason = imm.frozenFor();
            e.reason = reason == null ? "" : reason.name();
        });
        db.droppedEntries.add(dropped);
        db.droppedDeletions.add(droppedDeletions);
        db.wal.deleteObsoleteSegments(trimTo);
    }

    /**
     * The last LSN whose record no partition still needs from the log once {@code flushing} is in a
     * table: one below the oldest write still only in a memtable, across all partitions.
     */
    private long logNeededAfterFlushing(Memtable flushing) {
        db.commitLock.lock();
        try {
            long oldest = Long.MAX_VALUE;
            for (Tree t : db.live) {
                oldest = Math.min(oldest, t.oldestUnflushedSequence(flushing));
            }
            return oldest == Long.MAX_VALUE ? db.visibleSequence : oldest - 1;
        } finally {
            db.commitLock.unlock();
        }
    }

    /** Stops accepting jobs and waits for running ones to end. */
    void shutdown() {
        executor.shutdown();
        boolean interrupted = false;
        while (true) {
            try {
                if (executor.awaitTermination(1, TimeUnit.MINUTES)) {
                    break;
                }
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        // The pool reports termination as its last worker finishes its loop; wait until each has died.
        List<Thread> threads;
        synchronized (created) {
            threads = new ArrayList<>(created);
        }
        for (Thread t : threads) {
            while (t.isAlive()) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
