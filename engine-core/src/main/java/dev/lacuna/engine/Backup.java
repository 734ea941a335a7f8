package dev.lacuna.engine;

import dev.lacuna.BackupReport;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.lsm.LsmStore;
import dev.lacuna.storage.IncompatibleStoreException;
import dev.lacuna.storage.LacunaException;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.Vfs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * A backup of a database directory, whether or not a process has it open ({@link dev.lacuna.Database#backup}):
 * its files are copied as a crash at one instant would leave them ({@link LsmStore#checkpointForeign}), without
 * writing to the directory or taking its lock, and the copy is opened once, which runs every check an open runs
 * and recovers it as after a crash. A copy that a process writing the database made inconsistent under it (a
 * table compacted away, log segments trimmed, a table created) is refused, emptied and made again.
 *
 * <p>The directory's lock is not even tried: a Java file lock is the process's, and closing a channel that
 * failed to take it would release the lock a database open in this process holds.
 */
public final class Backup {
    /** Copies made at most before giving up. */
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
        requireEmpty(vfs, dest);
        LacunaException last = null;
        for (int copy = 1; copy <= MAX_COPIES; copy++) {
            try {
                LsmStore.checkpointForeign(vfs, dir, dest);
                try (ItemEngine opened = ItemEngine.open(dest, options)) {
                    opened.listTables(); // opened: every check passed, and the copy recovered
                }
                return new BackupReport(copy);
            } catch (IncompatibleStoreException e) {
                empty(vfs, dest, e);
                throw e; // not a database, or a newer one: another copy would not change that
            } catch (LacunaException e) {
                last = e;
                LOG.log(System.Logger.Level.INFO, "backup of " + dir + ": copy " + copy + " failed (a process writing"
                        + " the database may have changed files under it): " + e.getMessage() + "; copying again");
                empty(vfs, dest, e);
            } catch (RuntimeException | Error e) {
                empty(vfs, dest, e);
                throw e;
            }
        }
        throw new StorageIOException("cannot back up " + dir + ": " + MAX_COPIES + " copies in a row failed (a process"
                + " writing the database changing files under each, or damage in the store); the last: "
                + last.getMessage(), last);
    }

    /** Refuses a {@code dest} that holds anything but an empty log directory (what a failed backup leaves). */
    private static void requireEmpty(Vfs vfs, Path dest) {
        try {
            if (!vfs.exists(dest)) {
                return;
            }
            List<String> names = vfs.list(dest);
            boolean emptied = names.equals(List.of(LsmStore.WAL_DIR)) && vfs.list(dest.resolve(LsmStore.WAL_DIR)).isEmpty();
            if (!names.isEmpty() && !emptied) {
                throw new StorageIOException("cannot back up into " + dest + ": it exists and is not empty (a backup"
                        + " goes into a new or empty directory)", (Throwable) null);
            }
        } catch (IOException e) {
            throw new StorageIOException("cannot back up into " + dest + ": " + e.getMessage(), e);
        }
    }

    /**
     * Deletes what a failed copy left in {@code dest} — its files, and the files of its log directory, which
     * stays (a {@link Vfs} deletes files only) — so that nothing there opens as a database; a failure to is
     * added to {@code cause}.
     */
    private static void empty(Vfs vfs, Path dest, Throwable cause) {
        try {
            if (!vfs.exists(dest)) {
                return;
            }
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
        } catch (IOException | RuntimeException e) {
            cause.addSuppressed(new StorageIOException("emptying " + dest + " after a failed copy failed too: "
                    + e.getMessage(), e));
            if (!(cause instanceof LacunaException) || cause instanceof IncompatibleStoreException) {
                return;
            }
            throw new StorageIOException("cannot back up: emptying " + dest + " after a failed copy failed: "
                    + e.getMessage(), e);
        }
    }
}
