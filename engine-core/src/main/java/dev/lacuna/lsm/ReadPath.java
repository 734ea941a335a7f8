package dev.lacuna.lsm;

import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;
import dev.lacuna.manifest.FileMeta;
import dev.lacuna.sstable.SstableReader;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads: point lookups (memtables, then level 0 newest first, then one file per deeper level, each
 * table consulted only if its key range and bloom filter admit the key) and range scans (a merging
 * iterator over everything that may overlap the range, under a {@link UserIterator}).
 */
final class ReadPath {
    private final Db db;
    private final Background background;

    ReadPath(Db db, Background background) {
        this.db = db;
        this.background = background;
    }

    /** Reads at the latest sequence rather than at a snapshot. */
    static final long LATEST = -1;

    /** The value of {@code key} at {@code snapshot} (or {@link #LATEST}), or null. */
    byte[] get(byte[] key, long snapshot) {
        db.checkOpen();
        if (snapshot != LATEST) {
            return get(db.trees[db.treeOf(key)], key, snapshot);
        }
        long token = db.reads.begin(); // before the sequence is chosen: see ReadTracker
        try {
            return get(db.trees[db.treeOf(key)], key, LATEST);
        } finally {
            db.reads.end(token);
        }
    }

    /**
     * The value of {@code key} at {@code sequence}, which may be past the visible sequence (a writer's read of
     * writes logged but not yet durable). Needs no read tracking: a memtable purge only drops put/delete pairs
     * below the visible sequence, which such a read sees deleted either way, and a memtable drops hidden versions of
     * a key only at a write of that key ({@link Memtable#add}), which the caller's lock on the key holds off.
     */
    byte[] getAt(byte[] key, long sequence) {
        return get(db.trees[db.treeOf(key)], key, sequence);
    }

    private byte[] get(Tree tree, byte[] key, long snapshotOrLatest) {
        Tree.Shared view = tree.borrow();
        long snapshot = snapshotOrLatest;
        if (snapshotOrLatest == LATEST) {
            while (true) { // see Tree.isCurrent: the sequence after the view, then the view still current
                snapshot = db.visibleSequence;
                if (tree.isCurrent(view)) {
                    break;
                }
                tree.giveBack(view);
                view = tree.borrow();
            }
        }
        try {
            byte[][] hit = view.mem().get(key, snapshot);
            for (int i = 0; hit == null && i < view.immutables().size(); i++) {
                hit = view.immutables().get(i).get(key, snapshot);
            }
            if (hit == null) {
                hit = getFromTables(view.version(), key, snapshot);
            }
            if (hit == null || InternalKey.isDeletion(hit[0])) {
                return null;
            }
            return hit[1];
        } finally {
            tree.giveBack(view);
        }
    }

