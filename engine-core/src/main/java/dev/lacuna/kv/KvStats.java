package dev.lacuna.kv;

import dev.lacuna.storage.WalStats;

/**
 * Counters and shape of a {@link KvStore}, summed over its partitions.
 *
 * @param filesPerLevel          SSTables per level
 * @param bytesPerLevel          bytes per level
 * @param deletionsInFiles       deletion entries stored in SSTables (the tombstone backlog)
 * @param memtableBytes          bytes in memtables, active and frozen
 * @param flushes                memtable flushes
 * @param scanTriggeredFlushes   memtables frozen because a scan stepped over many dead entries
 * @param compactions            compactions that rewrote files
 * @param trivialMoves           files moved down a level without rewriting
 * @param flushBytesWritten      bytes of SSTables written by flushes
 * @param compactionBytesRead    bytes of SSTables read by compactions
 * @param compactionBytesWritten bytes of SSTables written by compactions
 * @param userBytesWritten       key and value bytes written by users
 * @param droppedEntries         entries dropped by flushes and compactions (superseded, deleted, annihilated)
 * @param droppedDeletions       deletions among them
 * @param stallMillis            time writers spent waiting for background work
 * @param deletedFiles           obsolete SSTables deleted
 * @param blockCacheHits         block cache hits
 * @param blockCacheMisses       block cache misses
 * @param liveSnapshots          open snapshots
 * @param wal                    write-ahead log counters
 */
public record KvStats(long[] filesPerLevel, long[] bytesPerLevel, long deletionsInFiles, long memtableBytes,
                      long flushes, long scanTriggeredFlushes, long compactions, long trivialMoves, long flushBytesWritten,
                      long compactionBytesRead, long compactionBytesWritten, long userBytesWritten,
                      long droppedEntries, long droppedDeletions, long stallMillis, long deletedFiles,
                      long blockCacheHits, long blockCacheMisses, int liveSnapshots, WalStats wal) {
    /** Bytes written to the log and to SSTables per byte the user wrote; 0 before any write. */
    public double writeAmplification() {
        return userBytesWritten == 0 ? 0
                : (double) (wal.appendedBytes() + flushBytesWritten + compactionBytesWritten) / userBytesWritten;
    }

    /** SSTables in all levels. */
    public long files() {
        long n = 0;
        for (long f : filesPerLevel) {
            n += f;
        }
        return n;
    }
}
