package dev.lacuna.lsm;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.sstable.BlockCache;
import dev.lacuna.sstable.Lz4;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.IncompatibleStoreException;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.VfsLock;
import dev.lacuna.wal.Wal;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * Opening a store and recovering it from a crash, apart from what an open store does (as Pebble's
 * {@code open.go} beside {@code db.go}): lock the directory, check it whole ({@link OpenCheck}: nothing is
 * written or deleted before), start a new manifest, delete the tables it does not name, and replay into the
 * memtables every write of the log the tables do not hold. If any step
 * fails — starting the store included — what was opened is closed and the lock released.
 */
final class Recovery {
    private static final System.Logger LOG = System.getLogger(Recovery.class.getName());
    /** The file whose lock keeps a second process out of the directory. */
    static final String LOCK_FILE = "LOCK";
    /** The log's directory, inside the store's. */
    static final String WAL_DIR = "wal";
    private Recovery() {
    }

    /**
     * Opens the store in {@code dir} for {@code owner} (see {@link VersionSet#claim}), creating it if needed,
     * recovers it, and hands the state and the directory lock to {@code start}, whose result it returns.
     *
     * @throws StorageIOException if the file system fails or another process has the store open
     * @throws dev.lacuna.storage.IncompatibleStoreException if the directory is another API's store or newer
     */
    static <T> T open(Path dir, KvOptions options, String owner, BiFunction<Db, VfsLock, T> start) {
        long began = System.nanoTime();
        VfsLock lock = null;
        Db db = null;
        try {
            makeDirectory(options.vfs(), dir);
            lock = options.vfs().lock(dir.resolve(LOCK_FILE));
            db = new Db(options, dir, new SstableCache(options.vfs(), dir, new BlockCache(options.blockCacheBytes()),
                    Lz4.fastest(),
                    options.maxOpenFiles()));
            Db d = db;
            Path walDir = dir.resolve(WAL_DIR);
            // Everything is checked before anything is written or deleted (OpenCheck).
            boolean isNew = OpenCheck.isNew(db);
            db.versions = VersionSet.open(options.vfs(), dir, options.partitions(), options.maxManifestBytes(),
                    d::deleteObsoleteFile);
            db.versions.claim(owner);
            OpenCheck.tablesPresent(db);
            // The trees (and the keyspace routes) before the log: its records are decoded into their writes while
            // the log's recovery reads and checks them, in one reading of the log.
            Tree[] trees = new Tree[db.versions.allocatedTrees()];
            for (int i = 0; i < trees.length; i++) {
                if (!db.versions.isDropped(i)) {
                    trees[i] = Tree.open(i, db.versions);
                }
            }
            db.installTrees(trees, db.versions.keyspaces());
            long[] replayed;
            Replay replay = new Replay(db.trees.length);
            Replay.Build[] building = new Replay.Build[1];
            try {
                try (Replay.Decoder decoder = replay.new Decoder(db, flushedLsns(db))) {
                    LogFeed feed = new LogFeed(decoder);
                    // Once the log's open has handed every record over (read and checked, nothing of it changed
                    // yet), a record that did not decode, or was not decoded, fails the open: before the log's
                    // repair, the new manifest and the deletion of the tables the old one does not name
                    // (ReplayDamageWritesNothingTest). The memtables are then sorted and linked while those go on.
                    Runnable handedOver = () -> {
                        feed.end();
                        feed.finish();
                        building[0] = replay.build(dir);
                    };
                    db.wal = Wal.open(options.vfs(), walDir, options.wal(), log -> {
                        OpenCheck.logCovers(d, walDir, isNew, log);
                        handedOver.run();
                    }, db.versions.walStartLsn(), replay::logBytes, feed::add);
                    if (building[0] == null) {
                        handedOver.run(); // (the log's open checks its coverage once, always: not met)
                    }
                    db.wal.onDurable(d.visibility::durable); // every fsync makes what it covers visible
                    db.versions.trackLog(db.wal::durableLsn); // every edit records how far the log is durable
                    db.versions.startManifest();
                    deleteUnreferencedTables(db);
                    db.versions.checkpoints().forEach(db.wal::setCheckpoint); // before anything trims the log
                    replayed = new long[] {feed.records, feed.bytes};
                }
                db.memoryUsed.set(building[0].install(db));
            } finally {
                if (building[0] != null) {
                    building[0].close(); // its threads, done or, if the open failed meanwhile, stopped
                }
            }
            db.visibility.recovered(Math.max(db.wal.lastLsn(), 0));
            if (LOG.isLoggable(System.Logger.Level.INFO)) {
                // The segments the log holds (those replayed, and the one just started for appends), from the
                // log itself: listing its directory here could fail, and fail an open already recovered.
                long millis = (System.nanoTime() - began) / 1_000_000;
                LOG.log(System.Logger.Level.INFO, "store " + dir + " opened in " + millis + " ms: replayed "
                        + replayed[0] + " log records (" + replayed[1] + " bytes); log segments: "
                        + db.wal.segmentCount() + ", last LSN " + Math.max(db.wal.lastLsn(), 0));
            }
            return start.apply(db, lock);
        } catch (IOException e) {
            abandon(db, lock, e);
            throw new StorageIOException("cannot open store in " + dir + ": " + e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            // An Error too (an OutOfMemoryError, a failing assertion): left open, the lock would refuse every
            // later open of the directory in this process.
            abandon(db, lock, e);
            throw e;
        }
    }

    /**
     * Creates {@code dir} if needed; a file in its place (or in a parent's) is the caller's mistake, said as such
     * rather than as a failing file system.
     */
    private static void makeDirectory(dev.lacuna.vfs.Vfs vfs, Path dir) throws IOException {
        try {
            vfs.mkdirs(dir);
        } catch (java.nio.file.FileAlreadyExistsException e) {
            throw new IncompatibleStoreException("cannot open a store in " + dir + ": " + e.getFile()
                    + " is a file, not a directory");
        }
    }

    /** Per tree, the last LSN its tables hold: the replay skips older writes. */
    private static long[] flushedLsns(Db db) {
        long[] flushed = new long[db.trees.length];
        for (Tree tree : db.live) {
            flushed[tree.id] = db.versions.flushedLsn(tree.id);
        }
        return flushed;
    }

    /**
     * Hands the records the log's recovery checks to the decoder in batches, counting them for the open's log
     * line. A record that does not decode stops the feeding, not the log's recovery: damage to the log, found
     * further on, and a log its owner refuses take precedence, as when the log was read again after its recovery;
     * the decoder throws the failure at its {@link Replay.Decoder#finish}.
     */
    private static final class LogFeed {
        private final Replay.Decoder decoder;
        /** The batch being filled; null before the first record and once the feeding failed. */
        private ReplayBatch batch;
        private boolean failed;
        /** What {@link Replay.Decoder#submit} threw: the decoder keeps only a decode's failure, not its own. */
        private Throwable failure;
        long records;
        long bytes;

        LogFeed(Replay.Decoder decoder) {
            this.decoder = decoder;
        }

        /** One record, its payload {@code b[from, from + length)} lent by the log's recovery: copied into the batch. */
        void add(long lsn, byte[] b, int from, int length) {
            records++;
            bytes += length;
            if (failed) {
                return;
            }
            if (batch == null) {
                batch = decoder.emptyBatch();
            }
            batch.add(lsn, b, from, length);
            if (batch.full()) {
                submit();
            }
        }

        void end() {
            if (!failed && batch != null && batch.count() > 0) {
                submit();
            }
        }

        private void submit() {
            ReplayBatch full = batch;
            batch = null;
            try {
                decoder.submit(full);
            } catch (RuntimeException | Error e) {
                failed = true; // thrown at finish(): the records from this batch on were not replayed
                failure = e;
            }
        }

        /**
         * Ends the replay's decoding: throws the first record's failure to decode, or else what a submit threw (a
         * pool that could not start a thread, an OutOfMemoryError taking a batch back): either way records were
         * not replayed, and the open must fail rather than go on without them.
         */
        void finish() {
            decoder.finish();
            if (failure instanceof Error e) {
                throw e;
            }
            if (failure != null) {
                throw (RuntimeException) failure;
            }
        }
    }

    /** Tables the manifest does not name were being written when the store last stopped: delete them. */
    private static void deleteUnreferencedTables(Db db) throws IOException {
        Set<Long> live = db.versions.liveFiles();
        for (String name : db.vfs.list(db.dir)) {
            if (name.endsWith(".sst")) {
                try {
                    long number = Long.parseLong(name.substring(0, name.length() - 4));
                    if (!live.contains(number)) {
                        db.vfs.delete(db.dir.resolve(name));
                    }
                } catch (NumberFormatException e) {
                    // not one of ours
                }
            }
        }
    }

    /** Closes what a failed open had opened, adding what else fails to {@code primary}. */
    private static void abandon(Db db, VfsLock lock, Throwable primary) {
        if (db != null) {
            // Each on its own: one that fails to close must not leave the others open.
            if (db.wal != null) {
                closeQuietly(db.wal::close, primary);
            }
            if (db.versions != null) {
                closeQuietly(db.versions::close, primary);
            }
            closeQuietly(db.tables::close, primary);
        }
        if (lock != null) {
            if (db != null) {
                db.released = true; // nothing of the directory is this store's to delete once the lock is let go
            }
            closeQuietly(lock::close, primary);
        }
    }

    /** Closes {@code c}, adding what it throws to {@code primary}, which the failed open throws. */
    private static void closeQuietly(AutoCloseable c, Throwable primary) {
        try {
            c.close();
        } catch (Exception | Error e) {
            primary.addSuppressed(e);
        }
    }
}
