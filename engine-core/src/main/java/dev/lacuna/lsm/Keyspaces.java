package dev.lacuna.lsm;

import dev.lacuna.manifest.VersionEdit;
import dev.lacuna.storage.StorageIOException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The keyspaces of a store, apart from its reads and writes (as RocksDB keeps column families beside its
 * DB): creating one, replacing its descriptor, flushing it and dropping it. Each change is made under the
 * commit lock, durably in the manifest, and installs the new set of trees whole, so that writes see either
 * the old keyspaces or the new. {@link LsmStore} delegates to it.
 */
final class Keyspaces {
    private final Db db;
    private final Background background;

    Keyspaces(Db db, Background background) {
        this.db = db;
        this.background = background;
    }

    /**
     * See {@link LsmStore#createKeyspace(int, byte[], Map)}. The checkpoints are raised to the visible sequence
     * under the commit lock: they belong to consumers of a keyspace that has no records yet.
     */
    Keyspace create(int partitions, byte[] descriptor, Map<String, Long> checkpoints) {
        if (partitions < 1 || partitions > 1024 || Integer.bitCount(partitions) != 1) {
            throw new IllegalArgumentException("partitions must be a power of two from 1 to 1024: " + partitions);
        }
        db.checkWritable();
        db.commitLock.lock();
        try {
            db.checkWritable();
            // A checkpoint read before the lock may already be below what a flush meanwhile trimmed; a new
            // keyspace has no records yet, so its consumers may start at the visible sequence read here.
            Map<String, Long> raised = new java.util.HashMap<>();
            checkpoints.forEach((name, lsn) -> raised.put(name, Math.max(lsn, db.visibleSequence)));
            raised.forEach(db.wal::setCheckpoint); // no trim may pass them before the manifest has them
            VersionEdit.Keyspace k;
            try {
                k = db.versions.createKeyspace(partitions, descriptor, raised, db.loggedSequence);
            } catch (IOException e) {
                // Not created: consumers of a keyspace that does not exist must not hold the log back.
                raised.keySet().forEach(db.wal::removeCheckpoint);
                throw e;
            }
            Tree[] next = Arrays.copyOf(db.trees, db.versions.allocatedTrees());
            for (int t = k.firstTree(); t < k.firstTree() + partitions; t++) {
                next[t] = Tree.open(t, db.versions);
            }
            db.installTrees(next, db.versions.keyspaces());
            return new Keyspace(k.id(), k.partitions(), k.descriptor());
        } catch (IOException e) {
            db.failed(e);
            throw new StorageIOException("cannot create keyspace: " + e.getMessage(), e);
        } finally {
            db.commitLock.unlock();
        }
    }

    /** See {@link LsmStore#updateKeyspace}. */
    void update(int id, byte[] descriptor) {
        db.checkWritable();
        db.commitLock.lock();
        try {
            db.checkWritable();
            db.versions.updateKeyspace(id, descriptor, db.loggedSequence);
        } catch (IOException e) {
            db.failed(e);
            throw new StorageIOException("cannot update keyspace " + id + ": " + e.getMessage(), e);
        } finally {
            db.commitLock.unlock();
        }
    }

    /**
     * See {@link LsmStore#dropKeyspaces}. Nothing is durable until the one manifest edit at the end; an
     * interrupt while waiting before it (for the flushes or for the trees' compaction slots) undoes what was
     * changed in memory, so the keyspaces are exactly as before, and throws with the interrupt flag set.
     */
    void drop(List<Integer> ids, List<String> checkpoints) {
        Set<Integer> seen = new HashSet<>();
        for (int id : ids) {
            if (id == 0) {
                throw new IllegalArgumentException("keyspace 0 cannot be dropped");
            }
            // Named twice, its trees would be listed twice and the drop would wait for the compaction slot
            // it had itself just claimed: it would never return.
            if (!seen.add(id)) {
                throw new IllegalArgumentException("keyspace " + id + " is named twice in " + ids);
            }
        }
        db.checkWritable();
        db.checkNotRetrying("dropping keyspaces " + ids); // before anything changes, as waiting may not end
        List<Tree> dropping = new ArrayList<>();
        List<Db.Route> removed = new ArrayList<>();
        db.commitLock.lock();
        try {
            for (int id : ids) {
                if (db.route(id) == null) {
                    throw new IllegalArgumentException("no keyspace " + id);
                }
            }
            Db.Route[] routes = db.routes.clone();
            for (int id : ids) {
                Db.Route route = db.route(id);
                routes[id] = null;
                removed.add(route);
                for (int t = route.firstTree(); t < route.firstTree() + route.partitions(); t++) {
                    Tree tree = db.trees[t];
                    tree.dropped = true;
                    tree.switchMemtable(FlushReason.KEYSPACE_DROPPED);
                    dropping.add(tree);
                }
            }
            db.routes = routes; // writes to them fail from here on
        } finally {
            db.commitLock.unlock();
        }
        // Their memtables are flushed the ordinary way (memory and log bookkeeping stay simple), then the
        // files go with the keyspaces in one manifest edit.
        try {
            awaitFlushedInterruptibly(dropping, "dropping keyspaces " + ids);
        } catch (InterruptedException e) {
            undoDrop(removed, dropping, List.of());
            throw interrupted(ids, e);
        } catch (StorageIOException e) {
            // The keyspaces are half dropped in memory (their routes gone), and waiting for a flush the disk
            // keeps failing could last forever: stop writes, and a reopen brings the keyspaces back whole.
            db.setBackgroundError(e);
            throw e;
        }
        List<Tree> claimed = new ArrayList<>();
        try {
            for (Tree tree : dropping) {
                tree.awaitAndStartCompaction(); // held for good: the tree is gone
                claimed.add(tree);
            }
        } catch (InterruptedException e) {
            undoDrop(removed, dropping, claimed);
            throw interrupted(ids, e);
        }
        db.commitLock.lock();
        try {
            db.checkWritable();
            db.versions.dropKeyspaces(ids, checkpoints, db.loggedSequence);
            checkpoints.forEach(db.wal::removeCheckpoint);
            Tree[] next = db.trees.clone();
            dropping.forEach(t -> next[t.id] = null);
            db.installTrees(next, db.versions.keyspaces());
        } catch (IOException e) {
            // Permanent even when the disk only was full: the keyspaces are half dropped in memory (their
            // routes gone, their trees idle for good) and a reopen is what brings them back whole.
            db.setBackgroundError(e);
            throw new StorageIOException("cannot drop keyspaces " + ids + ": " + e.getMessage(), e);
        } finally {
            db.commitLock.unlock();
        }
    }

