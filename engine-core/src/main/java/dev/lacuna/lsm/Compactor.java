package dev.lacuna.lsm;

import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.manifest.FileMeta;
import dev.lacuna.manifest.VersionEdit;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Picks and runs compactions, leveled per tree (as LevelDB and RocksDB do per column family):
 *
 * <ol>
 *   <li>level 0 holds {@code l0CompactionTrigger} files or more → all of level 0 into level 1;</li>
 *   <li>a level over its target size → one file of it (round-robin by key) into the next level;</li>
 *   <li>otherwise, a file whose deletions are dense or old → into the next level, or rewritten in place
 *       if it is at the bottom (deletion-triggered compaction). A file with deletions is never merely
 *       moved down: RocksDB's trivial move keeps tombstones alive at the bottom, where scans keep paying
 *       for them.</li>
 * </ol>
 *
 * Only deletions every snapshot sees are eligible for the third rule, so a snapshot cannot make it loop.
 */
final class Compactor {
    private final Db db;

    Compactor(Db db) {
        this.db = db;
    }

    /** Runs one compaction of {@code tree} if one is due; returns whether it did. */
    boolean compactOnce(Tree tree) throws IOException {
        if (tree.dropped || !tree.tryStartCompaction()) {
            return false;
        }
        try {
            Version version = db.versions.acquire(tree.id);
            try {
                Compaction c = pick(tree, version);
                if (c == null) {
                    return false;
                }
                run(c, version);
                return true;
            } finally {
                version.unref();
            }
        } finally {
            tree.endCompaction();
        }
    }

    Compaction pick(Tree tree, Version v) {
        KvOptions o = db.options;
        double bestScore = (double) v.files(0).size() / o.l0CompactionTrigger();
        int bestLevel = 0;
        long target = o.levelBaseBytes();
        for (int level = 1; level < Version.LEVELS - 1; level++) {
            double score = (double) v.levelBytes(level) / target;
            if (score > bestScore) {
                bestScore = score;
                bestLevel = level;
            }
            target *= o.levelMultiplier();
        }
        if (bestScore >= 1) {
            if (bestLevel == 0) {
                return levelZero(tree.id, v, Compaction.Reason.LEVEL0_FILES);
            }
            FileMeta file = nextByKey(tree, v, bestLevel);
            return intoNextLevel(tree.id, v, bestLevel, List.of(file), Compaction.Reason.LEVEL_SIZE);
        }
        return pickForDeletions(tree, v);
    }

    private Compaction pickForDeletions(Tree tree, Version v) {
        long oldestSnapshot = db.snapshots.oldest();
        long now = db.options.clock().millis();
        int bottom = v.deepestNonEmptyLevel();
        for (int level = 0; level <= bottom; level++) {
            for (FileMeta f : v.files(level)) {
                if (f.deletions() == 0 || f.maxSequence() > oldestSnapshot) {
                    continue;
                }
                Compaction.Reason reason;
                if (f.deletionDensity() >= db.options.tombstoneDensityTrigger()) {
                    reason = Compaction.Reason.TOMBSTONE_DENSITY;
                } else if (now - f.oldestTombstoneTime() >= db.options.tombstoneAgeMillis()) {
                    reason = Compaction.Reason.TOMBSTONE_AGE;
                } else {
                    continue;
                }
                if (level == 0) {
                    return levelZero(tree.id, v, reason);
                }
                if (level == bottom) {
                    return new Compaction(tree.id, level, level, List.of(f), List.of(), reason);
                }
                return intoNextLevel(tree.id, v, level, List.of(f), reason);
            }
        }
        return null;
    }

    private Compaction levelZero(int tree, Version v, Compaction.Reason reason) {
        return intoNextLevel(tree, v, 0, v.files(0), reason);
    }

