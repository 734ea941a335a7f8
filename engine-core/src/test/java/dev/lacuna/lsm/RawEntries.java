package dev.lacuna.lsm;

import dev.lacuna.Database;
import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;
import dev.lacuna.manifest.FileMeta;
import java.time.Duration;
import java.util.function.Predicate;

/**
 * A brute-force look at what a store holds: every internal entry of every source — the active memtable, the
 * frozen ones, every table of every level — walked one source at a time, with no merging and no notion of
 * visibility. What a read's dead-entry counter claims is checked against it.
 *
 * <p>The counts are only meaningful while nothing moves entries between sources: {@link #hold} waits until no
 * flush or compaction runs in any partition and keeps them from starting until {@link Hold#close()}.
 */
final class RawEntries {
    private final Db db;

    private RawEntries(Db db) {
        this.db = db;
    }

    static RawEntries of(LsmStore kv) {
        return new RawEntries(LsmInternals.db(kv));
    }

    /** The store behind a database (the item engine keeps it private: no accessor exists for tests). */
    static RawEntries of(Database database) {
        Object engine = LsmInternals.field(database, "engine");
        return of((LsmStore) LsmInternals.field(engine, "kv"));
    }

    /** Internal entries, in all sources, whose user key satisfies {@code userKey}. */
    long count(Predicate<byte[]> userKey) {
        long n = 0;
        for (Tree tree : db.live) {
            try (Tree.View view = tree.acquire()) {
                n += count(view.mem().iterator(), userKey);
                for (Memtable m : view.immutables()) {
                    n += count(m.iterator(), userKey);
                }
                for (int level = 0; level < Version.LEVELS; level++) {
                    for (FileMeta f : view.version().files(level)) {
                        n += count(db.tables.iterator(f.number(), false), userKey);
                    }
                }
            }
        }
        return n;
    }

    private static long count(InternalIterator it, Predicate<byte[]> userKey) {
        long n = 0;
        try (it) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                if (userKey.test(InternalKey.userKey(it.key()))) {
                    n++;
                }
            }
        }
        return n;
    }

    /**
     * Waits (up to {@code timeout}) until no flush or compaction runs or is queued in any partition, then keeps
     * them from running until the hold is closed. Writes must not run meanwhile: one that fills a memtable
     * would wait for a flush that cannot come.
     */
    Hold hold(Duration timeout) throws InterruptedException {
        Tree[] trees = db.live;
        for (Tree t : trees) {
            t.awaitAndStartCompaction(); // a background compaction finds it taken and does nothing
        }
        boolean[] flushClaimed = new boolean[trees.length];
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (db.progress) { // every background job signals it when it ends
            while (true) {
                boolean all = true;
                for (int i = 0; i < trees.length; i++) {
                    flushClaimed[i] = flushClaimed[i] || trees[i].claimFlushSlot();
                    all &= flushClaimed[i];
                }
                if (all) {
                    break;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    for (int i = 0; i < trees.length; i++) {
                        if (flushClaimed[i]) {
                            trees[i].releaseFlushSlot();
                        }
                        trees[i].endCompaction();
                    }
                    throw new AssertionError("background flushes still queued after " + timeout);
                }
                db.progress.wait(Math.max(1, left / 1_000_000));
            }
        }
        return new Hold(trees);
    }

    /** Background work held back; closing lets it run again. */
    static final class Hold implements AutoCloseable {
        private final Tree[] trees;

        private Hold(Tree[] trees) {
            this.trees = trees;
        }

        @Override
        public void close() {
            for (Tree t : trees) {
                t.releaseFlushSlot();
                t.endCompaction();
            }
        }
    }
}
