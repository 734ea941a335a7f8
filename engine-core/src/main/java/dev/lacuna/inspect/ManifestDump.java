package dev.lacuna.inspect;

import dev.lacuna.engine.TableCodec;
import dev.lacuna.manifest.FileMeta;
import dev.lacuna.manifest.Manifest;
import dev.lacuna.manifest.VersionEdit;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.NioVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One manifest file ({@code ldb manifest_dump}): every version edit, read as an open reads them (checksums, a torn
 * last edit ignored, damage before the end refused), each field with its tag as the manifest's FORMAT.md numbers
 * them. Damage is a {@link CorruptionException} naming the file and offset.
 */
public final class ManifestDump {
    /**
     * One edit.
     *
     * @param offset where its record starts in the file
     * @param fields its fields, each {@code [tag] name: value}, in tag order
     */
    public record Edit(long offset, List<String> fields) {
    }

    /**
     * The manifest.
     *
     * @param edits  its edits, in order (the first is the snapshot)
     * @param tornAt the offset of a last edit ignored as cut short by a crash, or -1
     */
    public record Contents(List<Edit> edits, long tornAt) {
    }

    private ManifestDump() {
    }

    /**
     * Reads manifest file {@code path}.
     *
     * @throws CorruptionException naming the file and offset if it is damaged
     * @throws StorageIOException  if it cannot be read
     */
    public static Contents read(Path path) {
        Manifest.Contents read;
        try (VfsFile file = new NioVfs().openReadOnly(path)) {
            read = Manifest.read(file);
        } catch (IOException e) {
            throw new StorageIOException("cannot read " + path + ": " + e.getMessage(), e);
        }
        List<Edit> edits = new ArrayList<>();
        for (int i = 0; i < read.edits().size(); i++) {
            edits.add(new Edit(read.offsets().get(i), fields(read.edits().get(i), path, read.offsets().get(i))));
        }
        return new Contents(List.copyOf(edits), read.tornAt());
    }

    private static List<String> fields(VersionEdit e, Path path, long offset) {
        List<String> f = new ArrayList<>();
        if (e.nextFileNumber() != null) {
            f.add("[1] next file number: " + e.nextFileNumber());
        }
        if (e.lastSequence() != null) {
            f.add("[2] last sequence: " + e.lastSequence());
        }
        if (e.walStartLsn() != null) {
            f.add("[3] log start: LSN " + e.walStartLsn());
        }
        for (Map.Entry<String, Long> c : e.checkpoints().entrySet()) {
            f.add("[4] consumer checkpoint: " + c.getKey() + " at LSN " + c.getValue());
        }
        for (String name : e.removedCheckpoints()) {
            f.add("[5] remove consumer checkpoint: " + name);
        }
        if (e.treeCount() != null) {
            f.add("[6] tree count: " + e.treeCount());
        }
        for (Map.Entry<Integer, Long> flushed : e.flushedLsns().entrySet()) {
            f.add("[7] flushed: tree " + flushed.getKey() + " through LSN " + flushed.getValue());
        }
        for (VersionEdit.AddedFile a : e.addedFiles()) {
            FileMeta m = a.file();
            f.add("[8] add file: tree " + a.tree() + " level " + a.level() + " " + tableName(m.number()) + ", "
                    + m.size() + " bytes, " + m.entries() + " entries, " + m.deletions() + " deletions, sequence "
                    + m.minSequence() + ".." + m.maxSequence() + ", keys " + SstableDump.internalKey(m.smallest())
                    + " .. " + SstableDump.internalKey(m.largest()));
        }
        for (VersionEdit.DeletedFile d : e.deletedFiles()) {
            f.add("[9] delete file: tree " + d.tree() + " level " + d.level() + " " + tableName(d.number()));
        }
        for (VersionEdit.Keyspace k : e.keyspaces()) {
            String what;
            try {
                what = TableCodec.describe(k.id(), k.descriptor());
            } catch (CorruptionException ex) {
                what = "descriptor of " + k.descriptor().length + " bytes that does not decode (" + ex.detail() + ")";
            }
            f.add("[10] keyspace " + k.id() + ": trees " + k.firstTree() + ".." + (k.firstTree() + k.partitions() - 1)
                    + ", " + what);
        }
        for (Integer id : e.droppedKeyspaces()) {
            f.add("[11] drop keyspace " + id);
        }
        if (e.nextIds() != null) {
            f.add("[12] next ids: keyspace " + e.nextIds()[0] + ", tree " + e.nextIds()[1]);
        }
        if (e.logDurable() != null) {
            f.add("[13] log durable through LSN " + e.logDurable());
        }
        if (e.storeFormat() != null) {
            f.add("[14] store: directory format " + e.storeFormat() + ", owner " + e.owner());
        }
        return List.copyOf(f);
    }

    private static String tableName(long number) {
        return String.format("%06d.sst", number);
    }
}
