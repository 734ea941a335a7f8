/**
 * The write-ahead log: a directory of segment files holding records numbered 1, 2, 3, … (LSNs) with no gaps.
 * {@link Wal} appends with leader-based group commit (concurrent {@code SYNC} appenders share one fsync;
 * {@link BatchedSyncer} fsyncs batched records by their deadline), validates the directory on open
 * ({@link WalRecovery}: by default a torn tail of the last segment is cut off; other damage is an error), and
 * deletes a segment only once the owner has flushed its records and every registered consumer has
 * checkpointed past it. A {@link WalReader} follows the live log from any LSN, yielding {@link WalRecord}s.
 *
 * <p>The byte layout (LevelDB's FULL/FIRST/MIDDLE/LAST fragments in fixed blocks, CRC32C, the segment number
 * in every fragment) is in {@link WalFormat} and FORMAT.md beside it. Records are opaque bytes: the log must
 * not know keys, items or SSTables, and uses only {@code dev.lacuna.vfs} and {@code dev.lacuna.storage}.
 *
 * <p>Internal: not part of the API, exported only to {@code dev.lacuna.core}, whose LSM engine owns the
 * store's log and hands readers over it to the log's consumers (index updaters). The benchmarks, on the class
 * path, also drive {@code Wal} directly.
 */
package dev.lacuna.wal;