    private Compaction intoNextLevel(int tree, Version v, int level, List<FileMeta> inputs, Compaction.Reason reason) {
        byte[] smallest = null;
        byte[] largest = null;
        for (FileMeta f : inputs) {
            if (smallest == null || InternalKey.compareUserKeys(f.smallest(), smallest) < 0) {
                smallest = f.smallest();
            }
            if (largest == null || InternalKey.compareUserKeys(f.largest(), largest) > 0) {
                largest = f.largest();
            }
        }
        List<FileMeta> next = v.overlapping(level + 1, InternalKey.userKey(smallest), InternalKey.userKey(largest));
        return new Compaction(tree, level, level + 1, inputs, next, reason);
    }

    /** The first file of {@code level} after the last one compacted there (wrapping around). */
    private FileMeta nextByKey(Tree tree, Version v, int level) {
        byte[] pointer = tree.compactPointer(level);
        List<FileMeta> files = v.files(level);
        FileMeta chosen = files.get(0);
        if (pointer != null) {
            for (FileMeta f : files) {
                if (InternalKey.compare(f.largest(), pointer) > 0) {
                    chosen = f;
                    break;
                }
            }
        }
        tree.setCompactPointer(level, chosen.largest());
        return chosen;
    }

    /** Runs {@code c} against {@code version} (which the caller holds) and installs the result. */
    void run(Compaction c, Version version) throws IOException {
        // Allocated only while a recording wants it: compactions cost nothing more otherwise.
        CompactionEvent event = db.events.begin(db.compactionEvents, CompactionEvent::new);
        VersionEdit edit = new VersionEdit();
        for (FileMeta f : c.inputs()) {
            edit.deleteFile(c.tree(), c.level(), f.number());
        }
        for (FileMeta f : c.nextInputs()) {
            edit.deleteFile(c.tree(), c.outputLevel(), f.number());
        }
        if (c.isTrivialMove()) {
            for (FileMeta f : c.inputs()) {
                edit.addFile(c.tree(), c.outputLevel(), f);
            }
            db.versions.logAndApply(edit, db.loggedSequence);
            db.trivialMoves.increment();
            commit(event, c, c.inputs().size() + c.nextInputs().size(), c.inputBytes());
            return;
        }
        List<InternalIterator> children = new ArrayList<>();
        long oldestTombstone = Long.MAX_VALUE;
        try {
            if (c.level() == 0) {
                for (FileMeta f : c.inputs()) {
                    children.add(db.tables.iterator(f.number(), false));
                }
            } else {
                children.add(new LevelIterator(c.inputs(), db.tables, false));
            }
        } catch (RuntimeException e) {
            children.forEach(InternalIterator::close); // each pins its table in the cache
            throw e;
        }
        if (!c.nextInputs().isEmpty()) {
            children.add(new LevelIterator(c.nextInputs(), db.tables, false));
        }
        for (FileMeta f : c.inputs()) {
            oldestTombstone = Math.min(oldestTombstone, f.oldestTombstoneTime());
        }
        for (FileMeta f : c.nextInputs()) {
            oldestTombstone = Math.min(oldestTombstone, f.oldestTombstoneTime());
        }
        SstableOutputs out = new SstableOutputs(db.vfs, db.dir, db.options.table(), db.tables.lz4(), db.versions::newFileNumber,
                db.options.targetFileBytes(), oldestTombstone);
        List<FileMeta> outputs;
        CompactionStream stream;
        try (InternalIterator merged = new MergingIterator(children)) {
            merged.seekToFirst();
            int outputLevel = c.outputLevel();
            stream = new CompactionStream(merged, db.snapshots.toArray(),
                    ik -> mayHoldBelow(version, outputLevel, ik));
            while (stream.next()) {
                out.add(stream.key(), stream.value());
            }
            outputs = out.finish();
        } catch (IOException | RuntimeException e) {
            out.abandon(() -> db.released);
            throw e;
        }
        for (FileMeta f : outputs) {
            edit.addFile(c.tree(), c.outputLevel(), f);
        }
        try {
            db.versions.logAndApply(edit, db.loggedSequence);
        } catch (IOException | RuntimeException e) {
            db.versions.abandonOutputs(outputs);
            throw e;
        }
        db.compactions.increment();
        db.compactionBytesRead.add(c.inputBytes());
        db.compactionBytesWritten.add(out.bytesWritten());
        db.droppedEntries.add(stream.dropped());
        db.droppedDeletions.add(stream.droppedDeletions());
        commit(event, c, outputs.size(), out.bytesWritten());
    }

