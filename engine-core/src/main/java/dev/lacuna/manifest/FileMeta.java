package dev.lacuna.manifest;

import java.util.Objects;

/**
 * What the manifest records about one SSTable. Immutable.
 *
 * @param number              file number (the file is {@code NNNNNN.sst})
 * @param size                bytes
 * @param smallest            smallest internal key
 * @param largest             largest internal key
 * @param minSequence         smallest sequence number of an entry
 * @param maxSequence         largest sequence number of an entry
 * @param entries             entries, deletions included
 * @param deletions           deletion entries (both kinds)
 * @param oldestTombstoneTime epoch millis when the oldest deletion in the file was written to a table,
 *                            {@link Long#MAX_VALUE} if it holds none
 */
public record FileMeta(long number, long size, byte[] smallest, byte[] largest, long minSequence, long maxSequence,
                       long entries, long deletions, long oldestTombstoneTime) {
    /** Checks the arguments. */
    public FileMeta {
        Objects.requireNonNull(smallest, "smallest");
        Objects.requireNonNull(largest, "largest");
        if (number <= 0 || size < 0 || entries < 0 || deletions < 0 || deletions > entries) {
            throw new IllegalArgumentException("bad file metadata for file " + number);
        }
    }

    /** Share of entries that are deletions. */
    public double deletionDensity() {
        return entries == 0 ? 0 : (double) deletions / entries;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FileMeta f && f.number == number;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(number);
    }

    @Override
    public String toString() {
        return "FileMeta[" + number + ", " + size + " bytes, " + entries + " entries, " + deletions + " deletions]";
    }
}
