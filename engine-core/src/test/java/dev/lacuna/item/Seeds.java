package dev.lacuna.item;

import java.util.function.Consumer;

/**
 * Seeds for the property tests: a fresh one per run, or {@code -Ditem.seed=N} to replay one. A failure
 * is rethrown with its seed in the message, so that it can be replayed. {@code -Ditem.scale=N} multiplies
 * the number of cases of every property test by N (the defaults keep {@code mvn test} quick).
 */
final class Seeds {
    private Seeds() {
    }

    /** The number of cases to run: {@code defaultCases} times {@code -Ditem.scale} (1 by default). */
    static int cases(int defaultCases) {
        return Math.multiplyExact(defaultCases, Integer.getInteger("item.scale", 1));
    }

    /** Runs {@code property} with generators seeded by a fresh (or the replayed) seed. */
    static void check(String property, Consumer<RandomValues> body) {
        Long fixed = Long.getLong("item.seed");
        long seed = fixed != null ? fixed : System.nanoTime() ^ Thread.currentThread().getId() * 0x9E3779B97F4A7C15L;
        try {
            body.accept(new RandomValues(seed));
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError(property + " failed with seed " + seed + " (replay with -Ditem.seed=" + seed
                    + "): " + e.getMessage(), e);
        }
    }
}
