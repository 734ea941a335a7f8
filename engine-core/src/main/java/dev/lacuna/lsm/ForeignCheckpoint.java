package dev.lacuna.lsm;

import dev.lacuna.manifest.Manifest;
import dev.lacuna.manifest.VersionEdit;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import dev.lacuna.wal.Wal;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * A copy of a store that another process has open, made from its files alone, as a crash at one instant
 * would leave them ({@link Checkpoint} is the copy an open store makes of itself). The other process goes on
 * writing, flushing, compacting and trimming its log meanwhile, and nothing here writes to its directory:
 *
 * <ol>
 *   <li>The manifest is read (as an open reads it: a last edit being appended reads as a torn tail) and its
 *       state taken as one edit, with the first LSN the log must hold for it.</li>
 *   <li>The tables the state names are linked: tables never change once written, and a link keeps the data
 *       even if the other process deletes its name after a compaction. Every table there is linked before the
 *       manifest is read, so that one a compaction deletes meanwhile is kept; one that was still being written
 *       then is linked again if its copy is shorter than the manifest says.</li>
 *   <li>The log is copied after that ({@link Wal#copyForeign}): it holds at least every record that was durable
 *       when the manifest was read, the end the manifest records.</li>
 *   <li>A new manifest with the state, and {@code CURRENT} last.</li>
 * </ol>
 *
 * What the other process did between the steps can make the copy inconsistent — a table compacted away and
 * deleted before it was linked, log segments trimmed after a flush before they were copied — and the copy
 * then lacks a file its manifest needs. That is found, not guessed: a table missing here fails the copy, and
 * the caller opens the copy, whose checks refuse a log that no longer holds what recovery needs; either way
 * the caller empties {@code dest} and copies again.
 */
final class ForeignCheckpoint {
    /** Times the directory is listed and the manifest read, at most, until every table it names is linked. */
    private static final int ROUNDS = 20;

    private ForeignCheckpoint() {
    }

    /**
     * Copies the store in {@code dir} into {@code dest} (new or empty).
     *
     * @throws StorageIOException  if a file the state names is gone (copy again), or the file system fails
     * @throws CorruptionException if the manifest cannot be read (a rewrite under way reads so too: copy again)
     */
    static void copy(Vfs vfs, Path dir, Path dest) {
        try {
            if (!emptiedBefore(vfs, dest)) {
                Checkpoint.prepare(vfs, dest);
            }
            // Every table there now is linked before the manifest is read: a table the manifest names and that
            // a compaction deletes meanwhile is then already linked. Only those made between the listing and the
            // read are not, and only those can be gone when they are linked: then the directory is listed and
            // the manifest read again, which links the few made meanwhile at once and names fewer gone ones.
            Map<String, Long> linked = new HashMap<>(); // name -> bytes linked
            VersionEdit state = null;
            for (int round = 1; state == null; round++) {
                linkAll(vfs, dir, dest, linked);
                VersionEdit read = readState(vfs, dir);
                if (linkNamed(vfs, dir, dest, read, linked) || round == ROUNDS) {
                    state = read; // after the last round, a table still gone fails the open of the copy
                }
            }
            Set<String> named = new HashSet<>();
            for (VersionEdit.AddedFile added : state.addedFiles()) {
                named.add(SstableCache.fileName(added.file().number()));
            }
            for (String name : linked.keySet()) {
                if (named.contains(name)) {
                    force(vfs, dest.resolve(name));
                } else {
                    vfs.delete(dest.resolve(name)); // made obsolete before the manifest was read
                }
            }
            vfs.syncDirectory(dest);
            Path wal = dest.resolve(Recovery.WAL_DIR);
            vfs.mkdirs(wal); // there already if emptied before
            Wal.copyForeign(vfs, dir.resolve(Recovery.WAL_DIR), wal);
            // A keyspace made after the manifest was read (a table created) is not in the state, and the log
            // copied since may hold its writes, which the copy's recovery would drop as a dropped keyspace's while
            // keeping later writes: not a prefix. A keyspace is in the manifest before any write of it is logged,
            // so a manifest read now names every keyspace the copied log writes to.
            VersionEdit after = readState(vfs, dir);
            if (after.nextIds()[0] != state.nextIds()[0]) {
                throw new StorageIOException("cannot back up " + dir + ": a table or index was created during the copy"
                        + " (copy again)", (Throwable) null);
            }
            // The log was copied after the state was read: it may hold records of the current format written
            // after the other process marked its store so. The mark is durable before the first such record, so
            // the manifest read after the copy has a mark that covers every record copied.
            if (after.owner() != null && after.storeFormat() != null) {
                state.store(after.storeFormat(), after.owner());
            }
            long manifestNumber = state.nextFileNumber();
            state.nextFileNumber(manifestNumber + 1);
            Manifest.create(vfs, dest, manifestNumber, state).close(); // writes CURRENT, syncs dest
            Path parent = dest.toAbsolutePath().getParent();
            if (parent != null) {
                vfs.syncDirectory(parent);
            }
        } catch (IOException e) {
            throw new StorageIOException("cannot back up " + dir + " into " + dest + ": " + e, e);
        }
    }

    /** Links every table file in {@code dir} not linked yet; a file gone meanwhile is left out. */
    private static void linkAll(Vfs vfs, Path dir, Path dest, Map<String, Long> linked) throws IOException {
        for (String name : vfs.list(dir)) {
            if (SstableCache.isTableFile(name) && !linked.containsKey(name)) {
                try {
                    vfs.link(dir.resolve(name), dest.resolve(name));
                    linked.put(name, vfs.size(dest.resolve(name)));
                } catch (NoSuchFileException gone) {
                    // compacted away after the listing: the manifest read next no longer names it
                }
            }
        }
    }

    /**
     * Links the tables {@code state} names that are not linked whole yet; false if one was gone. A table
     * listed while it was being written, and linked by copying (another device, or a file system without
     * links), holds only what was written then: the manifest says how long it is.
     */
    private static boolean linkNamed(Vfs vfs, Path dir, Path dest, VersionEdit state, Map<String, Long> linked)
            throws IOException {
        boolean all = true;
        for (VersionEdit.AddedFile added : state.addedFiles()) {
            String name = SstableCache.fileName(added.file().number());
            Long bytes = linked.get(name);
            if (bytes != null && bytes == added.file().size()) {
                continue;
            }
            if (bytes != null) {
                vfs.delete(dest.resolve(name));
                linked.remove(name);
            }
            try {
                vfs.link(dir.resolve(name), dest.resolve(name));
                linked.put(name, vfs.size(dest.resolve(name)));
            } catch (NoSuchFileException gone) {
                all = false;
            }
        }
        return all;
    }

    /**
     * The state the manifest in {@code dir} holds now, as one edit. Read-only: {@link VersionSet#open} applies
     * the edits in memory and writes nothing until {@code startManifest}, never called here; no version is
     * released, so nothing is reported obsolete and nothing deleted.
     */
    private static VersionEdit readState(Vfs vfs, Path dir) throws IOException {
        Manifest.Contents read = Manifest.readCurrent(vfs, dir);
        if (read == null) {
            throw new StorageIOException("cannot back up " + dir + ": it holds no store (no CURRENT)", (Throwable) null);
        }
        Integer trees = read.edits().get(0).treeCount();
        if (trees == null) {
            throw new CorruptionException(read.file(), read.offsets().get(0), "manifest snapshot has no tree count");
        }
        VersionSet set = VersionSet.open(vfs, dir, trees, Long.MAX_VALUE, obsolete -> { });
        try {
            return set.pin(from -> { }).state();
        } finally {
            set.close();
        }
    }

    /** Whether {@code dest} holds only an empty log directory: a copy made before and emptied to be made again. */
    private static boolean emptiedBefore(Vfs vfs, Path dest) throws IOException {
        Path wal = dest.resolve(Recovery.WAL_DIR);
        return vfs.exists(dest) && vfs.list(dest).equals(java.util.List.of(Recovery.WAL_DIR)) && vfs.list(wal).isEmpty();
    }

    private static void force(Vfs vfs, Path file) throws IOException {
        try (VfsFile f = vfs.open(file)) {
            f.force();
        }
    }
}
