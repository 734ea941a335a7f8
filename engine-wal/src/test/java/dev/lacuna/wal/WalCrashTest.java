package dev.lacuna.wal;

import dev.lacuna.storage.WalOptions;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.testing.BrokenVfs;
import dev.lacuna.vfs.testing.BrokenVfs.Breakage;
import dev.lacuna.vfs.testing.BreakageRuns;
import dev.lacuna.vfs.testing.CrashCycles;
import dev.lacuna.vfs.testing.CrashMoment;
import dev.lacuna.vfs.testing.HeldLogForce;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Power loss under concurrent group commit: four {@code SYNC} writers append to a log on {@link MemVfs};
 * at a random moment the file system is cloned as a power loss would leave it (unsynced bytes dropped or
 * torn, unsynced directory changes possibly reverted), and the log is reopened on the clone. The
 * recovered log must be a gap-free prefix of what was appended and hold every record acknowledged before
 * the crash; a writer that fails before the crash fails the test. A reader tails the log beside the
 * writers, as the index updater does: every record it read must be recovered with the same bytes (if
 * recovered at all), and every record it read at or below {@link Wal#durableLsn()} — the log's claim, on
 * which the store makes {@code SYNC} writes visible — must be recovered. Half the cycles crash while a group
 * commit's fsync is held (blocked), once the reader has read what the held leader published: the moment at which a log
 * that claimed durability too early would be caught. Cycles: {@code -Dwal.crash.cycles=N}
 * (default 1,000). {@link #shouldFailOnABrokenFileSystem} shows the check is not vacuous: short runs on
 * each {@link BrokenVfs.Breakage} that concerns the log (all but the non-atomic rename: the log renames
 * nothing) must fail.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class) // the mutation line prints after the summary
class WalCrashTest {
    private static final Path DIR = Path.of("/db/wal");
    private static final int WRITERS = 4;

    /** A writer's n-th payload: its identity and a length both derived from (writer, n), so survivors can be checked. */
    static byte[] payload(int writer, int n) {
        Random r = new Random(writer * 1_000_003L + n);
        byte[] b = new byte[8 + r.nextInt(300)];
        r.nextBytes(b);
        b[0] = (byte) writer;
        b[1] = (byte) (n >>> 16);
        b[2] = (byte) (n >>> 8);
        b[3] = (byte) n;
        return b;
    }

    /** The run: {@code -Dwal.crash.cycles} (quick size 1,000), {@code -Dwal.crash.seed}, {@code -Dwal.crash.mutation.cycles}. */
    private static CrashCycles crashCycles() {
        return CrashCycles.fromProperties("wal.crash", 1000, 20261129L);
    }

    /** The cycles' counts, summed from each cycle's {@link CycleResult}. */
    private static final class Totals {
        long lost;
        long recoveredRecords;
        long readsChecked;
        long seenLost;
        long readDifferently;
    }

    @Test
    @Order(1)
    void shouldKeepEveryAcknowledgedRecordThroughPowerLoss() {
        CrashCycles run = crashCycles();
        Totals totals = run.run(new Totals(), (seed, cycle, t) -> {
            CycleResult result = runCycle(seed, Breakage.NONE);
            t.lost += result.lost;
            t.recoveredRecords += result.recovered;
            t.readsChecked += result.readsChecked;
            t.seenLost += result.seenLost;
            t.readDifferently += result.readDifferently;
        }, t -> List.of("wal crash cycles: " + run.cycles() + ", lost acknowledged: " + t.lost,
                "wal crash recovered records: " + t.recoveredRecords,
                "wal crash reads checked: " + t.readsChecked + ", visible then lost: " + t.seenLost
                        + ", read differently: " + t.readDifferently));
        assertThat(totals.lost).isZero();
        assertThat(totals.seenLost).as("records read as durable and not recovered").isZero();
        assertThat(totals.readDifferently).as("records read with other bytes than recovered").isZero();
        assertThat(totals.readsChecked).as("reads checked").isPositive();
    }

    /**
     * Each breakage under a short run (cycles until one fails, at most {@code -Dwal.crash.mutation.cycles},
     * default 40): the run must fail, by losing an acknowledged record or by a failing check.
     * {@link Breakage#RENAME_NOT_ATOMIC} does not concern the log, which never renames a file: it is not run.
     */
    @Test
    @Order(2)
    void shouldFailOnABrokenFileSystem() {
        BreakageRuns.Result result = crashCycles().breakages(40,
                Map.of(Breakage.RENAME_NOT_ATOMIC, "the log never renames a file"), (breakage, cycle) -> {
                    CycleResult r = runCycle(20261128L + cycle, breakage);
                    return r.lost() + r.seenLost() + r.readDifferently() == 0 ? null : r.lost()
                            + " acknowledged records lost, " + r.seenLost() + " read as durable and lost, "
                            + r.readDifferently() + " read differently";
                });
        assertThat(result.caught()).as("%s", result.outcomes()).isEqualTo(result.of());
    }

    /** Waits up to {@code nanos} until the reader has read record {@code lsn}. */
    private static void awaitRead(AtomicLong lastRead, long lsn, long nanos) throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        synchronized (lastRead) {
            while (lastRead.get() < lsn) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                TimeUnit.NANOSECONDS.timedWait(lastRead, left);
            }
        }
    }

    /**
     * One cycle's counts: acknowledged records lost, records recovered, and of the tailing reader's records
     * read before the crash: how many were compared, read as durable yet not recovered, read with other bytes.
     */
    record CycleResult(long lost, long recovered, long readsChecked, long seenLost, long readDifferently) {
    }

    private CycleResult runCycle(long seed, Breakage breakage) throws Exception {
        Random random = new Random(seed);
        int[] blockSizes = {64, 128, 512, 4096};
        int blockSize = blockSizes[random.nextInt(blockSizes.length)];
        WalOptions options = WalOptions.defaults()
                .withBlockSize(blockSize)
                .withSegmentSize(blockSize * (1L + random.nextInt(16)))
                .withPreallocate(random.nextBoolean() ? 0 : blockSize * (1L + random.nextInt(8)));
        // The breakage's N: past the recovered-once log below, before the writers' target.
        BrokenVfs broken = new BrokenVfs(new MemVfs(), breakage, 40);
        HeldLogForce vfs = new HeldLogForce(broken);
        boolean holdAtCrash = random.nextBoolean();
        if (random.nextInt(4) == 0) { // sometimes crash a log that was already recovered once
            try (Wal wal = Wal.open(vfs, DIR, options)) {
                for (int i = 0; i < random.nextInt(20); i++) {
                    wal.append(payload(WRITERS, i), Durability.SYNC);
                }
            }
        }
        Map<Long, byte[]> acknowledged = new ConcurrentHashMap<>();
        int crashAfter = random.nextInt(200);
        CountDownLatch enoughAcks = new CountDownLatch(crashAfter);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Wal wal = Wal.open(vfs, DIR, options);
        long preexisting = wal.lastLsn();
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            int writer = w;
            Thread t = new Thread(() -> {
                for (int n = 0; !stop.get(); n++) {
                    byte[] p = payload(writer, n);
                    long lsn;
                    try {
                        lsn = wal.append(p, Durability.SYNC);
                    } catch (Throwable e) {
                        // The log is closed only after the writers stop: any failure is one, even after the target.
                        failure.compareAndSet(null, e);
                        return;
                    }
                    acknowledged.put(lsn, p);
                    enoughAcks.countDown();
                }
            }, "wal-crash-writer-" + w);
            writers.add(t);
            t.start();
        }
        // The tailing reader: each record it read, and whether the log called it durable by then.
        CrashMoment crash = new CrashMoment();
        AtomicLong lastRead = new AtomicLong(preexisting);
        Map<Long, byte[]> read = new ConcurrentHashMap<>();
        Map<Long, Boolean> readDurable = new ConcurrentHashMap<>();
        WalReader tail = wal.reader(preexisting + 1);
        Thread reader = new Thread(() -> {
            try {
                while (!stop.get()) {
                    WalRecord r = tail.next(Duration.ofMillis(5));
                    if (r == null) {
                        continue;
                    }
                    boolean durable = r.lsn() <= wal.durableLsn(); // asked after the read: the claim covers it
                    if (crash.before()) { // counted only if the clone had not begun
                        read.put(r.lsn(), r.payload());
                        readDurable.put(r.lsn(), durable);
                    }
                    synchronized (lastRead) {
                        lastRead.set(r.lsn());
                        lastRead.notifyAll();
                    }
                }
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        }, "wal-crash-reader");
        writers.add(reader);
        reader.start();
        // Until the target or a writer's failure (a writer that died must not cost the whole timeout).
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!enoughAcks.await(10, TimeUnit.MILLISECONDS) && failure.get() == null && System.nanoTime() < deadline) {
            // wait on
        }
        if (holdAtCrash && failure.get() == null) {
            vfs.hold();
            if (vfs.awaitHeld(TimeUnit.SECONDS.toNanos(5))) {
                // What the held leader published is readable; records appended after it stay pending (a roll
                // that would publish them waits for the held fsync), so waiting for those would only time out.
                awaitRead(lastRead, wal.visible().lastLsn(), TimeUnit.SECONDS.toNanos(5));
            }
        }
        Map<Long, byte[]> ackedBeforeCrash = new HashMap<>(acknowledged); // copied before the crash begins
        MemVfs crashed = crash.take(broken, random.nextInt(8) == 0 ? null : random);
        vfs.release();
        stop.set(true);
        for (Thread t : writers) {
            t.join();
        }
        tail.close();
        try {
            wal.close();
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
        }
        assertThat(failure.get()).as("writers ran without error").isNull();
        assertThat(enoughAcks.getCount()).as("writers reached %d acknowledgements", crashAfter).isZero();

        try (Wal recovered = Wal.open(crashed, DIR, options)) {
            List<WalRecord> records = WalTest.readAll(recovered, 1);
            // Gap-free: LSN i+1 at index i.
            for (int i = 0; i < records.size(); i++) {
                assertThat(records.get(i).lsn()).isEqualTo(i + 1);
            }
            // Each writer's records are its own payloads, in its order, with none skipped.
            int[] nextOf = new int[WRITERS];
            for (WalRecord r : records) {
                if (r.lsn() <= preexisting) {
                    continue;
                }
                int writer = r.payload()[0];
                assertThat(writer).isBetween(0, WRITERS - 1);
                assertThat(r.payload()).as("record %d", r.lsn()).isEqualTo(payload(writer, nextOf[writer]));
                nextOf[writer]++;
            }
            long lost = 0;
            for (Map.Entry<Long, byte[]> e : ackedBeforeCrash.entrySet()) {
                long lsn = e.getKey();
                if (lsn > records.size() || !Arrays.equals(records.get((int) lsn - 1).payload(), e.getValue())) {
                    lost++;
                }
            }
            long seenLost = 0;
            long readDifferently = 0;
            for (Map.Entry<Long, byte[]> e : read.entrySet()) {
                long lsn = e.getKey();
                if (lsn <= records.size()) {
                    if (!Arrays.equals(records.get((int) lsn - 1).payload(), e.getValue())) {
                        readDifferently++;
                    }
                } else if (readDurable.get(lsn)) {
                    seenLost++;
                }
            }
            return new CycleResult(lost, records.size(), read.size(), seenLost, readDifferently);
        }
    }
}
