/**
 * Lacuna's JMH benchmarks. Exports nothing: the benchmarks are run from the shaded
 * {@code benchmarks/target/benchmarks.jar} (on the class path, where this descriptor is ignored); the
 * descriptor states, and the compiler checks, what they may use: the public APIs, the internal log (read by
 * {@code WalAppendBenchmark} only, through a qualified export), the table code and block cache (Lz4Benchmark and
 * BlockCacheBenchmark, likewise), JMH, RocksDB, HdrHistogram and Caffeine.
 */
module dev.lacuna.benchmarks {
    requires dev.lacuna.secondary;
    requires jmh.core;
    requires rocksdbjni;
    requires HdrHistogram; // IndexLagBenchmark's percentiles (an automatic module named after its jar)
    requires java.management; // Interleaved: the calling thread's CPU time
    requires jdk.jfr; // IndexLagProfile: a recording of its own JVM, matched against the slow samples
    requires org.lz4.java; // Lz4Benchmark: each lz4-java implementation on its own
    requires com.github.benmanes.caffeine; // BlockCacheBenchmark: the engine's block cache against Caffeine
}
