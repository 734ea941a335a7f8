/**
 * The types every layer of Lacuna shares, from the log up to the item API: the root exception
 * {@link LacunaException} and the storage errors under it ({@link CorruptionException}, which names the file
 * and offset, {@link StorageIOException} and {@link DatabaseClosedException}), the write {@link Durability},
 * and the log's settings and counters ({@link WalOptions}, {@link RecoveryMode}, {@link WalStats}).
 *
 * <p>Public API, exported by module {@code dev.lacuna.wal}: a user of {@code Database} or {@code KvStore}
 * meets these types in signatures and catch clauses. They live in {@code engine-wal}, the bottom module, so
 * that the log, the storage engine and the item API throw and accept the same types without one package being
 * split across two jars. The package depends on nothing else of Lacuna and must stay that way: it knows no
 * file system, no log format, no keys and no items. Everything here is an immutable value or an exception;
 * nothing holds a resource.
 */
package dev.lacuna.storage;
