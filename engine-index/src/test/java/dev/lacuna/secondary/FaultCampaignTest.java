package dev.lacuna.secondary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.secondary.FaultCampaign.Point;
import dev.lacuna.secondary.FaultCampaign.Run;
import dev.lacuna.secondary.FaultCampaign.Summary;
import dev.lacuna.vfs.FaultyVfs;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * "Lose nothing under the faults production sees" (TESTING.md, layer 7): the fault campaign. The
 * {@link CampaignWorkload} is run once to count its I/O operations, then again for each of a sample of
 * them (every one if there are few) with that operation failing — an error, a disk filling up mid-write, a
 * torn write, in turn — then the disk is healed, the power cut, the store reopened and checked
 * ({@link CampaignCheck}): every acknowledged write present, every value a reader saw from a {@code SYNC}
 * write present, the store opens, and every GSI equals its recomputation after catch-up. Prints
 * {@code fault points: N, lost acknowledged: 0, visible then lost: 0, unopenable: 0, index mismatches: 0}.
 *
 * <p>Knobs: {@code -Dfault.campaign.points=N} (fault points sampled, 2,300 by default, of which at least
 * {@code -Dfault.campaign.min}, 2,000 by default, must fire: a fault whose run ended before operation k is
 * not counted), {@code -Dfault.campaign.seed=S}
 * (the workload), {@code -Dfault.campaign.threads=T} (runs in parallel, 2), {@code -Dfault.campaign.readers=R}
 * (reader threads beside the workload, 0), {@code -Dfault.campaign.only=k:FAULT} (replays one point, as
 * printed with each problem).
 *
 * <p>A second test breaks the file system on purpose (a directory fsync, or an fsync of the log, that
 * does nothing) and checks that a small campaign notices: the campaign is not vacuous.
 */
class FaultCampaignTest {
    @Test
    void shouldLoseNothingUnderEveryEnumeratedFault() throws Exception {
        int wanted = Integer.getInteger("fault.campaign.points", 2300);
        // The CI size must fire at least 2,000; a smaller campaign, at least nine tenths of its points.
        int minimum = Integer.getInteger("fault.campaign.min", Math.min(2000, wanted * 9 / 10));
        long seed = Long.getLong("fault.campaign.seed", 17L);
        int threads = Integer.getInteger("fault.campaign.threads", 2);
        int readers = Integer.getInteger("fault.campaign.readers", 0);
        String only = System.getProperty("fault.campaign.only");
        FaultCampaign campaign = new FaultCampaign(UnaryOperator.identity(), seed, readers);

        Run clean = campaign.run(null);
        System.out.println("fault campaign, run without a fault: " + clean.ops() + " I/O operations "
                + clean.counts() + ", " + clean.acknowledged() + " acknowledged writes, " + describe(clean));
        assertThat(clean.verdict().problems()).as("the run without a fault").isEmpty();
        assertThat(clean.failures()).as("calls that failed without a fault").isEmpty();
        assertThat(clean.steps()).isEqualTo(CampaignWorkload.STEPS);
        // The workload must do what it claims to: flush, compact, rewrite the manifest, roll the log.
        assertThat(clean.stats().flushes()).as("flushes").isPositive();
        assertThat(clean.stats().compactions()).as("compactions").isPositive();
        // CURRENT is renamed into place by each of the two opens and by each manifest rewrite.
        assertThat(clean.counts().get(FaultyVfs.Op.RENAME)).as("manifest rewrites").isGreaterThan(2);
        assertThat(clean.stats().wal().segmentsCreated()).as("log segments").isGreaterThan(1);
        // The queue index's updater checkpointed as the restart closed it (the label index went with its
        // removal, the owner index started from its backfill's snapshot): no index checkpoint is still 0.
        assertThat(IndexCrashTest.durableCheckpoints(clean.crashedIfClean())).as("index checkpoints")
                .hasSize(2).allSatisfy((name, lsn) -> assertThat(lsn).as(name).isPositive());

        // Background work interleaves differently from run to run (and the first run is slower, its code not
        // yet compiled, which gives background threads more to do): points are spread over the operations of
        // the shortest of a few more runs made as the campaign's are, so few lie past the end of their run.
        long operations = clean.ops();
        List<Point> none = new ArrayList<>();
        for (int i = 0; i < 2 * threads; i++) {
            none.add(null);
        }
        for (Run run : campaign.runAll(none, threads)) {
            assertThat(run.verdict().problems()).as("a run without a fault").isEmpty();
            operations = Math.min(operations, run.ops());
        }
        List<Point> points = only != null ? List.of(Point.parse(only)) : FaultCampaign.points(operations, wanted);
        long start = System.nanoTime();
        List<Run> runs = campaign.runAll(points, threads);
        Summary summary = new Summary();
        runs.forEach(summary::add);
        System.out.println(summary.line());
        System.out.println("(" + summary.byFault + " of " + points.size() + " points sampled from " + operations
                + " operations; " + summary.notFired + " never fired; " + summary.acknowledged
                + " acknowledged writes checked; torn transactions: " + summary.torn + ", unexplained values: "
                + summary.unexplained + ", refused opens that deleted or changed a file: "
                + summary.refusalsTouchingFiles + "; " + (System.nanoTime() - start) / 1_000_000 + " ms on " + threads
                + " threads)");
        System.out.println("  calls failed with (runs): " + summary.failureKinds);
        summary.failureExamples.forEach((kind, example) -> System.out.println("    " + kind + ", e.g. " + example));
        if (summary.notFired > 0) {
            System.out.println("  never fired, for example: " + summary.notFiredExamples);
        }
        summary.problems.forEach(p -> System.out.println("  " + p));
        assertThat(summary.problems).as("replay a point with -Dfault.campaign.only=k:FAULT").isEmpty();
        assertThat(summary.lostAcknowledged).isZero();
        assertThat(summary.visibleThenLost).isZero();
        assertThat(summary.unopenable).isZero();
        assertThat(summary.indexMismatches).isZero();
        assertThat(summary.torn).isZero();
        assertThat(summary.unexplained).isZero();
        if (only == null) {
            assertThat(summary.points).as("fault points that fired").isGreaterThanOrEqualTo(minimum);
        }
    }

