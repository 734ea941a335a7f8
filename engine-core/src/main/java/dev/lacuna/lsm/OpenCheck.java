package dev.lacuna.lsm;

import dev.lacuna.manifest.Manifest;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.wal.Wal;
import java.io.IOException;
import java.nio.file.Path;

/**
 * What an open checks before it writes or deletes anything, so that an open that refuses leaves the
 * directory as it found it: that a directory without {@code CURRENT} holds no data, tables or log records
 * (else it is a store that lost its pointer, not a new one), that every table the manifest names exists, and
 * that the log still holds every record the tables do not and reaches as far as the manifest saw it durable.
 * Only then is a new manifest written and are leftovers deleted.
 */
final class OpenCheck {
    private OpenCheck() {
    }

    /**
     * Whether the directory is a new store (no {@code CURRENT}); refuses one without {@code CURRENT} that holds
     * tables. A manifest alone, or log segments without records, are what a crash during a new store's first
     * open leaves: no data, so the store is new. (A log with records is refused by {@link #logCovers}.)
     */
    static boolean isNew(Db db) throws IOException {
        if (db.vfs.exists(db.dir.resolve(Manifest.CURRENT))) {
            return false;
        }
        for (String name : db.vfs.list(db.dir)) {
            if (name.endsWith(".sst")) {
                throw refused(db, name);
            }
        }
        return true;
    }

    private static CorruptionException refused(Db db, String found) {
        return new CorruptionException(db.dir.resolve(Manifest.CURRENT).toString(), 0, "the directory holds a "
                + "store's files (" + found + ") but no CURRENT naming its manifest; refusing to open it as a new "
                + "store (nothing was changed)");
    }

    /** Refuses a manifest that names a table the directory does not hold. */
    static void tablesPresent(Db db) {
        for (long number : db.versions.liveFiles()) {
            Path table = db.dir.resolve(SstableCache.fileName(number));
            if (!db.vfs.exists(table)) {
                throw new CorruptionException(table.toString(), 0, db.versions.readFrom() + " names this table but "
                        + "it is missing (nothing was changed)");
            }
        }
    }

    /**
     * Refuses a log that no longer holds the records from where recovery must replay or that a log consumer
     * needs after its checkpoint, that ends before the manifest saw it durable, or that holds records of a store
     * without {@code CURRENT} ({@code isNew}).
     */
    static void logCovers(Db db, Path walDir, boolean isNew, Wal.Recovered log) {
        long first = log.first();
        long last = log.last();
        if (isNew && last >= first) {
            throw refused(db, "log records " + first + " to " + last + " in " + walDir.getFileName());
        }
        long start = db.versions.walStartLsn();
        if (start <= last && first > start) {
            throw new CorruptionException(walDir.toString(), 0, "the log starts at LSN " + first + " but "
                    + db.versions.readFrom() + " needs it from " + start + " (nothing was changed)");
        }
        for (java.util.Map.Entry<String, Long> c : db.versions.checkpoints().entrySet()) {
            // The log keeps every record after a durable checkpoint (Wal.setCheckpoint); records after it that it
            // no longer holds mean the checkpoint is older than the one the log was trimmed by: lost edits.
            if (c.getValue() < last && c.getValue() + 1 < first) {
                throw new CorruptionException(walDir.toString(), 0, "the log starts at LSN " + first + " but "
                        + db.versions.readFrom() + " has log consumer " + c.getKey() + " at LSN " + c.getValue()
                        + ", which needs it from " + (c.getValue() + 1) + " (nothing was changed)");
            }
        }
        long durable = db.versions.logDurable();
        if (last < durable) {
            // What a crash can take is only what was never fsynced, so a log ending below what the manifest saw
            // fsynced lost records at rest (its end cut, or damaged so that it passed for a torn tail), and they
            // may have been acknowledged.
            throw new CorruptionException(log.lastSegment() != null ? log.lastSegment().toString() : walDir.toString(),
                    log.end(), "the log ends at LSN " + last + ", but " + db.versions.readFrom() + " recorded it"
                    + " durable through LSN " + durable + ": its end was cut or damaged at rest, and the records after"
                    + " LSN " + last + " may have been acknowledged (nothing was changed)");
        }
        if (start > last + 1) {
            // The tables hold records up to start - 1: new writes would get sequence numbers below theirs.
            throw new CorruptionException(walDir.toString(), 0, "the log ends at LSN " + last + " but the tables "
                    + "hold records up to LSN " + (start - 1) + " by " + db.versions.readFrom() + ": log segments are "
                    + "missing (nothing was changed)");
        }
    }
}