    /**
     * Puts back what a drop changed in memory before its manifest edit: the routes {@code removed} (only
     * those: another drop may be under way), the trees' marks, and the compaction slots it {@code claimed}.
     * The memtables it froze stay frozen or flushed, which changes nothing a reader or a reopen sees. The
     * compactions skipped meanwhile are asked for again.
     */
    private void undoDrop(List<Db.Route> removed, List<Tree> dropping, List<Tree> claimed) {
        db.commitLock.lock();
        try {
            int length = db.routes.length;
            for (Db.Route route : removed) {
                length = Math.max(length, route.keyspace() + 1);
            }
            Db.Route[] routes = Arrays.copyOf(db.routes, length);
            for (Db.Route route : removed) {
                routes[route.keyspace()] = route;
            }
            for (Tree tree : dropping) {
                tree.dropped = false;
            }
            db.routes = routes;
        } finally {
            db.commitLock.unlock();
        }
        for (Tree tree : claimed) {
            tree.endCompaction();
        }
        for (Tree tree : dropping) {
            background.scheduleCompaction(tree);
        }
    }

    /** What an interrupted drop throws, the interrupt flag set again (the wait cleared it). */
    private static StorageIOException interrupted(List<Integer> ids, InterruptedException e) {
        Thread.currentThread().interrupt();
        return new StorageIOException("interrupted while dropping keyspaces " + ids
                + "; nothing was dropped, they are as they were", e);
    }

    /** See {@link LsmStore#flushKeyspace(int)}. */
    void flush(int id) {
        flush(id, Long.MAX_VALUE);
    }

    /**
     * Walking a memtable to carry its recent keys into the next one happens under the commit lock: past this
     * many entries it is flushed whole instead (a memtable this large is not a queue's few open entries).
     */
    static final int MAX_CARRY_SCAN = 1 << 16;

    /** See {@link LsmStore#flushKeyspace(int, long)}. */
    void flush(int id, long keepAbove) {
        db.checkWritable();
        List<Tree> trees = new ArrayList<>();
        db.commitLock.lock();
        try {
            Db.Route route = db.route(id);
            if (route == null) {
                throw new IllegalArgumentException("no keyspace " + id);
            }
            for (int t = route.firstTree(); t < route.firstTree() + route.partitions(); t++) {
                if (keepAbove == Long.MAX_VALUE) {
                    db.trees[t].switchMemtable(FlushReason.KEYSPACE_FLUSH);
                } else {
                    long carried = db.trees[t].switchMemtableKeeping(keepAbove, MAX_CARRY_SCAN);
                    if (carried > 0) {
                        db.memoryUsed.addAndGet(carried); // the frozen one gives its own back once flushed
                    }
                }
                trees.add(db.trees[t]);
            }
        } finally {
            db.commitLock.unlock();
        }
        awaitFlushed(trees, "flushing keyspace " + id);
    }

    /** See {@link LsmStore#keyspaces}. */
    List<Keyspace> list() {
        return db.versions.keyspaces().stream().map(k -> new Keyspace(k.id(), k.partitions(), k.descriptor())).toList();
    }

    /**
     * Schedules flushes of {@code trees}' frozen memtables and waits until none is left; stops waiting with an
     * error once a background job is being retried after a transient error (the wait could last as long as
     * the disk stays full).
     */
    private void awaitFlushed(List<Tree> trees, String doing) {
        try {
            awaitFlushedInterruptibly(trees, doing);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageIOException("interrupted while " + doing, e);
        }
    }

    /** Like {@link #awaitFlushed}, but an interrupt is left to the caller, who may have something to undo. */
    private void awaitFlushedInterruptibly(List<Tree> trees, String doing) throws InterruptedException {
        trees.forEach(background::scheduleFlush);
        synchronized (db.progress) {
            while (trees.stream().anyMatch(t -> t.immutableCount() > 0) && db.backgroundError() == null
                    && !db.closed && db.retryingError() == null) {
                db.progress.wait(100);
            }
        }
        db.checkWritable();
        if (trees.stream().anyMatch(t -> t.immutableCount() > 0)) {
            db.checkNotRetrying(doing);
        }
    }
}
