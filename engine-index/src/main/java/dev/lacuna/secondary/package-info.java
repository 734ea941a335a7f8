/**
 * The index kinds of {@code engine-index}: {@link GlobalIndexKind} and {@link LocalIndexKind}, declared as
 * providers of {@code IndexKind} (in {@code module-info} and, for the class path, in
 * {@code META-INF/services}) so that the database finds them with {@code ServiceLoader}. A global index is a
 * partitioned keyspace of its own, kept eventually consistent by one {@link GlobalIndexUpdater} per index: a
 * background thread that reads the log from the index's checkpoint, applies idempotent index puts and deletes
 * at each record's LSN, flushes the index before it moves the checkpoint, and first backfills from a snapshot
 * an index added to a table that holds items. A local index (the table's partition key, another sort key) is
 * written in the item's own log record, so it never lags. {@link IndexEntries} makes an item's entry: indexes
 * are sparse (an item lacking an index key attribute is not in the index) and overloaded (what key values
 * mean is the application's business).
 *
 * <p>Not exported (module {@code dev.lacuna.secondary} exports nothing): users never name these classes, and
 * the two kinds are public only because {@code ServiceLoader} instantiates them. It implements the SPI of
 * {@code dev.lacuna.index} and must not know the item engine, the LSM or the log format: all it reads and
 * writes goes through {@code IndexContext}.
 */
package dev.lacuna.secondary;