    private byte[][] getFromTables(Version version, byte[] key, long snapshot) {
        for (FileMeta f : version.files(0)) {
            if (covers(f, key)) {
                byte[][] hit = lookup(f, key, snapshot);
                if (hit != null) {
                    return hit;
                }
            }
        }
        byte[] seek = InternalKey.seekKey(key, snapshot);
        for (int level = 1; level < Version.LEVELS; level++) {
            List<FileMeta> files = version.files(level);
            int lo = 0;
            int hi = files.size();
            while (lo < hi) { // first file whose largest key is ≥ the seek key
                int mid = (lo + hi) >>> 1;
                if (InternalKey.compare(files.get(mid).largest(), seek) < 0) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            if (lo < files.size() && covers(files.get(lo), key)) {
                byte[][] hit = lookup(files.get(lo), key, snapshot);
                if (hit != null) {
                    return hit;
                }
            }
        }
        return null;
    }

    /**
     * The newest entry for {@code key} at {@code snapshot} in table {@code f}, or null. Reads the cached reader
     * without pinning it (see {@link SstableCache#peekUnpinned}); {@link SstableReader#get} asks the table's filter
     * first, so most tables cost a filter probe. Pins the reader only to open it, or to read again when it was
     * closed for room under the first read.
     */
    private byte[][] lookup(FileMeta f, byte[] key, long snapshot) {
        SstableReader reader = db.tables.peekUnpinned(f.number());
        if (reader != null) {
            try {
                return pair(reader.get(key, snapshot));
            } catch (RuntimeException e) {
                if (!reader.isClosed()) {
                    throw e;
                }
                // Closed for room while this read needed its file: read it again, pinned.
            }
        }
        SstableCache.Handle table = db.tables.acquire(f.number());
        try {
            return pair(table.reader.get(key, snapshot));
        } finally {
            table.release();
        }
    }

    private static byte[][] pair(SstableReader.Entry e) {
        return e == null ? null : new byte[][] {e.key(), e.value()};
    }

    private static boolean covers(FileMeta f, byte[] key) {
        return InternalKey.compareUserKey(f.smallest(), key) <= 0 && InternalKey.compareUserKey(f.largest(), key) >= 0;
    }

    /**
     * A user-level iterator over {@code [lower, upper)} at {@code snapshot}. If {@code prefix} is given,
     * every key in the range shares it, so only its partition is read and tables whose bloom filter
     * lacks it are skipped.
     */
    UserIterator scan(byte[] lower, byte[] upper, boolean reverse, long snapshot, byte[] prefix) {
        return scan(lower, upper, reverse, snapshot, prefix, -1);
    }

    /** Like {@link #scan(byte[], byte[], boolean, long, byte[])}, reading only tree {@code onlyTree} if it is not -1. */
    UserIterator scan(byte[] lower, byte[] upper, boolean reverse, long snapshot, byte[] prefix, int onlyTree) {
        db.checkOpen();
        List<Tree.View> views = new ArrayList<>();
        List<InternalIterator> children = new ArrayList<>();
        long token = snapshot == LATEST ? db.reads.begin() : -1;
        long sequence = snapshot;
        Tree[] live = db.live;
        try {
            if (onlyTree >= 0 || prefix != null) {
                Tree tree = onlyTree >= 0 ? db.trees[onlyTree] : db.trees[db.treeOf(prefix)];
                if (tree == null) {
                    throw new IllegalArgumentException("partition " + onlyTree + " was dropped");
                }
                Tree.View view = tree.acquire();
                views.add(view);
                if (snapshot == LATEST) {
                    sequence = latestIn(tree, views);
                }
                addTree(views.get(0), lower, upper, prefix, children);
            } else {
                if (snapshot == LATEST && live.length == 1) {
                    views.add(live[0].acquire());
                    sequence = latestIn(live[0], views);
                    if (db.live != live) { // a keyspace was made meanwhile: its writes may be visible at sequence
                        views.remove(0).close();
                    }
                }
                if (views.isEmpty() && snapshot == LATEST) {
                    // One sequence for all partitions: with writes held back (no memtable switches), every write
                    // visible at it is in the views taken before it was read.
                    db.commitLock.lock();
                    try {
                        for (Tree tree : db.live) {
                            views.add(tree.acquire());
                        }
                        sequence = db.visibleSequence;
                    } finally {
                        db.commitLock.unlock();
                    }
                } else if (views.isEmpty()) {
                    for (Tree tree : live) {
                        views.add(tree.acquire());
                    }
                }
                for (Tree.View view : views) {
                    addTree(view, lower, upper, null, children);
                }
            }
            if (reverse) {
                views.forEach(v -> v.mem().beginReverseScan());
            }
        } catch (RuntimeException e) {
            children.forEach(InternalIterator::close);
            views.forEach(Tree.View::close);
            if (token != -1) {
                db.reads.end(token);
            }
            throw e;
        }
        UserIterator[] self = new UserIterator[1];
        Runnable release = () -> {
            if (reverse) {
                views.forEach(v -> v.mem().endReverseScan());
            }
            views.forEach(Tree.View::close);
            if (token != -1) {
                db.reads.end(token);
            }
        };
        MergingIterator merged = new MergingIterator(children);
        try {
            // The first seek happens here, and it opens the deeper levels' tables: an I/O error (a transient
            // EMFILE, a damaged block) must release the views, the read token and the reverse-scan marks, or
            // the views' tables are never deleted and the memtables never purge again (ScanFailureReleaseTest).
            self[0] = new UserIterator(merged, sequence, lower, upper, reverse, () -> {
                release.run();
                if (self[0].skipped() >= db.options.deadEntryTrigger()) {
                    background.flushForDeadEntries(views);
                }
            });
        } catch (RuntimeException | Error e) {
            try {
                merged.close();
            } finally {
                release.run();
            }
            throw e;
        }
        return self[0];
    }

    /**
     * The latest visible sequence, for a read of {@code tree} through the view {@code views} holds alone (its
     * first): reads the sequence, and if the view is no longer current, replaces it with the current one and
     * reads again (see {@link Tree#isCurrent}).
     */
    private long latestIn(Tree tree, List<Tree.View> views) {
        while (true) {
            long latest = db.visibleSequence;
            if (tree.isCurrent(views.get(0))) {
                return latest;
            }
            views.set(0, tree.acquire()).close();
        }
    }

    private void addTree(Tree.View view, byte[] lower, byte[] upper, byte[] prefix, List<InternalIterator> children) {
        children.add(view.mem().iterator());
        for (Memtable m : view.immutables()) {
            children.add(m.iterator());
        }
        for (FileMeta f : view.version().files(0)) {
            if (overlaps(f, lower, upper) && mayHoldPrefix(f, prefix)) {
                children.add(db.tables.iterator(f.number(), true));
            }
        }
        for (int level = 1; level < Version.LEVELS; level++) {
            List<FileMeta> files = new ArrayList<>();
            for (FileMeta f : view.version().files(level)) {
                if (overlaps(f, lower, upper) && mayHoldPrefix(f, prefix)) {
                    files.add(f);
                }
            }
            if (!files.isEmpty()) {
                children.add(new LevelIterator(files, db.tables));
            }
        }
    }

    private boolean mayHoldPrefix(FileMeta f, byte[] prefix) {
        if (prefix == null) {
            return true;
        }
        SstableCache.Handle table = db.tables.acquire(f.number());
        try {
            return table.reader.mayContainPrefix(prefix);
        } finally {
            table.release();
        }
    }

    private static boolean overlaps(FileMeta f, byte[] lower, byte[] upper) {
        return (lower == null || InternalKey.compareUserKey(f.largest(), lower) >= 0)
                && (upper == null || InternalKey.compareUserKey(f.smallest(), upper) < 0);
    }
}
