package dev.lacuna.secondary;

import dev.lacuna.Database;
import dev.lacuna.kv.KvStats;
import dev.lacuna.vfs.FaultyVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;

/**
 * Runs the {@link CampaignWorkload} with I/O faults injected one at a time (LevelDB's fault-injection test,
 * RocksDB's fault-injection file system, Pebble's errorfs): once without a fault to count its I/O
 * operations, then once per chosen operation {@code k} with the {@code k}-th failing — an error, the disk
 * filling up in the middle of a write, or a torn write — after which the disk is healed, the power is cut
 * ({@link MemVfs#crashClone()}), and {@link CampaignCheck} opens what survived and compares it with what
 * the run was told.
 *
 * <p>The workload is single-threaded, but the engine is not (group commit, flushes and compactions on a
 * background thread, GSI updaters): a faulty run makes the same calls as the clean one up to the fault, yet
 * background I/O may interleave differently, so operation {@code k} is the same operation only most of the
 * time. Each run reports the operation that actually failed ({@link FaultyVfs#firstInjected()}).
 */
final class FaultCampaign {
    /** One fault point: the {@code k}-th I/O operation of a run fails as {@code fault} says; null k: none. */
    record Point(long k, FaultyVfs.Fault fault) {
        @Override
        public String toString() {
            return k + ":" + fault;
        }

        static Point parse(String s) {
            String[] parts = s.split(":");
            return new Point(Long.parseLong(parts[0]), FaultyVfs.Fault.valueOf(parts[1]));
        }
    }

    /**
     * What one run did and what its check found.
     *
     * @param injected the failure the run's fault produced (null if the run ended before operation k)
     * @param ops      I/O operations the run made before the power loss
     * @param counts   operations by kind, those of the close after the power loss included
     * @param steps    workload steps made ({@link CampaignWorkload#STEPS} unless it gave up)
     * @param failures calls that failed, by exception class (see {@link CampaignWorkload#failures})
     * @param crashedIfClean for a run without a fault, what the power loss left (before the check opened it)
     */
    record Run(Point point, String injected, long ops, Map<FaultyVfs.Op, Long> counts, long acknowledged,
               KvStats stats, int steps, Map<String, String> failures, List<String> failuresAfterReopen,
               CampaignCheck.Verdict verdict, long workloadNanos, long checkNanos, MemVfs crashedIfClean) {
        /** Whether the run had the fault it asked for (a run that asked for none always has). */
        boolean fired() {
            return point == null || injected != null;
        }
    }

    private final UnaryOperator<Vfs> breakage;
    private final long seed;
    private final int readers;

    /**
     * @param breakage wraps the run's file system (the identity, or a deliberately broken one to show that
     *                 the campaign catches it)
     * @param seed     the workload's seed
     * @param readers  reader threads running beside the workload (0: the workload's own reads only)
     */
    FaultCampaign(UnaryOperator<Vfs> breakage, long seed, int readers) {
        this.breakage = breakage;
        this.seed = seed;
        this.readers = readers;
    }

    /** Runs the workload with the fault of {@code point} (none if null), cuts the power, and checks. */
    Run run(Point point) {
        MemVfs disk = new MemVfs();
        FaultyVfs faulty = new FaultyVfs(disk);
        if (point != null) {
            faulty.failOperation(point.k(), point.fault());
        }
        CampaignModel model = new CampaignModel();
        CampaignWorkload workload = new CampaignWorkload(breakage.apply(faulty), model, seed);
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        for (int r = 0; r < readers; r++) {
            Random random = new Random(seed * 31 + r);
            Thread t = new Thread(() -> read(workload, model, random, stop), "campaign-reader-" + r);
            threads.add(t);
            t.start();
        }
        KvStats stats = null;
        MemVfs crashed;
        long ops;
        long start = System.nanoTime();
        try {
            workload.run();
            Database db = workload.database();
            if (db != null) {
                try {
                    stats = db.storageStats();
                } catch (RuntimeException e) {
                    // closed or failed: the stats are only for the report
                }
            }
        } finally {
            stop.set(true);
            for (Thread t : threads) {
                join(t);
            }
            // Readers are stopped first: a value read after the power loss is not one the crash could lose.
            ops = faulty.totalCount(); // the close below comes after the power loss: its operations never fail
            faulty.heal();
            crashed = disk.crashClone();
            workload.close();
        }
        Map<FaultyVfs.Op, Long> counts = new EnumMap<>(FaultyVfs.Op.class);
        for (FaultyVfs.Op op : FaultyVfs.Op.values()) {
            counts.put(op, faulty.count(op)); // the close's included: only for the report
        }
        long checkStart = System.nanoTime();
        MemVfs kept = point == null ? crashed.crashClone() : null;
        CampaignCheck.Verdict verdict = CampaignCheck.check(crashed, model);
        // The workload and the model are not kept: 2,000 runs' file systems would fill the heap.
        return new Run(point, faulty.firstInjected(), ops, counts, model.acknowledged(), stats, workload.steps,
                Map.copyOf(workload.failures), List.copyOf(workload.failuresAfterReopen), verdict,
                checkStart - start, System.nanoTime() - checkStart, kept);
    }

