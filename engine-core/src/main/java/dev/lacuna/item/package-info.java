/**
 * How items and keys become bytes, and how big DynamoDB says they are. {@link KeyEncoding} encodes primary
 * keys order-preservingly ({@code tableId | partitionKey | sortKey?}, strings and binaries escaped and
 * terminated, numbers through {@link NumberEncoding}), so that the LSM's unsigned byte order is DynamoDB's
 * key order; {@link ItemCodec} is the canonical binary codec of the items stored in memtables, SSTables and
 * the log; {@link ItemSize} is DynamoDB's size accounting behind the 400 KB item limit. Layouts and their
 * version numbers are in FORMAT.md beside these classes.
 *
 * <p>Everything here is stateless and thread-safe. Decoders treat their input as untrusted and fail only with
 * {@code CorruptionException}, naming the file and offset they were given.
 *
 * <p>Internal: not exported; the item engine ({@code dev.lacuna.engine}) uses it, and the expression language
 * uses {@code ItemSize}. It knows the value types of {@code dev.lacuna} and no more: not the LSM, the catalog
 * of tables, or indexes.
 */
package dev.lacuna.item;
