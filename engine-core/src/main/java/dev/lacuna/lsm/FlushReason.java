package dev.lacuna.lsm;

/**
 * Why a memtable was frozen for its flush (RocksDB's flush reason), recorded in the {@code dev.lacuna.Flush} event:
 * which trigger pushes a partition's entries into files tells why a queue's reads step over dead entries, or why
 * a partition flushes more often than its memtable size accounts for.
 */
enum FlushReason {
    /** The active memtable reached {@code memtableBytes}. */
    MEMTABLE_FULL,
    /** The active memtable holds {@code deadEntryTrigger} puts deleted again in it. */
    DEAD_PAIRS,
    /** A scan stepped over {@code deadEntryTrigger} dead entries in the partition. */
    SCAN_DEAD_ENTRIES,
    /** The memtables together passed {@code memoryBudget}: the largest active one was frozen. */
    MEMORY_BUDGET,
    /** The log passed {@code maxTotalLogSize} and the memtable held its oldest records. */
    LOG_SIZE,
    /** An explicit flush of the store. */
    EXPLICIT,
    /** A flush of the keyspace was asked for: a global index's checkpoint, the end of its backfill. */
    KEYSPACE_FLUSH,
    /** The keyspace was dropped. */
    KEYSPACE_DROPPED,
    /** Memtables found full when the store opened. */
    OPEN
}
