/**
 * Lacuna's item API: DynamoDB's data model and operations over an embedded, persistent store. Start at
 * {@link Database} (open a directory, manage tables, read and write items) or {@link Table} (one table's
 * operations). Data is {@link Item}, {@link Key} and the sealed {@link AttributeValue}; every operation takes
 * a request ({@link PutItem}, {@link UpdateItem}, {@link DeleteItem}, {@link GetItem}, {@link Query},
 * {@link Scan}, batches and transactions); {@link TableSpec} and {@link IndexSpec} describe tables. Requests
 * are builders for one thread; values, specs and results are immutable; {@code Database} and {@code Table}
 * are thread-safe.
 *
 * <p>Public API (exported by {@code dev.lacuna.core}), and only API, as LevelDB's {@code include/leveldb}:
 * {@code Database} is a facade that hands each request to the item engine ({@code dev.lacuna.engine}), so
 * this package must not know memtables, SSTables, the log or any index kind; below it, it sees only the
 * settings and counters of {@code dev.lacuna.kv} and the file system. Errors are the DynamoDB-named
 * exceptions here ({@link ValidationException}, {@link ConditionalCheckFailedException},
 * {@link TransactionCanceledException}, ...); their root {@code LacunaException}, the storage errors and
 * {@code Durability} live in {@code dev.lacuna.storage}.
 */
package dev.lacuna;
