package dev.lacuna.lsm;

import dev.lacuna.manifest.Manifest;
import dev.lacuna.storage.CorruptionException;
import java.io.IOException;
import java.nio.file.Path;

/**
 * What an open checks before it writes or deletes anything, so that an open that refuses leaves the
 * directory as it found it: that a directory without {@code CURRENT} holds no store's files (else it is a
 * store that lost its pointer, not a new one), that every table the manifest names exists, and that the log
 * still holds every record the tables do not. Only then is a new manifest written and are leftovers deleted.
 */
final class OpenCheck {
    private OpenCheck() {
    }

    /** Refuses a directory that holds manifests, tables or log segments but no {@code CURRENT}. */
    static void currentOrEmpty(Db db, Path walDir) throws IOException {
        if (db.vfs.exists(db.dir.resolve(Manifest.CURRENT))) {
            return;
        }
        for (String name : db.vfs.list(db.dir)) {
            if (name.startsWith("MANIFEST-") || name.endsWith(".sst")) {
                throw refused(db, name);
            }
        }
        if (db.vfs.exists(walDir)) {
            for (String name : db.vfs.list(walDir)) {
                if (name.endsWith(".wal")) {
                    throw refused(db, "wal/" + name);
                }
            }
        }
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
                throw new CorruptionException(table.toString(), 0, "the manifest names this table but it is missing "
                        + "(nothing was changed)");
            }
        }
    }

    /** Refuses a log that no longer holds the records from where recovery must replay. */
    static void logCovers(Db db, Path walDir, long first, long last) {
        long start = db.versions.walStartLsn();
        if (start <= last && first > start) {
            throw new CorruptionException(walDir.toString(), 0, "the log starts at LSN " + first
                    + " but recovery needs it from " + start + " (nothing was changed)");
        }
        if (start > last + 1) {
            // The tables hold records up to start - 1: new writes would get sequence numbers below theirs.
            throw new CorruptionException(walDir.toString(), 0, "the log ends at LSN " + last + " but the tables "
                    + "hold records up to LSN " + (start - 1) + ": log segments are missing (nothing was changed)");
        }
    }
}
