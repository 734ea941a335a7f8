package dev.lacuna.secondary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.Database;
import dev.lacuna.secondary.CorruptionCheck.Outcome;
import dev.lacuna.secondary.CorruptionCheck.Result;
import dev.lacuna.secondary.CorruptionTargets.Applied;
import dev.lacuna.secondary.CorruptionTargets.Damage;
import dev.lacuna.secondary.CorruptionTargets.Target;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * "Corruption at rest" (issue 15; TESTING.md, layer 8): every file kind of a store — the last log segment
 * and earlier ones (records in the middle, the last record and its end, the header), the manifest (an edit
 * followed by others, the last edit, record length fields, the header), table descriptors (in the
 * manifest), {@code CURRENT} (missing, garbled, naming a missing manifest), SSTables (data blocks, index
 * block, bloom filter, properties, footer) — damaged at rest by flipped bits, overwritten bytes and
 * truncation ({@link CorruptionTargets}), in a store closed cleanly and in one a power loss left
 * ({@link CorruptionWorkload}); then the store is opened and {@link CorruptionCheck} applies the rule:
 * everything acknowledged recovered (every GSI equal to its recomputation, every token transaction
 * recognised), or a refusal naming the damaged file that changed no file. How the rule's edges are counted
 * ({@link CorruptionCheck}): a damaged SSTable block is verified when first read, so a read that fails
 * naming the table is detected, not silent; damage to the end of the power-loss image's last log segment,
 * past what the manifest last saw durable, that the store cannot tell from a torn write is counted apart
 * and printed, and must leave exactly a prefix of the log. Prints
 * {@code corruptions at rest: N, silent losses: 0, files deleted by a refused open: 0} and fails unless both
 * counts are 0 and every refusal or failed read named the damaged file.
 *
 * <p>Knobs: {@code -Dcorruption.cases=N} (600), {@code -Dcorruption.seed=S} (the workload and every damage),
 * {@code -Dcorruption.threads=T} (2), {@code -Dcorruption.only=i,j,…} (replays cases, as numbered in the
 * report; the store's shape varies a little with background timing, so a replay may damage other bytes).
 *
 * <p>A second test runs a few cases through three deliberately broken file systems ({@link Breakages}: an
 * open that deletes a table before it checks, a manifest read that skips a damaged edit, an open that does
 * not know how far the closed log was durable) and checks that the suite's counts show each: it is not
 * vacuous.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CorruptionAtRestTest {
    /**
     * The targets in the order cases take them; a target appears as often as it has parts worth damaging
     * (the log and SSTables most). Its length is a multiple of three, so each target meets every damage.
     */
    private static final Target[] CYCLE = {
            Target.WAL_LAST_MIDDLE, Target.WAL_LAST_END, Target.WAL_EARLIER_MIDDLE, Target.WAL_EARLIER_END,
            Target.SSTABLE_DATA, Target.MANIFEST_MIDDLE, Target.WAL_LAST_MIDDLE, Target.WAL_LAST_END,
            Target.SSTABLE_INDEX, Target.SSTABLE_FILTER, Target.SSTABLE_FOOTER, Target.MANIFEST_END,
            Target.MANIFEST_LENGTH, Target.DESCRIPTOR, Target.CURRENT_GARBLED, Target.WAL_EARLIER_MIDDLE,
            Target.SSTABLE_DATA, Target.WAL_HEADER, Target.MANIFEST_HEADER, Target.SSTABLE_PROPERTIES,
            Target.CURRENT_MISSING, Target.CURRENT_NAMES_MISSING_MANIFEST, Target.DESCRIPTOR, Target.MANIFEST_MIDDLE,
    };

    private long seed;
    private CorruptionWorkload.Stores stores;

    @BeforeAll
    void buildStores() {
        seed = Long.getLong("corruption.seed", 15L);
        stores = CorruptionWorkload.build(seed);
    }

    @Test
    void shouldRecoverEverythingAcknowledgedOrRefuseNamingTheDamagedFile() throws Exception {
        int cases = Integer.getInteger("corruption.cases", 600);
        int threads = Integer.getInteger("corruption.threads", 2);
        String only = System.getProperty("corruption.only");

        // The stores hold what the suite claims to damage, and hold it whole before the damage.
        long[] levels = stores.stats().filesPerLevel();
        System.out.println("corruption at rest, the store: " + stores.model().acknowledged() + " acknowledged writes, "
                + "SSTables per level " + Arrays.toString(levels) + ", log segments " + segments(stores.closed())
                + " (closed) and " + segments(stores.crashed()) + " (power loss), manifest "
                + CorruptionTargets.currentManifest(stores.closed()).getFileName());
        assertThat(levels[0] + levels[1]).as("tables at the top levels").isPositive();
        assertThat(Arrays.stream(levels, 2, levels.length).sum()).as("tables below level 1").isPositive();
        assertThat(CorruptionTargets.segments(stores.closed())).as("log segments at rest").hasSizeGreaterThan(3);
        assertThat(CorruptionTargets.segments(stores.crashed())).as("log segments at rest").hasSizeGreaterThan(3);
        for (MemVfs store : List.of(stores.closed(), stores.crashed())) {
            try (Database db = Database.open(CampaignWorkload.DIR, CorruptionWorkload.options(store.crashClone()))) {
                assertThat(CampaignCheck.compare(db, stores.model(), true).problems()).as("the undamaged store").isEmpty();
            }
        }

        List<Integer> numbers = new ArrayList<>();
        if (only != null) {
            Arrays.stream(only.split(",")).map(String::trim).map(Integer::valueOf).forEach(numbers::add);
        } else {
            for (int i = 0; i < cases; i++) {
                numbers.add(i);
            }
        }
        long start = System.nanoTime();
        List<Result> results = run(numbers, threads, c -> UnaryOperator.identity());
        Summary summary = new Summary(results);
        System.out.println(summary.line());
        System.out.println("(" + summary.report() + "; " + (System.nanoTime() - start) / 1_000_000 + " ms on "
                + threads + " threads; replay a case with -Dcorruption.only=i)");
        summary.byTarget.forEach((target, outcomes) -> System.out.println("  " + target + ": " + outcomes));
        summary.examples.forEach((outcome, example) -> System.out.println("  e.g. " + outcome + ": "
                + (example.length() > 600 ? example.substring(0, 600) + "…" : example)));
        summary.problems.forEach(p -> System.out.println("  " + p));
        assertThat(summary.problems).as("cases against the rule").isEmpty();
        assertThat(summary.silentLosses).isZero();
        assertThat(summary.filesTouched).isZero();
        assertThat(summary.unnamed).isZero();
        if (only == null) {
            assertThat(summary.tried).isGreaterThanOrEqualTo(Math.min(cases, 500));
        }
    }

    /**
     * Three deliberately broken file systems, each under a few cases: one that deletes an SSTable when the open
     * takes the directory's lock (an open that deletes before it checks: refusals must now report a deleted
     * file), one that, with {@code CURRENT} missing, lists none of the store's files (an open that takes such
     * a directory for a new store: everything is lost), and one that reads the manifest without the
     * fields saying how far the log was durable while the end of the closed store's last log segment is
     * damaged (an open as it was before they existed: it takes the damage for a torn tail). Shows the suite is
     * not vacuous.
     */
    @Test
    void shouldCatchDeliberateBreakages() throws Exception {
        Summary deleting = breakage(Target.MANIFEST_MIDDLE, false, 8, c -> vfs -> new Breakages.DeletesFirst(vfs));
        Summary hiding = breakage(Target.CURRENT_MISSING, true, 8, c -> vfs -> new Breakages.HidesStoreWithoutCurrent(vfs));
        Summary unbounded = breakage(Target.WAL_LAST_END, true, 8, c -> vfs -> new Breakages.ForgetsLogDurable(vfs));
        int caught = (deleting.filesTouched > 0 ? 1 : 0) + (hiding.silentLosses > 0 ? 1 : 0)
                + (unbounded.silentLosses > 0 ? 1 : 0);
        System.out.println("mutations caught: " + caught + " of 3 (an open that deletes a table first: "
                + deleting.line() + "; an open that takes a directory without CURRENT for a new store: " + hiding.line()
                + "; an open that does not know how far the closed log was durable: " + unbounded.line() + ")");
        assertThat(deleting.filesTouched).as("files deleted by refused opens that delete first").isPositive();
        assertThat(hiding.silentLosses).as("silent losses when a store without CURRENT is taken for a new one").isPositive();
        assertThat(unbounded.silentLosses).as("silent losses when the log's durable end is unknown").isPositive();
    }

    /**
     * Runs the first {@code cases} cases of {@code target} (of the closed store only if {@code closedOnly})
     * through {@code breakage}.
     */
    private Summary breakage(Target target, boolean closedOnly, int cases, Function<Applied, UnaryOperator<Vfs>> breakage)
            throws Exception {
        List<Integer> numbers = new ArrayList<>();
        for (int i = 0; numbers.size() < cases; i++) {
            if (plan(i).target() == target && !(closedOnly && plan(i).crashed())) {
                numbers.add(i);
            }
        }
        return new Summary(run(numbers, 2, breakage));
    }

    /** Case {@code i}: which store, target and damage, and the randomness that places it. */
    private record Plan(int number, boolean crashed, Target target, Damage damage, Random random) {
        @Override
        public String toString() {
            return "case " + number + " (" + (crashed ? "power loss" : "closed") + ")";
        }
    }

    private Plan plan(int i) {
        int k = i / 2;
        Damage damage = Damage.values()[(k + k / CYCLE.length) % Damage.values().length];
        return new Plan(i, i % 2 == 0, CYCLE[k % CYCLE.length], damage, new Random(seed * 1_000_003L + i));
    }

    private List<Result> run(List<Integer> numbers, int threads, Function<Applied, UnaryOperator<Vfs>> breakage)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Result>> futures = new ArrayList<>();
            for (int i : numbers) {
                futures.add(pool.submit(() -> runCase(plan(i), breakage)));
            }
            List<Result> results = new ArrayList<>();
            for (Future<Result> f : futures) {
                results.add(f.get(10, TimeUnit.MINUTES));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    private Result runCase(Plan plan, Function<Applied, UnaryOperator<Vfs>> breakage) {
        MemVfs disk = (plan.crashed() ? stores.crashed() : stores.closed()).crashClone();
        Path lastSegment;
        try {
            List<Path> segments = CorruptionTargets.segments(disk);
            lastSegment = segments.get(segments.size() - 1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Applied damage = CorruptionTargets.apply(disk, plan.target(), plan.damage(), plan.random());
        // Only the end of a segment never closed can pass for a torn write (CorruptionCheck.Outcome.LOOKS_TORN).
        boolean tornTailPossible = plan.crashed() && damage.file().equals(lastSegment);
        Result r = CorruptionCheck.check(disk, damage, stores.model(), stores.tokens(), breakage.apply(damage),
                tornTailPossible);
        return new Result(new Applied(damage.target(), damage.damage(), damage.file(), damage.from(), damage.to(),
                plan + " " + damage.describe()), r.outcome(), r.touched(), r.detail(), r.offset());
    }

    /** The log's segments, as a range of names. */
    private static String segments(MemVfs vfs) throws IOException {
        List<Path> segments = CorruptionTargets.segments(vfs);
        return segments.size() + " (" + segments.get(0).getFileName() + " to "
                + segments.get(segments.size() - 1).getFileName() + ")";
    }

    /** The counts over many cases, as the summary line prints them; every count is of a comparison made. */
    static final class Summary {
        int tried;
        int silentLosses;
        /** Damage to the end of a log segment never closed that the store cannot tell from a torn write. */
        int looksTorn;
        int filesTouched;
        int unnamed;
        final Map<Outcome, Integer> outcomes = new EnumMap<>(Outcome.class);
        final Map<Target, Map<Outcome, Integer>> byTarget = new TreeMap<>();
        /** Refusals naming the damaged file whose offset lies at or before the damage's last byte. */
        int offsetAtOrBeforeDamage;
        final List<String> problems = new ArrayList<>();
        /** The first case of each outcome, for the report. */
        final Map<Outcome, String> examples = new EnumMap<>(Outcome.class);

        Summary(List<Result> results) {
            for (Result r : results) {
                examples.putIfAbsent(r.outcome(), r.damage().describe() + ": " + r.detail());
                tried++;
                outcomes.merge(r.outcome(), 1, Integer::sum);
                byTarget.computeIfAbsent(r.damage().target(), t -> new EnumMap<>(Outcome.class))
                        .merge(r.outcome(), 1, Integer::sum);
                switch (r.outcome()) {
                    case SILENT_LOSS -> silentLosses++;
                    case LOOKS_TORN -> looksTorn++;
                    case REFUSED_TOUCHING_FILES -> filesTouched += r.touched().size();
                    case UNNAMED -> unnamed++;
                    case REFUSED, DETECTED_AT_READ -> {
                        if (r.offset() >= 0 && r.offset() <= r.damage().to()) {
                            offsetAtOrBeforeDamage++;
                        }
                    }
                    default -> {
                    }
                }
                if (r.problem() && problems.size() < 40) {
                    String detail = r.detail().length() > 400 ? r.detail().substring(0, 400) + "…" : r.detail();
                    problems.add(r.outcome() + ": " + r.damage().describe() + ": " + detail
                            + (r.touched().isEmpty() ? "" : " " + r.touched()));
                }
            }
        }

        String line() {
            return "corruptions at rest: " + tried + ", silent losses: " + silentLosses
                    + ", files deleted by a refused open: " + filesTouched;
        }

        String report() {
            return outcomes + "; refusals and read errors naming the file at an offset at or before the damage's "
                    + "end: " + offsetAtOrBeforeDamage + "; " + looksTorn + " damaged the end of the last log segment "
                    + "of the power-loss image past the manifest's durable bound and recovered a prefix of the log, as "
                    + "a torn write does";
        }
    }
}