    private static void read(CampaignWorkload workload, CampaignModel model, Random random, AtomicBoolean stop) {
        while (!stop.get()) {
            Database db = workload.database();
            if (db == null) {
                Thread.onSpinWait(); // between a close and a reopen: nothing to read yet
                continue;
            }
            try {
                CampaignWorkload.readerStep(db, model, random);
            } catch (RuntimeException e) {
                // closed under it, or an injected read error: readers only record what they were given
            }
        }
    }

    private static void join(Thread t) {
        try {
            t.join(TimeUnit.SECONDS.toMillis(60));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (t.isAlive()) {
            throw new AssertionError(t.getName() + " hangs");
        }
    }

    /**
     * The fault points for a run of {@code total} operations: each operation with each of the three faults,
     * all of them if there are at most {@code wanted}, else {@code wanted} of them at an even stride through
     * the operations, the faults taking turns.
     */
    static List<Point> points(long total, int wanted) {
        FaultyVfs.Fault[] faults = FaultyVfs.Fault.values();
        long all = total * faults.length;
        long n = Math.min(all, wanted);
        List<Point> points = new ArrayList<>();
        for (long i = 0; i < n; i++) {
            long j = i * all / n;
            points.add(new Point(1 + j / faults.length, faults[(int) (j % faults.length)]));
        }
        return points;
    }

    /** Runs every point on {@code threads} threads; the runs are independent (each has its own file system). */
    List<Run> runAll(List<Point> points, int threads) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Run>> futures = new ArrayList<>();
            for (Point p : points) {
                futures.add(pool.submit(() -> run(p)));
            }
            List<Run> runs = new ArrayList<>();
            for (Future<Run> f : futures) {
                runs.add(f.get(10, TimeUnit.MINUTES));
            }
            return runs;
        } finally {
            pool.shutdownNow();
        }
    }

    /** The counts over many runs, as the summary line prints them. */
    static final class Summary {
        int points;
        int notFired;
        int lostAcknowledged;
        int visibleThenLost;
        int unopenable;
        int indexMismatches;
        int torn;
        int unexplained;
        /** Refused opens that deleted or changed a file on the way (reported; every refusal is unopenable). */
        int refusalsTouchingFiles;
        long acknowledged;
        final Map<FaultyVfs.Fault, Integer> byFault = new EnumMap<>(FaultyVfs.Fault.class);
        final List<String> problems = new ArrayList<>();
        /** Runs in which a call failed with each kind of exception (the first message of each kept as an example). */
        final Map<String, Integer> failureKinds = new java.util.TreeMap<>();
        final Map<String, String> failureExamples = new java.util.TreeMap<>();
        /** A few points that never fired, for the report. */
        final List<String> notFiredExamples = new ArrayList<>();
        int runsWithProblems;

        void add(Run run) {
            if (!run.fired()) {
                notFired++;
                if (notFiredExamples.size() < 8) {
                    notFiredExamples.add(run.point() + " (run made " + run.ops() + " operations)");
                }
                return;
            }
            points++;
            run.failures().forEach((kind, example) -> {
                failureKinds.merge(kind, 1, Integer::sum);
                failureExamples.putIfAbsent(kind, example);
            });
            if (run.point() != null) {
                byFault.merge(run.point().fault(), 1, Integer::sum);
            }
            CampaignCheck.Verdict v = run.verdict();
            lostAcknowledged += v.lostAcknowledged();
            visibleThenLost += v.visibleThenLost();
            unopenable += v.unopenable();
            indexMismatches += v.indexMismatches();
            torn += v.torn();
            unexplained += v.unexplained();
            refusalsTouchingFiles += v.refusalTouchedFiles() ? 1 : 0;
            acknowledged += run.acknowledged();
            if (!v.clean()) {
                runsWithProblems++;
                if (problems.size() < 30) {
                    problems.add("point " + run.point() + " (" + run.injected() + "; workload failures "
                            + run.failures() + (run.failuresAfterReopen().isEmpty() ? ""
                            : ", after the reopen " + run.failuresAfterReopen()) + "): "
                            + String.join("; ", v.problems().subList(0, Math.min(4, v.problems().size()))));
                }
            }
        }

        String line() {
            return "fault points: " + points + ", lost acknowledged: " + lostAcknowledged + ", visible then lost: "
                    + visibleThenLost + ", unopenable: " + unopenable + ", index mismatches: " + indexMismatches;
        }
    }
}
