package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.storage.Durability;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.FaultyVfs;
import dev.lacuna.vfs.FaultyVfs.Op;
import dev.lacuna.vfs.MemVfs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A double fault in the grouped write: the group's write fails (torn: whole records of it reach the file), and the
 * cut that should take what it left back out fails too, in its truncate or in the truncate's fsync. Until the log's
 * repair, a crash may then replay records of the group, so its writers, and the writers queued behind it, must be
 * told that the outcome is unknown, not that the write failed ({@link Wal#write(ReservedRecord)}); the log fails,
 * so the next append repairs it (or is refused while the disk still fails); a crash at any point recovers an
 * LSN-contiguous prefix of what was written, every record whole, and every record acknowledged durable; and the
 * repair writes again what the failed fsync may have dropped before it seals the segment.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class GroupWriteCutFailureTest {
    private static final Path DIR = Path.of("/db/wal");
    /** As {@link WalGroupWriteTest}'s: the segment preallocated whole, so a group's write is its only write. */
    private static final WalOptions OPTIONS = WalOptions.defaults().withBlockSize(128).withSegmentSize(4096)
            .withPreallocate(4096);
    /** What {@link Wal} says, and only says, when cutting a failed write from the segment failed as well. */
    private static final String UNKNOWN = "whether it took effect is unknown";
    private static final int CRASH_SEEDS = 64;

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void tearDown() throws InterruptedException {
        threads.shutdownNow();
        assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }

    /**
     * The cut's truncate fails, and keeps failing through the first repair: the torn group stays in the file, a crash
     * may replay part of it, the writers hear "unknown", appends are refused until the disk works, then repaired.
     */
    @Test
    void shouldTellTheOutcomeIsUnknownWhenTheCutsTruncateFails() throws Exception {
        MemVfs disk = new MemVfs();
        FaultyVfs faulty = new FaultyVfs(disk);
        byte[][] p = WalGroupWriteTest.payloads(6);
        WalGroupWriteTest.Hook hook = new WalGroupWriteTest.Hook(faulty);
        try (Wal wal = Wal.open(hook, DIR, OPTIONS)) {
            wal.append(p[0], Durability.SYNC);
            failTornGroupWithAWriterQueuedBehind(wal, hook, faulty, p, () -> faulty.failFrom(Op.TRUNCATE, 1),
                    "injected failure: TRUNCATE #1");
            assertThat(wal.lastLsn()).as("the group's LSNs are handed out again").isEqualTo(1);
            assertThat(WalTest.readAll(wal, 1)).extracting(WalRecord::payload).containsExactly(p[0]);
            assertCrashesRecoverAPrefixReplayingSomeOfTheGroup(disk, p[0], p[1], p[2], p[3]);

            // The log failed: while the disk still cannot truncate, the repair fails and the append is refused.
            assertThatThrownBy(() -> wal.append(p[5], Durability.SYNC)).isInstanceOf(StorageIOException.class)
                    .hasMessageContaining("refuses appends: recovering from an I/O error failed");
            assertThat(wal.lastLsn()).isEqualTo(1);
            assertCrashesRecoverAPrefixReplayingSomeOfTheGroup(disk, p[0], p[1], p[2], p[3]);

            faulty.heal();
            assertThat(wal.append(p[5], Durability.SYNC)).as("repaired: no hole after the group").isEqualTo(2);
            assertThat(wal.segmentCount()).as("the repair sealed the segment and began another").isEqualTo(2);
            assertThat(WalTest.readAll(wal, 1)).extracting(WalRecord::payload).containsExactly(p[0], p[5]);
            WalGroupWriteTest.assertReopensWith(disk.crashClone(), p[0], p[5]);
        }
        WalGroupWriteTest.assertReopensWith(disk, p[0], p[5]);
    }

    /**
     * The cut's truncate succeeds, its fsync fails: the truncate may be lost and the torn group's pages written back
     * (a failed fsync leaves them dirty), so a crash may replay part of the group: its writers hear "unknown".
     */
    @Test
    void shouldTellTheOutcomeIsUnknownWhenTheCutsFsyncFails() throws Exception {
        MemVfs disk = new MemVfs();
        FaultyVfs faulty = new FaultyVfs(disk);
        byte[][] p = WalGroupWriteTest.payloads(6);
        WalGroupWriteTest.Hook hook = new WalGroupWriteTest.Hook(faulty);
        try (Wal wal = Wal.open(hook, DIR, OPTIONS)) {
            wal.append(p[0], Durability.SYNC);
            long truncates = faulty.count(Op.TRUNCATE);
            failTornGroupWithAWriterQueuedBehind(wal, hook, faulty, p, () -> faulty.failNth(Op.FORCE, 1),
                    "injected failure: FORCE #1");
            assertThat(faulty.count(Op.TRUNCATE)).as("the cut's truncate ran").isEqualTo(truncates + 1);
            assertThat(wal.lastLsn()).isEqualTo(1);
            assertThat(WalTest.readAll(wal, 1)).extracting(WalRecord::payload).containsExactly(p[0]);
            assertCrashesRecoverAPrefixReplayingSomeOfTheGroup(disk, p[0], p[1], p[2], p[3]);

            assertThat(wal.append(p[5], Durability.SYNC)).as("the next append repairs the log").isEqualTo(2);
            assertThat(wal.segmentCount()).as("the repair sealed the segment and began another").isEqualTo(2);
            WalGroupWriteTest.assertReopensWith(disk.crashClone(), p[0], p[5]);
        }
        WalGroupWriteTest.assertReopensWith(disk, p[0], p[5]);
    }

    /**
     * The cut's fsync fails and, as on Linux, takes the segment's unsynced pages with it (they read back, but no
     * later fsync writes them): here a record written before the group and acknowledged. The repair must write it
     * again before it seals the segment and counts it durable, so that a crash after the repair keeps it.
     */
    @Test
    void shouldRewriteWhatTheFailedCutFsyncDroppedBeforeSealing() {
        MemVfs disk = new MemVfs();
        FaultyVfs faulty = new FaultyVfs(disk);
        faulty.failedForceDropsWrites(true);
        byte[][] p = WalGroupWriteTest.payloads(5);
        try (Wal wal = Wal.open(faulty, DIR, OPTIONS)) {
            wal.append(p[0], Durability.SYNC);
            assertThat(wal.append(p[1], Durability.NONE)).as("written, not yet durable").isEqualTo(2);
            ReservedRecord a = wal.reserve(p[2], 0, p[2].length, Durability.NONE);
            ReservedRecord b = wal.reserve(p[3], 0, p[3].length, Durability.NONE);
            faulty.failNth(Op.WRITE, 1);
            faulty.failNth(Op.FORCE, 1);
            assertToldUnknown(() -> wal.write(a), "injected failure: FORCE #1");
            assertToldUnknown(() -> wal.write(b), "injected failure: FORCE #1");
            WalGroupWriteTest.assertReopensWith(disk.crashClone(), p[0]); // the second record's pages are gone

            assertThat(wal.append(p[4], Durability.SYNC)).isEqualTo(3);
            assertThat(wal.segmentCount()).isEqualTo(2);
            WalGroupWriteTest.assertReopensWith(disk.crashClone(), p[0], p[1], p[4]);
        }
        WalGroupWriteTest.assertReopensWith(disk, p[0], p[1], p[4]);
    }

    /**
     * Reserves {@code p[1..3]} (a group), holds the first's write in the file system while {@code p[4]} is reserved
     * behind it and its writer waits, arms a torn write and {@code armCutFailure}, lets the write go, and checks that
     * all four writers are told the outcome is unknown because of {@code cutFailure}.
     */
    private void failTornGroupWithAWriterQueuedBehind(Wal wal, WalGroupWriteTest.Hook hook, FaultyVfs faulty,
                                                      byte[][] p, Runnable armCutFailure, String cutFailure)
            throws Exception {
        ReservedRecord a = wal.reserve(p[1], 0, p[1].length, Durability.NONE);
        ReservedRecord b = wal.reserve(p[2], 0, p[2].length, Durability.NONE);
        ReservedRecord c = wal.reserve(p[3], 0, p[3].length, Durability.NONE);
        CountDownLatch inWrite = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        hook.arm(() -> {
            inWrite.countDown();
            WalGroupWriteTest.awaitQuietly(release);
        });
        faulty.failOperation(1, FaultyVfs.Fault.TORN_WRITE); // the group's write: half its bytes land, then it fails
        armCutFailure.run();
        Future<?> leader = threads.submit(() -> {
            wal.write(a);
            return null;
        });
        inWrite.await();
        ReservedRecord d = wal.reserve(p[4], 0, p[4].length, Durability.NONE);
        Thread[] followerThread = new Thread[1];
        Future<?> follower = threads.submit(() -> {
            followerThread[0] = Thread.currentThread();
            wal.write(d);
            return null;
        });
        WalGroupWriteTest.awaitWaitingForTheGroup(follower, () -> followerThread[0]);
        release.countDown();
        // The queued record's bytes never reached the file, but the log tells every record it cuts one outcome
        // (WriteGroup.cutAll): for that writer "unknown" is the cautious answer, never a wrong one.
        assertToldUnknown(() -> getOrThrowCause(leader), cutFailure);
        assertToldUnknown(() -> wal.write(b), cutFailure);
        assertToldUnknown(() -> wal.write(c), cutFailure);
        assertToldUnknown(() -> getOrThrowCause(follower), cutFailure);
    }

    /**
     * The "unknown" error, not the plain failure: a {@link StorageIOException} saying the outcome is unknown, caused
     * by the group's write failure, with the cut's failure attached.
     */
    private static void assertToldUnknown(ThrowingCallable write, String cutFailure) {
        assertThatThrownBy(write).isInstanceOf(StorageIOException.class)
                .hasMessageContaining(UNKNOWN)
                .satisfies(e -> {
                    Throwable told = e.getCause();
                    assertThat(told).isInstanceOf(IOException.class).hasMessageContaining(UNKNOWN);
                    assertThat(told.getCause()).as("the group's write failure").isInstanceOf(IOException.class)
                            .hasMessageStartingWith("injected failure");
                    assertThat(told.getSuppressed()).as("the cut's failure").singleElement()
                            .satisfies(s -> assertThat(s).hasMessageStartingWith(cutFailure));
                });
    }

    /**
     * Crashes the disk as it is now, in every way {@link MemVfs#crashClone(Random)} draws for {@value #CRASH_SEEDS}
     * seeds and strictly ({@link MemVfs#crashClone()}): each recovers {@code written[0]} (acknowledged durable) and a
     * prefix of the rest, whole records with LSNs from 1; the strict crash only what was synced; and some crash
     * replays a record of the group, which is why its writers cannot be told it failed. A group need not come back
     * whole: the torn write landed only its first record whole, and a crash may keep that one alone.
     */
    private static void assertCrashesRecoverAPrefixReplayingSomeOfTheGroup(MemVfs disk, byte[]... written) {
        int replaying = 0;
        for (int seed = 0; seed < CRASH_SEEDS; seed++) {
            List<WalRecord> got = recovered(disk.crashClone(new Random(seed)));
            assertThat(got.size()).as("crash seed %d: records recovered", seed).isBetween(1, written.length);
            for (int i = 0; i < got.size(); i++) {
                assertThat(got.get(i).lsn()).as("crash seed %d: LSN of record %d", seed, i).isEqualTo(i + 1);
                assertThat(got.get(i).payload()).as("crash seed %d: record %d whole", seed, i).isEqualTo(written[i]);
            }
            if (got.size() > 1) {
                replaying++;
            }
        }
        assertThat(recovered(disk.crashClone())).extracting(WalRecord::payload).as("a strict crash keeps the synced")
                .containsExactly(written[0]);
        assertThat(replaying).as("crash states (of %d) replaying a record of the group", CRASH_SEEDS).isPositive();
    }

    private static List<WalRecord> recovered(MemVfs crashed) {
        try (Wal wal = Wal.open(crashed, DIR, OPTIONS)) {
            return WalTest.readAll(wal, 1);
        }
    }

    private static void getOrThrowCause(Future<?> f) throws Throwable {
        try {
            f.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause();
        }
    }
}
