/**
 * A persistent, ordered byte-key/byte-value store: Lacuna's LSM engine without the item layer, for benchmarks
 * and embedders who want bytes. {@link KvStore} is the facade: open, put, delete, atomic
 * {@link WriteBatch}es, point reads, range scans through a {@link KvCursor}, consistent {@link KvSnapshot}s,
 * flush and compaction. {@link KvOptions} (with its {@link SstableOptions}) configures it and {@link KvStats}
 * reports its counters and tree shape. {@link KeyPrefix} says which part of a key selects its hash partition
 * and feeds the bloom filters; {@link KeyspaceRouter} says which keyspace a key belongs to.
 *
 * <p>Public API (exported by {@code dev.lacuna.core}), and only API, as LevelDB's {@code include/leveldb}:
 * {@code KvStore} hands each call to {@code dev.lacuna.lsm.LsmStore} in one line, and the LSM and SSTable
 * packages take their settings from these types. Keys are ordered unsigned-bytewise and mean nothing here:
 * the package must not know items, tables or indexes.
 */
package dev.lacuna.kv;
