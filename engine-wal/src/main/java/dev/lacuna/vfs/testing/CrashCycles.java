package dev.lacuna.vfs.testing;

import dev.lacuna.vfs.testing.BrokenVfs.Breakage;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The cycle loop of a power-loss crash test of code built on Lacuna: run a workload, crash it (a crash image of a
 * {@link BrokenVfs}, taken at a {@link CrashMoment}), reopen, check, count; over and over, each cycle (or chained
 * lineage of cycles on one store) with its own seed, so that a failing one can be replayed alone. Lacuna's own
 * power-loss suites (the log's, the key-value store's, transactions', indexes' and streams') and the product crash
 * test behind {@code lacuna crashtest} all run on it.
 *
 * <p>A test names its run by a knob prefix {@code P}: {@code -DP.cycles=N} (default: the suite's quick size, the one
 * CI runs), {@code -DP.seed=S} (cycle {@code i}, or lineage {@code i}, runs with seed {@code S + i}) and
 * {@code -DP.mutation.cycles=M} (the breakage run's most cycles per breakage). A cycle that throws fails the run
 * with an {@link AssertionError} naming the seed and the {@code -D} line that replays it alone; the totals, counted
 * by the caller's own cycles from what they compared, are printed through the caller's own lines on
 * {@code System.out} (the lines a test log shows), then returned for its assertions. A program that counts problems
 * rather than failing on the first (as {@code lacuna crashtest} does) makes the knob null: a failure then reaches
 * it as it was thrown.
 *
 * <p>The workload and its checks stay with the caller, as the callbacks: they know what was acknowledged. Main code
 * of engine-wal (not a test-jar) so that a product may depend on it; it needs nothing but the JDK and
 * {@code dev.lacuna.vfs}.
 */
public final class CrashCycles {
    /** One crash cycle: runs with {@code seed} (cycle {@code cycle} from 0 of the run) and adds what it counted. */
    @FunctionalInterface
    public interface Cycle<T> {
        void run(long seed, int cycle, T totals) throws Exception;
    }

    /** One lineage: {@code cycles} crash cycles chained on one file system, from {@code seed}, adding to the totals. */
    @FunctionalInterface
    public interface Lineage<T> {
        void run(long seed, int cycles, T totals) throws Exception;
    }

    /**
     * One lineage that may end before its {@code cycles}: a program that counts a problem and goes on (rather than
     * failing) ends the lineage at the cycle that found it, its store no longer worth chaining on, and the next
     * lineage starts a fresh one.
     */
    @FunctionalInterface
    public interface EndingLineage<T> {
        /** Runs at most {@code cycles} chained crash cycles from {@code seed}; returns how many (1 or more). */
        int run(long seed, int cycles, T totals) throws Exception;
    }

    private final String knob;
    private final int cycles;
    private final long baseSeed;

    /**
     * {@code cycles} cycles from {@code baseSeed}, failures naming the {@code -Dknob.…} line that replays them; or,
     * with a null {@code knob}, thrown as they are (a breakage run describes what caught it from the failure itself).
     */
    public CrashCycles(String knob, int cycles, long baseSeed) {
        this.knob = knob;
        this.cycles = cycles;
        this.baseSeed = baseSeed;
    }

    /** The run {@code -Dknob.cycles} and {@code -Dknob.seed} ask for, else {@code quickCycles} from {@code seed}. */
    public static CrashCycles fromProperties(String knob, int quickCycles, long seed) {
        return new CrashCycles(knob, Integer.getInteger(knob + ".cycles", quickCycles), Long.getLong(knob + ".seed", seed));
    }

    /** The cycles this run makes. */
    public int cycles() {
        return cycles;
    }

    /** The {@code -D} line that replays {@code cycles} cycles from {@code seed}. */
    public String replay(long seed, int cycles) {
        return "-D" + knob + ".seed=" + seed + " -D" + knob + ".cycles=" + cycles;
    }

    /**
     * Runs every cycle, each with its own seed (the base seed plus its index), into {@code totals}; a cycle that
     * throws fails the run with its seed (the knob must not be null here: the honest runs name their replay line).
     * Then prints {@code summary}'s lines and returns the totals.
     */
    public <T> T run(T totals, Cycle<T> cycle, Function<T, List<String>> summary) {
        for (int c = 0; c < cycles; c++) {
            long seed = baseSeed + c;
            try {
                cycle.run(seed, c, totals);
            } catch (Throwable t) {
                throw new AssertionError("crash cycle failed; replay with " + replay(seed, 1), t);
            }
        }
        return print(totals, summary);
    }

    /**
     * Runs the cycles as lineages of at most {@code lineage} chained cycles, each lineage with its own seed (the
     * base seed plus its index), into {@code totals}; a lineage that throws fails the run with its seed (unless the
     * knob is null). Returns the totals without printing (the suites also run short lineages that print nothing).
     */
    public <T> T runLineages(int lineage, T totals, Lineage<T> run) throws Exception {
        return runEndingLineages(lineage, totals, (seed, n, t) -> {
            run.run(seed, n, t);
            return n;
        });
    }

    /**
     * As {@link #runLineages}, but a lineage may end early ({@link EndingLineage}): the next one (with the next
     * seed) goes on with the cycles left, until the run has made its {@link #cycles()}.
     *
     * @throws IllegalStateException if a lineage says it made no cycle, or more than it was given
     */
    public <T> T runEndingLineages(int lineage, T totals, EndingLineage<T> run) throws Exception {
        int done = 0;
        for (int l = 0; done < cycles; l++) {
            long seed = baseSeed + l;
            int n = Math.min(lineage, cycles - done);
            int made;
            try {
                made = run.run(seed, n, totals);
            } catch (Exception | AssertionError e) {
                if (knob == null) {
                    throw e;
                }
                throw new AssertionError("crash lineage failed; replay with " + replay(seed, n), e);
            }
            if (made < 1 || made > n) {
                throw new IllegalStateException("a lineage given " + n + " cycles says it made " + made);
            }
            done += made;
        }
        return totals;
    }

    /** Prints the suite's summary lines for {@code totals}, and returns the totals. */
    public static <T> T print(T totals, Function<T, List<String>> summary) {
        summary.apply(totals).forEach(System.out::println);
        return totals;
    }

    /**
     * The breakage run ({@link BreakageRuns#catchEach}): at most {@code -Dknob.mutation.cycles} (default
     * {@code quickMax}) cycles under each breakage not in {@code notConcerned}.
     */
    public BreakageRuns.Result breakages(int quickMax, Map<Breakage, String> notConcerned, BreakageRuns.Cycle cycle) {
        return BreakageRuns.catchEach(mutationCycles(quickMax), notConcerned, cycle);
    }

    /** As {@link #breakages(int, Map, BreakageRuns.Cycle)}, under every breakage. */
    public BreakageRuns.Result breakages(int quickMax, BreakageRuns.Cycle cycle) {
        return breakages(quickMax, Map.of(), cycle);
    }

    /** {@code -Dknob.mutation.cycles}, else {@code quickMax}: the most cycles a mutation run makes. */
    public int mutationCycles(int quickMax) {
        return Integer.getInteger(knob + ".mutation.cycles", quickMax);
    }
}
