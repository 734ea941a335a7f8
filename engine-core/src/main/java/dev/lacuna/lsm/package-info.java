/**
 * The LSM engine: {@link LsmStore} and the classes it is split into by job. {@link Db} holds the shared
 * state; {@link WritePath} logs each batch as one record and inserts it into its partitions'
 * {@link Memtable}s under the commit lock; {@link ReadPath} answers point reads and builds scans (a
 * {@link MergingIterator} over memtables and levels, a {@link LevelIterator} per level, and the
 * {@link UserIterator} on top, which hides and counts dead entries); {@link Background} owns the store's
 * named threads and runs flushes; {@link Compactor} picks and runs leveled and deletion-triggered
 * compactions, with {@link CompactionStream} deciding what each keeps; {@link VersionSet} holds each tree's
 * {@link Version} and makes changes durable through the manifest. A tree is one hash partition of one
 * {@link Keyspace}; all trees share one log, memory budget, block cache and thread pool.
 * {@link Visibility} decides when logged writes become visible (a {@code SYNC} one once its fsync returned).
 * {@link Recovery} opens the store and replays the log (layouts in FORMAT.md beside it), after
 * {@link OpenCheck} has checked the directory whole; {@link Keyspaces} creates, updates, flushes and drops
 * keyspaces. {@link Checkpoint} copies an open store into another directory (a backup) and {@link Verifier}
 * reads everything it holds back against its checksums.
 *
 * <p>Internal: not exported. {@code dev.lacuna.kv.KvStore} is its public face; the item engine uses
 * {@code LsmStore} whole (keyspaces, {@link KvLogReader}s, checkpoints, unlogged writes of derived
 * keyspaces). It builds on {@code base}, {@code sstable}, {@code manifest} and {@code wal}, and must not know
 * items, tables or indexes: keys and values are bytes.
 */
package dev.lacuna.lsm;
