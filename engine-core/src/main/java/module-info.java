/**
 * Lacuna's engine: the item API ({@code dev.lacuna}), the byte-level store ({@code dev.lacuna.kv}) and the
 * SPI for index kinds ({@code dev.lacuna.index}). The item engine, the expression language, the codecs and
 * the LSM behind them are not exported; {@code dev.lacuna.inspect}, which reads single store files for tools, is
 * exported to the fixtures' {@code lacuna} command only.
 */
module dev.lacuna.core {
    requires transitive dev.lacuna.wal;
    requires org.lz4.java;
    // JFR events (dev.lacuna.Flush, Compaction, WriteStall); recorded only when a user records them.
    requires jdk.jfr;

    exports dev.lacuna;
    exports dev.lacuna.kv;
    exports dev.lacuna.index;
    // Reading single store files for the lacuna command's 'inspect' (ldb / sst_dump); internal, so to it only.
    exports dev.lacuna.inspect to dev.lacuna.fixtures;
    // Lz4Benchmark and BlockCacheBenchmark measure the table code and the block cache directly; internal, so to
    // the benchmarks only.
    exports dev.lacuna.sstable to dev.lacuna.benchmarks;
    exports dev.lacuna.base to dev.lacuna.benchmarks;

    uses dev.lacuna.index.IndexKind;
}
