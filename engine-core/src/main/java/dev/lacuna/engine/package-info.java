/**
 * The item engine behind {@code Database}: DynamoDB's tables and operations on the LSM store.
 * {@link ItemEngine} owns one {@code LsmStore} and the {@link Catalog}: each table and each index is a
 * keyspace, and a table's keyspace descriptor in the manifest holds its spec and its indexes' keyspaces
 * ({@link TableCodec}; layout in FORMAT.md beside it). Each kind of request has its class: {@link Writes} is
 * the whole write path (checks in {@link PreparedWrite}, item lock stripes, before-images, conditions, one
 * log record per write, batch or transaction, then the wait for durability); {@link PointReads} reads items
 * by key; {@link Queries} runs queries and scans over tables and indexes. {@link TableSchema} holds the
 * checks every request makes before anything is logged, {@link RequestLimits} DynamoDB's multi-item limits,
 * and {@link IdempotencyTokens} the client request tokens of transactions and their expiry. A table's
 * {@link TableSettings} (tags, checked by {@link TagRules}; time to live, by {@link TimeToLive}) live in its
 * descriptor too; {@link TtlSweeper} is the background thread that deletes expired items.
 *
 * <p>Internal: not exported. {@code ItemEngine} is public only so that the {@code Database} facade can reach
 * it; each of its methods is the {@code Database} method of the same name. Indexes are reached only through
 * the SPI of {@code dev.lacuna.index} ({@link TableIndexContext} is what a maintainer is given), so this
 * package must not know any concrete index kind. Of the storage engine it uses only the {@code LsmStore}
 * surface (keyspaces, batches, snapshots, log readers), never SSTables, the manifest or the log format.
 */
package dev.lacuna.engine;
