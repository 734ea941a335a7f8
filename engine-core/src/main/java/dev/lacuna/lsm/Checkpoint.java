package dev.lacuna.lsm;

import dev.lacuna.manifest.Manifest;
import dev.lacuna.manifest.VersionEdit;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * A checkpoint: a consistent copy of an open store in another directory, taken while writes go on, that opens
 * as a store of its own (RocksDB's {@code Checkpoint}). What a copy needs is what a crash at one instant would
 * leave, so it is built the same way:
 *
 * <ol>
 *   <li>Under the version set's lock, the state (tables, flushed LSNs, log start, keyspaces, log consumers'
 *       checkpoints) is taken as one edit and every tree's version is referenced, so its tables are not
 *       deleted; a log checkpoint of our own keeps the log from where that state needs it.</li>
 *   <li>The log is made durable through its last record, so every write acknowledged before the call is in
 *       it, whatever its durability; tables hold only durable writes, so the log copied next covers them.</li>
 *   <li>Tables are immutable: linked ({@link Vfs#link}, a hard link where possible). The log is copied by
 *       {@link dev.lacuna.wal.Wal#copyTo} up to a record boundary at or past that durable point.</li>
 *   <li>Last, a new manifest holding the state and {@code CURRENT} naming it: a checkpoint cut short has no
 *       {@code CURRENT} and is refused by an open (it holds tables), never taken for a complete one.</li>
 * </ol>
 *
 * Every file is forced and every directory synced. Opening the copy replays its log past the state's tables,
 * and log consumers (global indexes) catch up from their checkpoints, as after a crash; writes after the log
 * point are not in it, so the copy holds a prefix of the store's writes. Derived keyspaces' memtables are not
 * copied: they are rebuilt from the log, as after a crash.
 */
final class Checkpoint {
    private Checkpoint() {
    }

    /**
     * Copies the store of {@code db} into {@code dest}, which must not exist or be an empty directory.
     *
     * @return the last LSN the copy holds: every write up to it, none after
     */
    static long take(Db db, Path dest) {
        db.checkOpen();
        Vfs vfs = db.vfs;
        prepare(vfs, dest);
        // Our own log checkpoint, named after the thread: one thread takes one checkpoint at a time.
        String pinName = "checkpoint in thread " + Thread.currentThread().getId();
        for (int attempt = 1; ; attempt++) {
            VersionSet.Pinned pinned = db.versions.pin(from -> db.wal.setCheckpoint(pinName, from - 1));
            try {
                Path wal = mkdir(vfs, dest.resolve(Recovery.WAL_DIR));
                db.wal.sync();
                long last = db.wal.copyTo(wal, pinned.logNeededFrom());
                // A keyspace made after the state was taken (a table created) is not in it, and the log copied
                // since may hold its writes, which the copy's recovery would drop as a dropped keyspace's while
                // keeping later writes: not a prefix. Keyspaces are rare changes: copy the log again.
                if (db.versions.nextKeyspaceId() != pinned.state().nextIds()[0]) {
                    if (attempt == MAX_ATTEMPTS) {
                        throw new StorageIOException("cannot checkpoint " + db.dir + ": tables or indexes were created"
                                + " during each of " + MAX_ATTEMPTS + " attempts; try again", (Throwable) null);
                    }
                    for (String name : vfs.list(wal)) {
                        vfs.delete(wal.resolve(name));
                    }
                    continue;
                }
                return finish(db, dest, pinned, last);
            } catch (IOException e) {
                throw new StorageIOException("cannot checkpoint " + db.dir + " into " + dest + " (what was copied has"
                        + " no CURRENT and does not open as a store; delete it): " + e.getMessage(), e);
            } finally {
                db.wal.removeCheckpoint(pinName);
                unref(pinned.versions());
            }
        }
    }

    /** Times the log is copied at most while keyspaces are made under the checkpoint. */
    private static final int MAX_ATTEMPTS = 5;

    /** Links the state's tables and writes the copy's manifest and {@code CURRENT}. */
    private static long finish(Db db, Path dest, VersionSet.Pinned pinned, long last) throws IOException {
        Vfs vfs = db.vfs;
        VersionEdit state = pinned.state();
        // The state was taken before the log was copied: a format 1 store's first write since may be in the
        // copy, a version 2 record its mark must cover.
        db.versions.markAsNow(state);
        for (VersionEdit.AddedFile added : state.addedFiles()) {
            String name = SstableCache.fileName(added.file().number());
            vfs.link(db.dir.resolve(name), dest.resolve(name));
            force(vfs, dest.resolve(name));
        }
        vfs.syncDirectory(dest);
        long manifestNumber = state.nextFileNumber();
        state.nextFileNumber(manifestNumber + 1);
        Manifest.create(vfs, dest, manifestNumber, state).close(); // writes CURRENT, syncs dest
        Path parent = dest.toAbsolutePath().getParent();
        if (parent != null) {
            vfs.syncDirectory(parent); // dest's own entry
        }
        return last;
    }

    /** Refuses a {@code dest} that holds anything (or is a file), then creates it. */
    static void prepare(Vfs vfs, Path dest) {
        try {
            if (vfs.exists(dest) && !vfs.list(dest).isEmpty()) {
                throw new StorageIOException("cannot checkpoint into " + dest + ": it exists and is not empty"
                        + " (a checkpoint goes into a new or empty directory)", (Throwable) null);
            }
            vfs.mkdirs(dest);
        } catch (java.nio.file.NotDirectoryException | java.nio.file.FileAlreadyExistsException e) {
            throw new StorageIOException("cannot checkpoint into " + dest + ": it is a file, not a directory", e);
        } catch (IOException e) {
            throw new StorageIOException("cannot checkpoint into " + dest + ": " + e.getMessage(), e);
        }
    }

    private static Path mkdir(Vfs vfs, Path dir) throws IOException {
        vfs.mkdirs(dir);
        return dir;
    }

    private static void force(Vfs vfs, Path file) throws IOException {
        try (VfsFile f = vfs.open(file)) {
            f.force();
        }
    }

    private static void unref(List<Version> versions) {
        for (Version v : versions) {
            v.unref();
        }
    }
}
