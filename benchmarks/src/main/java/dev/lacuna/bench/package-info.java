/**
 * JMH benchmarks (BENCHMARKS.md), built into {@code benchmarks/target/benchmarks.jar}. {@link QueueBenchmark}
 * is the headline: one read of the helpdesk queue as the history of closed tickets grows, the sparse index
 * next to a status flag and to RocksDB. {@link ItemBenchmark} measures item operations through
 * {@code Database}; {@link KvStoreBenchmark} the byte-level {@code KvStore} side by side with RocksDB on
 * db_bench's workloads; {@link WalAppendBenchmark} synced log appends with group commit, against RocksDB and
 * a raw fsync loop.
 *
 * <p>Not a library package: nothing depends on it. The benchmarks use the public APIs, except
 * {@code WalAppendBenchmark}, which drives the internal {@code Wal} directly because the log has no public
 * face of its own. Baselines run in the same JMH run as Lacuna, so that {@code dev.lacuna.bench.report} can
 * compare figures within one run; each trial works in a fresh temporary directory.
 */
package dev.lacuna.bench;
