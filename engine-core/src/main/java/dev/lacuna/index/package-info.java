/**
 * The service-provider interface for kinds of secondary index. A kind is an {@link IndexKind}, found with
 * {@code ServiceLoader} ({@code engine-index} provides the global and local kinds), so a third party can add
 * one without touching core. The database opens one {@link IndexMaintainer} per index of each table and hands
 * it an {@link IndexContext}: what it needs and nothing more — its index and table specs, the table's changes
 * read from the log (a {@link ChangeLog} of {@link ChangeRecord}s, each {@link ItemChange} an item before and
 * after), entry keys, writes of its own entries at an LSN, a durable checkpoint, a flush of its entries and a
 * scan of the table at a snapshot.
 *
 * <p>A maintainer is synchronous (the database writes its entries in the base write's own log record, as for
 * an LSI) or asynchronous (it reads the log from its checkpoint and applies them itself, as a GSI's updater
 * does). {@link IndexDiff} turns an item's entries before and after a write into the writes between them;
 * {@link IndexEntry} and {@link BackfillProgress} are values exchanged. Public SPI, exported by
 * {@code dev.lacuna.core}. It must not know the item engine, the LSM or any concrete kind; it speaks only the
 * API types of {@code dev.lacuna} and {@code dev.lacuna.kv}.
 */
package dev.lacuna.index;