    /** Ends and commits {@code event} (null while no recording wants it) for the finished compaction {@code c}. */
    private void commit(CompactionEvent event, Compaction c, int outputFiles, long outputBytes) {
        // Guarded: the compaction is installed, and an event failing here must not report it failed.
        db.events.commit(event, e -> {
            e.store = db.dir.toString();
            e.partition = c.tree();
            e.level = c.level();
            e.outputLevel = c.outputLevel();
            e.reason = c.reason().name();
            e.trivialMove = c.isTrivialMove();
            e.inputFiles = c.inputs().size() + c.nextInputs().size();
            e.inputBytes = c.inputBytes();
            e.outputFiles = outputFiles;
            e.outputBytes = outputBytes;
        });
    }

    private static boolean mayHoldBelow(Version version, int outputLevel, byte[] internalKey) {
        for (int l = outputLevel + 1; l < Version.LEVELS; l++) {
            for (FileMeta f : version.files(l)) {
                if (InternalKey.compareUserKeys(f.smallest(), internalKey) <= 0
                        && InternalKey.compareUserKeys(f.largest(), internalKey) >= 0) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Compacts every file overlapping {@code [lower, upper]} (user keys, null = open) level by level down
     * to the deepest level holding data, then rewrites the overlapping bottom files that still carry
     * deletions, so no deletion in the range survives that no snapshot needs.
     */
    void compactRange(Tree tree, byte[] lower, byte[] upper) throws IOException, InterruptedException {
        if (!tree.awaitAndStartCompactionUnlessDropped()) {
            return; // dropped since the caller listed it: nothing of it to compact
        }
        try {
            Version v = db.versions.acquire(tree.id);
            int bottom;
            try {
                // Level 0 files may overlap one another, so a deletion there is only dropped by moving
                // everything into level 1 first: the bottom of a tree with data is at least level 1.
                bottom = v.deepestNonEmptyLevel() < 0 ? -1 : Math.max(1, v.deepestNonEmptyLevel());
            } finally {
                v.unref();
            }
            for (int level = 0; level < bottom; level++) {
                v = db.versions.acquire(tree.id);
                try {
                    List<FileMeta> inputs = level == 0 ? v.files(0) : v.overlapping(level, lower, upper);
                    if (!inputs.isEmpty()) {
                        db.checkOpen(); // a close waits for this: stop at the next compaction
                        Compaction c = intoNextLevel(tree.id, v, level, inputs, Compaction.Reason.MANUAL);
                        run(new Compaction(c.tree(), c.level(), c.outputLevel(), c.inputs(), c.nextInputs(),
                                Compaction.Reason.MANUAL), v);
                    }
                } finally {
                    v.unref();
                }
            }
            if (bottom >= 0) {
                v = db.versions.acquire(tree.id);
                try {
                    // One file at a time: rewriting several files of a level that are not adjacent as one
                    // compaction would produce outputs spanning the files between them.
                    for (FileMeta f : v.overlapping(bottom, lower, upper)) {
                        if (f.deletions() > 0) {
                            db.checkOpen();
                            run(new Compaction(tree.id, bottom, bottom, List.of(f), List.of(), Compaction.Reason.MANUAL), v);
                        }
                    }
                } finally {
                    v.unref();
                }
            }
        } finally {
            tree.endCompaction();
        }
    }
}
