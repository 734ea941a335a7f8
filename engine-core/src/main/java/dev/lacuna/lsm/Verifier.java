package dev.lacuna.lsm;

import dev.lacuna.kv.CheckReport;
import dev.lacuna.manifest.FileMeta;
import dev.lacuna.manifest.VersionEdit;
import dev.lacuna.sstable.BlockCache;
import dev.lacuna.sstable.SstableReader;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.VfsFile;
import dev.lacuna.wal.WalReader;
import dev.lacuna.wal.WalRecord;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Reads everything an open store has stored and checks it, as RocksDB's {@code VerifyChecksum} does: every
 * table the current state names, whole (footer, index, filter, properties and every data block against its
 * checksum, the entries in order) and against what the manifest says of it (size, entries, key range); the
 * current manifest's edits; the log's records from where recovery would replay them. Tables are read through a reader of their own with no cache,
 * so what is checked is what is on disk now, and the state is pinned meanwhile so that no table is deleted
 * under the check. Runs beside reads and writes.
 */
final class Verifier {
    private Verifier() {
    }

    /**
     * Checks the store of {@code db}.
     *
     * @throws CorruptionException at the first damage found, naming the file and the offset
     */
    static CheckReport verify(Db db) {
        db.checkOpen();
        String pinName = "check in thread " + Thread.currentThread().getId();
        VersionSet.Pinned pinned = db.versions.pin(from -> db.wal.setCheckpoint(pinName, from - 1));
        try {
            long tables = 0;
            long entries = 0;
            long bytes = 0;
            for (VersionEdit.AddedFile added : pinned.state().addedFiles()) {
                FileMeta meta = added.file();
                entries += verifyTable(db, meta);
                bytes += meta.size();
                tables++;
            }
            long edits = db.versions.verifyManifest();
            // The records recovery would replay (the pin keeps them), up to the end as of now: the log grows meanwhile.
            long last = db.wal.lastLsn();
            long from = Math.min(Math.max(pinned.logNeededFrom(), db.wal.firstLsn()), last + 1);
            long records = 0;
            try (WalReader log = db.wal.reader(from)) {
                for (WalRecord r = log.next(); r != null && r.lsn() <= last; r = log.next()) {
                    records++;
                }
            }
            return new CheckReport(tables, entries, bytes, edits, records);
        } catch (IOException e) {
            throw new StorageIOException("cannot check store " + db.dir + ": " + e.getMessage(), e);
        } finally {
            db.wal.removeCheckpoint(pinName);
            for (Version v : pinned.versions()) {
                v.unref();
            }
        }
    }

    /** Reads table {@code meta} whole and compares it with the manifest's record of it; returns its entries. */
    private static long verifyTable(Db db, FileMeta meta) throws IOException {
        Path path = db.dir.resolve(SstableCache.fileName(meta.number()));
        String name = path.toString();
        long size;
        try {
            size = db.vfs.size(path);
        } catch (NoSuchFileException e) {
            throw new CorruptionException(name, 0, "the manifest names this table but it is missing");
        }
        if (size != meta.size()) {
            throw new CorruptionException(name, Math.min(size, meta.size()), "the table has " + size
                    + " bytes, the manifest says " + meta.size());
        }
        VfsFile file = db.vfs.openReadOnly(path);
        SstableReader reader;
        try {
            reader = SstableReader.open(file, meta.number(), new BlockCache(0), db.tables.lz4());
        } catch (RuntimeException e) {
            file.close();
            throw e;
        }
        try (reader) {
            long entries = reader.verify();
            if (entries != meta.entries()
                    || !Arrays.equals(reader.properties().smallestKey(), meta.smallest())
                    || !Arrays.equals(reader.properties().largestKey(), meta.largest())) {
                throw new CorruptionException(name, 0, "the table holds " + entries + " entries and its own key"
                        + " range, the manifest says " + meta.entries() + " entries and another range");
            }
            return entries;
        }
    }
}