    /**
     * Two deliberately broken file systems, each under a small campaign: one whose directory fsync does
     * nothing (a power loss then takes every file created: the campaign must report acknowledged writes
     * lost), and one whose fsync of log segments does nothing (their bytes reach the disk only when the file
     * is closed, as with a write cache that ignores flushes: the campaign must report something lost or
     * an unopenable store). Shows the campaign is not vacuous.
     */
    @Test
    void shouldCatchFileSystemsThatLieAboutDurability() throws Exception {
        Summary directories = smallCampaign(vfs -> new LyingVfs(vfs, false));
        Summary log = smallCampaign(vfs -> new LyingVfs(vfs, true));
        int caught = (directories.lostAcknowledged > 0 ? 1 : 0)
                + (log.lostAcknowledged + log.visibleThenLost + log.unopenable > 0 ? 1 : 0);
        System.out.println("mutations caught: " + caught + " of 2 (directory fsync that does nothing: "
                + directories.line() + "; log fsync that does nothing: " + log.line() + ")");
        assertThat(directories.lostAcknowledged).as("acknowledged writes lost without directory fsyncs").isPositive();
        assertThat(log.lostAcknowledged + log.visibleThenLost + log.unopenable)
                .as("writes lost or a store unopenable without log fsyncs").isPositive();
    }

    private static Summary smallCampaign(UnaryOperator<Vfs> breakage) throws Exception {
        FaultCampaign campaign = new FaultCampaign(breakage, 17L, 0);
        Run clean = campaign.run(null);
        Summary summary = new Summary();
        summary.add(clean);
        campaign.runAll(FaultCampaign.points(clean.ops(), 9), 2).forEach(summary::add);
        return summary;
    }

    private static String describe(Run run) {
        return run.stats().flushes() + " flushes, " + run.stats().compactions() + " compactions, "
                + run.counts().get(FaultyVfs.Op.RENAME) + " renames (manifest rewrites), "
                + run.stats().wal().segmentsCreated() + " log segments";
    }

    /**
     * The deliberate breakages: {@link Vfs#syncDirectory} does nothing, or {@link VfsFile#force()} on a
     * write-ahead log segment does nothing (its bytes become durable only when it is closed).
     */
    private static final class LyingVfs extends ForwardingVfs {
        private final boolean logFsync;

        LyingVfs(Vfs delegate, boolean logFsync) {
            super(delegate);
            this.logFsync = logFsync;
        }

        private VfsFile lie(Path path, VfsFile file) {
            if (!logFsync || !path.getParent().getFileName().toString().equals("wal")) {
                return file;
            }
            return new ForwardingVfs.File(file) {
                @Override
                public void force() {
                    // the lie
                }

                @Override
                public void close() throws IOException {
                    file.force();
                    file.close();
                }
            };
        }

        @Override
        public VfsFile create(Path file) throws IOException {
            return lie(file, super.create(file));
        }

        @Override
        public VfsFile open(Path file) throws IOException {
            return lie(file, super.open(file));
        }

        @Override
        public void syncDirectory(Path dir) throws IOException {
            if (logFsync) {
                super.syncDirectory(dir);
            }
            // else the lie
        }
    }
}
