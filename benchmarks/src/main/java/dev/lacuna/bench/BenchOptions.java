package dev.lacuna.bench;

import dev.lacuna.DatabaseOptions;

/** Options the index benchmarks share. */
final class BenchOptions {
    private BenchOptions() {
    }

    /** {@code b} with index back-pressure off: writers never held for an index's lag. */
    static DatabaseOptions unthrottled(DatabaseOptions.Builder b) {
        return b.maxIndexLagRecords(0).build();
    }
}
