package dev.lacuna.vfs.testing;

import dev.lacuna.vfs.testing.BrokenVfs.Breakage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The "is the check vacuous?" run of a crash test: under each {@link Breakage} (the honest one aside) it runs
 * cycles until one shows the breakage, and prints {@code mutations caught: N of N (…)} with what caught each on
 * {@code System.out} (the test log). A crash test asserts that every breakage was caught.
 */
public final class BreakageRuns {
    private BreakageRuns() {
    }

    /** One cycle of a suite on a broken file system. */
    @FunctionalInterface
    public interface Cycle {
        /**
         * Runs cycle {@code cycle} (from 1) under {@code breakage}: what showed it (lost or misordered writes), or
         * null if this cycle did not. A throwable also counts as caught (the engine refused, a writer failed).
         */
        String run(Breakage breakage, int cycle) throws Exception;
    }

    /** What {@link #catchEach} found: how many breakages were caught, of how many, and how each was. */
    public record Result(int caught, int of, List<String> outcomes) {
    }

    /** Runs up to {@code maxCycles} cycles under each breakage until one catches it, and prints the count. */
    public static Result catchEach(int maxCycles, Cycle cycle) {
        return catchEach(maxCycles, Map.of(), cycle);
    }

    /**
     * As {@link #catchEach(int, Cycle)}, but without the breakages in {@code notConcerned}, which cannot concern
     * the suite (each mapped to why, printed after the count; they are not counted).
     */
    public static Result catchEach(int maxCycles, Map<Breakage, String> notConcerned, Cycle cycle) {
        List<Breakage> breakages = Arrays.stream(Breakage.values())
                .filter(b -> b != Breakage.NONE && !notConcerned.containsKey(b)).toList();
        List<String> outcomes = new ArrayList<>();
        int caught = 0;
        for (Breakage breakage : breakages) {
            String outcome = null;
            int n = 0;
            while (outcome == null && n < maxCycles) {
                n++;
                try {
                    outcome = cycle.run(breakage, n);
                } catch (Throwable t) {
                    outcome = BrokenVfs.describe(t);
                }
            }
            caught += outcome == null ? 0 : 1;
            outcomes.add(breakage + ": " + (outcome == null ? "NOT caught in " + n + " cycles"
                    : "caught in cycle " + n + ", " + (outcome.length() > 200 ? outcome.substring(0, 200) + "…" : outcome)));
        }
        StringBuilder skipped = new StringBuilder();
        notConcerned.forEach((b, why) -> skipped.append("; not run, ").append(b).append(": ").append(why));
        System.out.println("mutations caught: " + caught + " of " + breakages.size() + " (" + String.join("; ", outcomes)
                + skipped + ")");
        return new Result(caught, breakages.size(), outcomes);
    }
}
