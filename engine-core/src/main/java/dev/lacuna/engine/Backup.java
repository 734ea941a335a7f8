package dev.lacuna.engine;

import dev.lacuna.BackupReport;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.storage.LacunaException;
import dev.lacuna.lsm.LsmStore;
import dev.lacuna.storage.IncompatibleStoreException;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsLock;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A backup of a database directory, whether or not a process has it open ({@link dev.lacuna.Database#backup}).
 * Free, it is opened and checkpointed. Held by another process, its files are copied as a crash would leave
 * them ({@link LsmStore#checkpointForeign}) and the copy is opened once, which runs every check an open runs
 * and recovers it as after a crash: a copy the other process made inconsistent under it (a table compacted
 * away, log segments trimmed before they were copied) is refused, emptied and made again.
 */
public final class Backup {
    /** Copies made at most before giving up: each fails only if the other process changed files under it. */
    static final int MAX_COPIES = 10;
    private static final System.Logger LOG = System.getLogger(Backup.class.getName());

    private Backup() {
    }

    /** See {@link dev.lacuna.Database#backup}. */
    public static BackupReport take(Path dir, Path dest, DatabaseOptions options) {
        Vfs vfs = options.vfs();
        if (!vfs.exists(dir.resolve("CURRENT"))) {
            throw new StorageIOException("cannot back up " + dir + ": it holds no database (no CURRENT)", (Throwable) null);
        }
        if (!heldElsewhere(vfs, dir)) {
            try (ItemEngine engine = ItemEngine.open(dir, options)) {
                engine.checkpoint(dest);
            }
            return new BackupReport(false, 1);
        }
        try { // checked once here: a copy made again finds the log directory an earlier one left
            if (vfs.exists(dest) && !vfs.list(dest).isEmpty()) {
                throw new StorageIOException("cannot back up into " + dest + ": it exists and is not empty (a backup"
                        + " goes into a new or empty directory)", (Throwable) null);
            }
        } catch (IOException e) {
            throw new StorageIOException("cannot back up into " + dest + ": " + e.getMessage(), e);
        }
        LacunaException last = null;
        for (int copy = 1; copy <= MAX_COPIES; copy++) {
            try {
                LsmStore.checkpointForeign(vfs, dir, dest);
                try (ItemEngine opened = ItemEngine.open(dest, options)) {
                    opened.listTables(); // opened: every check passed, and the copy recovered
                }
                return new BackupReport(true, copy);
            } catch (IncompatibleStoreException e) {
                throw e; // not a database, or a newer one: another copy would not change that
            } catch (LacunaException e) {
                last = e;
                LOG.log(System.Logger.Level.INFO, "backup of " + dir + ": copy " + copy + " failed (the process"
                        + " that has the database open may have changed files under it): " + e.getMessage()
                        + "; copying again");
                empty(vfs, dest);
            }
        }
        throw new StorageIOException("cannot back up " + dir + ": " + MAX_COPIES + " copies in a row failed (the"
                + " process that has it open changing files under each, or damage in the store); the last: "
                + last.getMessage(), last);
    }

    /** Whether another process (or another open in this one) holds the directory's lock. */
    private static boolean heldElsewhere(Vfs vfs, Path dir) {
        try (VfsLock lock = vfs.lock(dir.resolve("LOCK"))) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    /**
     * Deletes what a failed copy left in {@code dest}: its files, and the files of its log directory, which
     * stays (a {@link Vfs} deletes files only); the next copy takes a {@code dest} holding only that.
     */
    private static void empty(Vfs vfs, Path dest) {
        try {
            for (String name : vfs.list(dest)) {
                Path p = dest.resolve(name);
                if (name.equals(LsmStore.WAL_DIR)) {
                    for (String segment : vfs.list(p)) {
                        vfs.delete(p.resolve(segment));
                    }
                } else {
                    vfs.delete(p);
                }
            }
        } catch (IOException e) {
            throw new StorageIOException("cannot back up: emptying " + dest + " after an inconsistent copy failed: "
                    + e.getMessage(), e);
        }
    }
}
