package dev.lacuna.kv;

/**
 * What a keyspace's files and memtables hold, from the counts they keep (no data is read): the base of an estimate
 * of its live keys and their bytes. Each tree is read on its own, so the parts may be a moment apart.
 *
 * @param fileEntries       entries in its SSTables, deletions and superseded versions included
 * @param fileDeletions     deletion entries among them
 * @param fileBytes         bytes of its SSTables (compressed, with their indexes and filters)
 * @param memtableEntries   entries in its memtables, active and frozen, deletions included
 * @param memtableDeletions deletion entries among them
 * @param memtableBytes     approximate bytes its memtables hold (with per-entry overhead)
 */
public record KeyspaceStats(long fileEntries, long fileDeletions, long fileBytes, long memtableEntries,
                            long memtableDeletions, long memtableBytes) {
    /**
     * An estimate of the live keys: entries less twice the deletions (a deletion is an entry and, most often,
     * hides one older version), as RocksDB estimates its key count; never below 0. Versions a compaction has not
     * yet merged (an overwritten key) count twice until it does; deletions of keys that never existed count
     * against others.
     */
    public long estimatedLiveEntries() {
        long entries = fileEntries + memtableEntries;
        return Math.max(0, entries - 2 * (fileDeletions + memtableDeletions));
    }

    /** An estimate of the live keys' bytes: {@link #estimatedLiveEntries()} times the mean bytes of an entry. */
    public long estimatedLiveBytes() {
        long entries = fileEntries + memtableEntries;
        return entries == 0 ? 0 : Math.round((double) (fileBytes + memtableBytes) * estimatedLiveEntries() / entries);
    }
}
