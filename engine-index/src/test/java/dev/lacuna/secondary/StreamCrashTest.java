package dev.lacuna.secondary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.Item;
import dev.lacuna.PutItem;
import dev.lacuna.Scan;
import dev.lacuna.StreamBatch;
import dev.lacuna.StreamConsumer;
import dev.lacuna.StreamProcessor;
import dev.lacuna.StreamRecord;
import dev.lacuna.StreamSpecification;
import dev.lacuna.StreamViewType;
import dev.lacuna.TableSpec;
import dev.lacuna.TransactWrite;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.vfs.testing.BrokenVfs;
import dev.lacuna.vfs.testing.BrokenVfs.Breakage;
import dev.lacuna.vfs.testing.BreakageRuns;
import dev.lacuna.vfs.testing.BackgroundCloser;
import dev.lacuna.vfs.testing.CrashCycles;
import dev.lacuna.vfs.testing.CrashMoment;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Power loss while stream consumers checkpoint (issue 11). Three writers make {@code SYNC} writes, each its own
 * numbered steps (a put of one of its items, every fifth step a transaction of two), while two durable consumers
 * of the table's stream follow: one driven by a {@link StreamProcessor} (the handler is called, then the
 * checkpoint commits), one by the test's own {@code poll}/{@code commit} loop. At a random moment — or, in half
 * the cycles, while one consumer holds a batch it has polled and not yet recorded — the file system is cloned as
 * a power loss would leave it, the database reopened on the clone, and the consumers reopened by name.
 *
 * <p>Each consumer's model checks what it is delivered, writer by writer: the steps must come in order, each
 * transaction's two records adjacent (same LSN, nothing between them); a record after the expected one is a
 * <em>gap</em>, one before it is <em>out of order</em> — except right after a crash, where the consumer resumes
 * from its durable checkpoint and may deliver again what it had handled (counted as duplicates, allowed). What the
 * model records is cut at the crash: a delivery the old process makes after the clone never happened in the
 * crashed world. After each reopen every consumer must catch up with every step recovered and every step
 * acknowledged before the crash (one acknowledged but missing is a gap too), and deliver a <em>fence</em>, an item
 * written after the reopen: only then has it passed every record it may deliver again, and only then does the model
 * stop allowing redeliveries. Cycles chain on one file system for
 * {@value #LINEAGE} crashes, then start afresh. Knobs: {@code -Dstream.crash.cycles=N}, {@code -Dstream.crash.seed=S},
 * {@code -Dstream.crash.resume.delay.ms=D} (the runner's first batch after each reopen waits D ms: a model that
 * stopped allowing redeliveries before the fence was delivered fails with it, e.g. seed 116, 200 cycles, D = 200).
 *
 * <p>{@link #shouldFailWhenACheckpointIsSavedBeforeTheRecordsAreHandled} shows the check is not vacuous: a
 * consumer that commits before it handles loses records at a crash, and the run must count gaps; and
 * {@link #shouldFailOnABrokenFileSystem} that the suite fails on each broken file system of the crash suites.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class) // the mutation line prints after the summary
class StreamCrashTest {
    private static final Path DIR = IndexEquivalenceTest.DIR;
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String TABLE = "Events";
    private static final int WRITERS = 3;
    /** Items per writer that its plain steps cycle through (a transaction also writes its item "T"). */
    private static final int ITEMS = 5;
    private static final int LINEAGE = 25;
    private static final int MAX_ACKS = 30;
    private static final String[] CONSUMERS = {"runner", "poller"};
    /** {@link Breakage#LOG_WRITES_FAIL}'s N: log writes before the put path throws (past the table's creation). */
    private static final int FAIL_AFTER = 60;

    /** Whether writer step {@code n} is a transaction (two items, one log record). */
    static boolean transaction(long n) {
        return n % 5 == 4;
    }

    /** Event ordinal: step n's plain put is 2n, a transaction's second item 2n + 1. */
    static long ordinal(long n, int part) {
        return 2 * n + part;
    }

    /** The event that follows {@code ordinal} in a writer's history. */
    static long successor(long ordinal) {
        long n = ordinal / 2;
        return ordinal % 2 == 0 && transaction(n) ? ordinal + 1 : ordinal(n + 1, 0);
    }

    /** The first event after step {@code n} (or the first event, for n = -1). */
    static long after(long n) {
        return ordinal(n + 1, 0);
    }

    /** Events in [from, to): how many a consumer missed when it jumped from {@code from} to {@code to}. */
    static long events(long from, long to) {
        long count = 0;
        for (long e = from; e < to; e = successor(e)) {
            count++;
        }
        return count;
    }

    private static final class Totals {
        int cycles;
        long gaps;
        long outOfOrder;
        long duplicates;
        long delivered;
        long acked;
        int handlerCrashes;
        final List<String> problems = Collections.synchronizedList(new ArrayList<>());

        void problem(String p) {
            if (problems.size() < 10) {
                problems.add(p);
            }
        }
    }

    /** What one consumer was delivered, checked writer by writer. Guarded by itself. */
    private static final class Model {
        final String name;
        final long[] expected = new long[WRITERS]; // the next event ordinal per writer
        final boolean[] resuming = new boolean[WRITERS];
        long fence = -1; // the newest fence delivered
        final Totals totals;

        Model(String name, Totals totals) {
            this.name = name;
            this.totals = totals;
        }

        synchronized void crashed() {
            java.util.Arrays.fill(resuming, true);
        }

        /** Caught up after a crash: from now on every record must be the next one (no more redeliveries). */
        synchronized void resumed() {
            java.util.Arrays.fill(resuming, false);
        }

        synchronized void accept(List<StreamRecord> records, String where) {
            for (int i = 0; i < records.size(); i++) {
                StreamRecord r = records.get(i);
                Item item = r.newImage();
                if (item == null) {
                    totals.problem(where + ": " + name + " got a record without its new image: " + r);
                    continue;
                }
                if (item.get("fence") != null) {
                    fence = Math.max(fence, ((AttributeValue.N) item.get("fence")).value().longValueExact());
                    continue;
                }
                int w = ((AttributeValue.N) item.get("w")).value().intValueExact();
                long n = ((AttributeValue.N) item.get("seq")).value().longValueExact();
                boolean second = ((AttributeValue.S) item.get("pk")).value().endsWith("-T");
                long ordinal = ordinal(n, second ? 1 : 0);
                if (!second && transaction(n)) { // its pair must follow at once, in the same log record
                    StreamRecord next = i + 1 < records.size() ? records.get(i + 1) : null;
                    if (next == null || next.lsn() != r.lsn() || !((AttributeValue.S) next.keys().get("pk")).value()
                            .equals("W" + w + "-T")) {
                        totals.outOfOrder++;
                        totals.problem(where + ": " + name + ": transaction " + w + "/" + n + " not adjacent: " + next);
                    }
                }
                totals.delivered++;
                if (resuming[w]) {
                    resuming[w] = false;
                    if (ordinal > expected[w]) {
                        gap(w, ordinal, where + " (resuming)");
                    } else if (ordinal < expected[w]) {
                        totals.duplicates += events(ordinal, expected[w]);
                    }
                } else if (ordinal > expected[w]) {
                    gap(w, ordinal, where);
                } else if (ordinal < expected[w]) {
                    totals.outOfOrder++;
                    totals.problem(where + ": " + name + ": writer " + w + " event " + ordinal + " after "
                            + (expected[w] - 1));
                    continue;
                }
                expected[w] = successor(ordinal);
            }
            notifyAll();
        }

        private void gap(int w, long ordinal, String where) {
            totals.gaps += events(expected[w], ordinal);
            totals.problem(where + ": " + name + ": writer " + w + " jumped from event " + expected[w] + " to " + ordinal);
        }

        /**
         * Waits until every writer's events up to {@code target[w]} (exclusive) and fence {@code fence} were
         * delivered; false on timeout. The targets alone are not enough after a crash: the consumer may have been
         * delivered them all before it (its checkpoint not yet durable), and would then be delivered them again.
         */
        synchronized boolean await(long[] target, long fence, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                boolean done = this.fence >= fence;
                for (int w = 0; w < WRITERS; w++) {
                    done &= expected[w] >= target[w];
                }
                if (done) {
                    return true;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                wait(Math.max(1, left / 1_000_000));
            }
        }
    }

    /**
     * The crashed world: what the models record is cut when the clone is taken. A consumer records a batch under
     * the read lock and only {@link CrashMoment#before() before} the crash; the crash takes the write lock.
     */
    private static final class World {
        final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
        final CrashMoment crash = new CrashMoment();
        /** Set once the clone is taken: a consumer's failure after it is the old process's end, not an error. */
        volatile boolean crashed;
        /**
         * Armed: consumer 0 (the processor's handler) or 1 (the poller) asks for the crash while it holds a batch
         * it has not recorded; -1: disarmed.
         */
        final java.util.concurrent.atomic.AtomicInteger armed = new java.util.concurrent.atomic.AtomicInteger(-1);
        final CountDownLatch crashRequested = new CountDownLatch(1);
        final CountDownLatch crashTaken = new CountDownLatch(1);

        void record(Model model, List<StreamRecord> records, String where) {
            lock.readLock().lock();
            try {
                if (crash.before()) {
                    model.accept(records, where);
                }
            } finally {
                lock.readLock().unlock();
            }
        }

        /** Called by consumer {@code consumer} holding a batch: if the crash was armed for it, waits it out. */
        void holding(int consumer) throws InterruptedException {
            if (armed.compareAndSet(consumer, -1)) {
                crashRequested.countDown();
                crashTaken.await(); // power fails while the consumer holds this batch
            }
        }

        MemVfs crash(BrokenVfs vfs, Random random) throws Exception {
            lock.writeLock().lock();
            try {
                MemVfs clone = crash.take(vfs, random.nextBoolean() ? random : null);
                crashed = true;
                return clone;
            } finally {
                lock.writeLock().unlock();
                crashTaken.countDown();
            }
        }
    }

    @Test
    @Order(1)
    void shouldDeliverEveryAcknowledgedChangeInOrderAfterPowerLoss() throws Exception {
        CrashCycles run = crashCycles();
        int cycles = run.cycles();
        Totals totals = CrashCycles.print(run(run, false, Breakage.NONE), t -> List.of(
                "stream crash cycles: " + t.cycles + ", gaps: " + t.gaps + ", out of order: " + t.outOfOrder,
                "(records delivered " + t.delivered + ", delivered again after a crash " + t.duplicates
                        + ", acknowledged steps " + t.acked + ", crashes while a consumer held a batch "
                        + t.handlerCrashes + ")"));
        assertThat(totals.problems).as("replay with -Dstream.crash.seed=S").isEmpty();
        assertThat(totals.gaps).isZero();
        assertThat(totals.outOfOrder).isZero();
        assertThat(totals.cycles).isEqualTo(cycles);
        assertThat(totals.acked).isPositive();
        assertThat(totals.delivered).isGreaterThanOrEqualTo(totals.acked);
        if (cycles >= 20) {
            assertThat(totals.duplicates).as("deliveries again across a crash").isPositive();
            assertThat(totals.handlerCrashes).as("crashes while a consumer held a batch").isPositive();
        }
    }

    /**
     * A consumer that commits its checkpoint before it has recorded what it polled (the poller, broken on purpose:
     * the user's mistake the processor is built to avoid) loses records across a crash: the run must count gaps.
     */
    @Test
    @Order(2)
    void shouldFailWhenACheckpointIsSavedBeforeTheRecordsAreHandled() throws Exception {
        int maxCycles = crashCycles().mutationCycles(20);
        int cycles = 0;
        String outcome = null;
        for (long seed = 11L; outcome == null && cycles < maxCycles; seed++) {
            cycles++;
            Totals t = run(new CrashCycles(null, 1, seed), true, Breakage.NONE);
            if (t.gaps + t.outOfOrder > 0 || !t.problems.isEmpty()) {
                outcome = "stream crash cycles: " + t.cycles + ", gaps: " + t.gaps + ", out of order: " + t.outOfOrder
                        + (t.problems.isEmpty() ? "" : " (e.g. " + t.problems.get(0) + ")");
            }
        }
        System.out.println("stream crash with a consumer that commits before it handles: " + (outcome == null
                ? "NOT caught in " + cycles + " cycles" : "caught in cycle " + cycles + ": " + outcome));
        assertThat(outcome).as("committing before handling must show as gaps within %d cycles", maxCycles).isNotNull();
    }

    private static DatabaseOptions options(BrokenVfs vfs, boolean tiny) {
        DatabaseOptions.Builder b = DatabaseOptions.builder().vfs(vfs).durability(Durability.SYNC);
        if (tiny) {
            b.storage(KvOptions.builder().memtableBytes(8192).memoryBudget(64 * 1024).targetFileBytes(8192)
                    .levelBaseBytes(32 * 1024).maxManifestBytes(4096).build());
        }
        return b.build();
    }

    /**
     * On each broken file system ({@link BrokenVfs.Breakage}) the suite must fail within a few cycles: lose or
     * reorder deliveries, or stop with an error. Prints {@code mutations caught: N of N}, as the other crash suites.
     */
    @Test
    @Order(3)
    void shouldFailOnABrokenFileSystem() {
        BreakageRuns.Result result = crashCycles().breakages(20,
                (breakage, cycle) -> {
                    // One short crash cycle replaces no file: CURRENT is first replaced by the reopen after the
                    // crash (each open starts a new manifest), so a non-atomic rename needs a second crash.
                    Totals t = run(new CrashCycles(null, breakage == Breakage.RENAME_NOT_ATOMIC ? 2 : 1, 20L + cycle),
                            false, breakage);
                    return t.gaps + t.outOfOrder == 0 && t.problems.isEmpty() ? null : "gaps: " + t.gaps
                            + ", out of order: " + t.outOfOrder + (t.problems.isEmpty() ? "" : " (e.g. " + t.problems.get(0) + ")");
                });
        assertThat(result.caught()).as("%s", result.outcomes()).isEqualTo(result.of());
    }

    /**
     * The run: {@code -Dstream.crash.cycles} (quick size 200), {@code -Dstream.crash.seed} (lineage i runs from
     * S + i), {@code -Dstream.crash.mutation.cycles}.
     */
    private static CrashCycles crashCycles() {
        return CrashCycles.fromProperties("stream.crash", 200, 11L);
    }

    /**
     * {@code cycles}' lineages. {@code commitFirst}: the poller commits before it records (a broken consumer, for the
     * mutation test); {@code breakage}: the file system's ({@link Breakage#NONE} for the honest runs).
     */
    private Totals run(CrashCycles cycles, boolean commitFirst, Breakage breakage) throws Exception {
        try (BackgroundCloser closer = new BackgroundCloser(breakage != Breakage.NONE)) {
            return cycles.runLineages(LINEAGE, new Totals(),
                    (seed, n, totals) -> runLineage(seed, n, totals, closer, breakage, commitFirst));
        }
    }

    private void runLineage(long seed, int cycles, Totals totals, BackgroundCloser closer, Breakage breakage,
                            boolean commitFirst) throws Exception {
        Random random = new Random(seed);
        boolean tiny = seed % 2 == 0;
        BrokenVfs vfs = new BrokenVfs(new MemVfs(), breakage, FAIL_AFTER);
        long[] next = new long[WRITERS]; // each writer's next step
        Model[] models = {new Model(CONSUMERS[0], totals), new Model(CONSUMERS[1], totals)};
        Database db = Database.open(DIR, options(vfs, tiny));
        try {
            db.createTable(TableSpec.builder(TABLE).partitionKey("pk", AttributeValue.Type.S).partitions(4)
                    .streamSpecification(StreamSpecification.enabled(random.nextBoolean() ? StreamViewType.NEW_IMAGE
                            : StreamViewType.NEW_AND_OLD_IMAGES)).build());
            for (int c = 0; c < cycles; c++) {
                totals.cycles++;
                String where = "seed " + seed + ", cycle " + c;
                long[] start = next.clone();
                World world = new World();
                Consumers consumers = new Consumers(db, models, world, where, commitFirst);
                Writers writers = new Writers(db, next, random.nextInt(MAX_ACKS) + 1);
                MemVfs crashed;
                long[] acked;
                try {
                    boolean reached = writers.acks.await(60, TimeUnit.SECONDS);
                    assertThat(reached).as("writers acknowledged at %s: %s", where, writers.failures).isTrue();
                    int mode = commitFirst ? 1 : random.nextInt(4); // 0, 1: crash while that consumer holds a batch
                    if (mode < 2) {
                        world.armed.set(mode);
                        if (world.crashRequested.await(10, TimeUnit.SECONDS)) {
                            totals.handlerCrashes++;
                        }
                    }
                    acked = writers.ackedNow(); // read before the clone: all of it must survive
                    crashed = world.crash(vfs, random);
                } finally {
                    writers.stop();
                    consumers.stop();
                }
                assertThat(writers.failures).as("writer failures at %s", where).isEmpty();
                assertThat(consumers.failures).as("consumer failures at %s", where).isEmpty();
                for (int w = 0; w < WRITERS; w++) {
                    totals.acked += acked[w] - start[w];
                }
                closer.closeLater(db);
                vfs = new BrokenVfs(crashed, breakage, FAIL_AFTER);
                db = Database.open(DIR, options(vfs, tiny));
                long[] recovered = recoveredSteps(db);
                long[] target = new long[WRITERS];
                for (int w = 0; w < WRITERS; w++) {
                    if (recovered[w] >= next[w]) {
                        totals.problem(where + ": writer " + w + " step " + recovered[w] + " recovered but never written");
                    }
                    if (acked[w] - 1 > recovered[w]) { // acknowledged, lost: no consumer can ever see it
                        long missing = events(after(recovered[w]), after(acked[w] - 1));
                        totals.gaps += missing;
                        totals.problem(where + ": writer " + w + " steps " + (recovered[w] + 1) + " to " + (acked[w] - 1)
                                + " acknowledged but not recovered");
                    }
                    target[w] = after(recovered[w]);
                    next[w] = recovered[w] + 1; // what is there now is where the writer goes on
                }
                for (Model m : models) {
                    m.crashed();
                }
                // Written after everything recovered: a consumer delivered it has delivered again all it will.
                db.putItem(TABLE, new PutItem(Item.builder().s("pk", "F").n("fence", c).build()));
                // The consumers resume from their durable checkpoints and must catch up with what was recovered.
                World calm = new World();
                Consumers resumed = new Consumers(db, models, calm, where + ", after the crash", commitFirst);
                try {
                    for (Model m : models) {
                        if (!m.await(target, c, WAIT)) {
                            synchronized (m) {
                                if (m.fence < c) {
                                    totals.problem(where + ": " + m.name + " never got fence " + c);
                                }
                                for (int w = 0; w < WRITERS; w++) {
                                    if (m.expected[w] < target[w]) {
                                        totals.gaps += events(m.expected[w], target[w]);
                                        totals.problem(where + ": " + m.name + " never got writer " + w + "'s events "
                                                + m.expected[w] + " to " + target[w]);
                                        m.expected[w] = target[w];
                                    }
                                }
                            }
                        }
                        m.resumed();
                    }
                } finally {
                    resumed.stop();
                }
                assertThat(resumed.failures).as("consumer failures after the crash at %s", where).isEmpty();
            }
        } finally {
            closer.closeLater(db);
        }
    }

    /** Each writer's last step in the recovered table (-1 if none): the highest {@code seq} among its items. */
    private static long[] recoveredSteps(Database db) {
        long[] last = new long[WRITERS];
        java.util.Arrays.fill(last, -1);
        for (Item item : IndexChecker.scanAll(db, TABLE, new Scan())) {
            if (item.get("w") == null) {
                continue; // a fence
            }
            int w = ((AttributeValue.N) item.get("w")).value().intValueExact();
            last[w] = Math.max(last[w], ((AttributeValue.N) item.get("seq")).value().longValueExact());
        }
        return last;
    }

    /** The two consumers: one through a processor, one through the test's poll/commit loop. */
    private static final class Consumers {
        final StreamConsumer runner;
        final StreamProcessor processor;
        final StreamConsumer poller;
        final Thread pollThread;
        final AtomicBoolean stop = new AtomicBoolean();
        final List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());

        Consumers(Database db, Model[] models, World world, String where, boolean commitFirst) {
            runner = db.streamConsumer(TABLE, CONSUMERS[0]);
            long delay = Long.getLong("stream.crash.resume.delay.ms", 0);
            AtomicBoolean first = new AtomicBoolean(true);
            processor = runner.start(records -> {
                if (delay > 0 && where.endsWith("after the crash") && first.getAndSet(false)) {
                    Thread.sleep(delay); // the test thread checks the model before the runner redelivers anything
                }
                world.holding(0);
                world.record(models[0], records, where);
            }, 1 + Math.abs(where.hashCode() % 16));
            poller = db.streamConsumer(TABLE, CONSUMERS[1]);
            pollThread = new Thread(() -> {
                try {
                    while (!stop.get()) {
                        StreamBatch batch = poller.poll(8, Duration.ofMillis(100));
                        if (commitFirst) {
                            poller.commit(batch); // wrong: a crash before the records are handled loses them
                        }
                        if (!batch.records().isEmpty()) {
                            world.holding(1);
                        }
                        world.record(models[1], batch.records(), where);
                        if (!commitFirst) {
                            poller.commit(batch);
                        }
                    }
                } catch (Throwable t) {
                    if (!world.crashed) {
                        failures.add(t);
                    }
                }
            }, "stream-crash-poller");
            pollThread.start();
        }

        void stop() throws InterruptedException {
            stop.set(true);
            pollThread.join(TimeUnit.SECONDS.toMillis(60));
            assertThat(pollThread.isAlive()).as("the poller hangs").isFalse();
            processor.close();
            if (processor.failure() != null) {
                failures.add(processor.failure());
            }
            runner.close();
            poller.close();
        }
    }

    /**
     * Writer threads: writer w runs its steps from {@code next[w]} on, each a {@code SYNC} put of item
     * {@code W<w>-<n % ITEMS>} (or, every fifth step, a transaction putting that item and {@code W<w>-T}), each
     * item holding the step number; {@link #acks} opens after {@code target} acknowledged steps.
     */
    private static final class Writers {
        final CountDownLatch acks;
        final long[] next;
        final AtomicLongArray acked = new AtomicLongArray(WRITERS);
        final AtomicBoolean stop = new AtomicBoolean();
        final List<Thread> threads = new ArrayList<>();
        final List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());

        Writers(Database db, long[] next, int target) {
            this.next = next;
            this.acks = new CountDownLatch(target);
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                acked.set(w, next[w]);
                Thread t = new Thread(() -> {
                    try {
                        while (!stop.get()) {
                            long n = next[writer]++;
                            Item item = step(writer, n, "W" + writer + "-" + (n % ITEMS));
                            if (transaction(n)) {
                                db.transactWriteItems(List.of(new TransactWrite(TABLE, new PutItem(item)),
                                        new TransactWrite(TABLE, new PutItem(step(writer, n, "W" + writer + "-T")))));
                            } else {
                                db.putItem(TABLE, new PutItem(item));
                            }
                            acked.set(writer, n + 1);
                            acks.countDown();
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                        while (acks.getCount() > 0) {
                            acks.countDown();
                        }
                    }
                }, "stream-crash-writer-" + w);
                threads.add(t);
                t.start();
            }
        }

        static Item step(int writer, long n, String pk) {
            return Item.builder().s("pk", pk).n("w", writer).n("seq", n).build();
        }

        /** Steps acknowledged per writer: steps 0 .. acked-1. */
        long[] ackedNow() {
            long[] a = new long[WRITERS];
            for (int w = 0; w < WRITERS; w++) {
                a[w] = acked.get(w);
            }
            return a;
        }

        void stop() throws InterruptedException {
            stop.set(true);
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(60));
                assertThat(t.isAlive()).as("%s hangs", t.getName()).isFalse();
            }
        }
    }
}
