package dev.lacuna.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import org.junit.jupiter.api.Test;

/** IndexLagBenchmark's sort keys are what {@code String.format("%012d")} made before, so string order is write order. */
class IndexLagSortKeyTest {
    @Test
    void shouldPadLikeTheFormatItReplaced() {
        for (long i : new long[] {0, 7, 10, 99, 123_456, 999_999_999_999L, 1_000_000_000_000L, Long.MAX_VALUE}) {
            assertThat(IndexLagBenchmark.sortKey(i)).isEqualTo(String.format(Locale.ROOT, "%012d", i));
        }
        assertThat(IndexLagBenchmark.sortKey(9)).isLessThan(IndexLagBenchmark.sortKey(10));
    }
}
