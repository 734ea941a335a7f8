package dev.lacuna.secondary;

import dev.lacuna.vfs.testing.HeldLogForce;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.storage.Durability;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.KeyAttribute;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.item.KeyEncoding;
import dev.lacuna.kv.KeyspaceRouter;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.lsm.LsmStore;
import dev.lacuna.PutItem;
import dev.lacuna.GetItem;
import dev.lacuna.Key;
import dev.lacuna.Query;
import dev.lacuna.Scan;
import dev.lacuna.vfs.testing.BrokenVfs;
import dev.lacuna.vfs.testing.BrokenVfs.Breakage;
import dev.lacuna.vfs.testing.BreakageRuns;
import dev.lacuna.vfs.testing.BackgroundCloser;
import dev.lacuna.vfs.testing.CrashCycles;
import dev.lacuna.vfs.testing.CrashMoment;
import dev.lacuna.secondary.IndexEquivalenceTest.Workload;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Power loss while the GSI updaters work. Writers run the random workload ({@link Workload}, {@code SYNC}
 * writes) on a database with two GSIs and an LSI; at a random moment the file system is cloned as a power
 * loss would leave it (strictly, or with a random part of the unsynced writes), the database is reopened
 * on the clone, and once every index has caught up each must equal its recomputation from the table as
 * recovered. Cycles chain: each continues on the previous cycle's clone, so restarts replay ever longer
 * logs over index files that flushes (tiny memtables in every other lineage) left at any point. A few
 * cycles wait for the updaters' idle checkpoint before crashing, so that the restarts after them resume
 * from a checkpoint; a few restarts are clean. Knobs: {@code -Dindex.crash.cycles=N},
 * {@code -Dindex.crash.seed=S}.
 *
 * <p>The indexes are compared with their recomputation from the recovered table, which cannot see a write
 * lost from both. So each writer also puts marker items (its own keys, never deleted, a sequence number
 * each, in GSI1) between its workload steps, and an independent model of the markers acknowledged says
 * what the recovered table and GSI1 must hold: every marker up to the last acknowledged one (or the last
 * recovered one, if later: a writer starts a write only after the previous one's acknowledgement).
 * A reader beside the writers reads markers from the table (GetItem) and from GSI1 (Query) until the
 * crash: a marker it saw came from a {@code SYNC} write, visible only once durable, so the recovered table
 * must hold that marker or a later one of the same writer. Half the crashes happen while the log's
 * group-commit fsync is held ({@link HeldLogForce}), after every marker slot has been read there: a write
 * made visible before its fsync would be seen then and lost.
 * {@link #shouldFailOnABrokenFileSystem} shows the checks are not vacuous: short runs on each
 * {@link BrokenVfs.Breakage} must fail.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class) // the mutation line prints after the summary
class IndexCrashTest {
    private static final Path DIR = IndexEquivalenceTest.DIR;
    private static final Duration WAIT = IndexEquivalenceTest.WAIT;
    /** Crash cycles on one file system before starting afresh (bounds the log a restart replays). */
    private static final int LINEAGE = 30;
    /** In one lineage of this many, a cycle waits for the updaters' idle checkpoint (over 2 s) before crashing. */
    private static final int CHECKPOINT_LINEAGES = 3;
    /** Every this many cycles of a lineage, a clean close and reopen is added. */
    private static final int CLEAN_EVERY = 20;
    private static final int WRITERS = 2;
    private static final int MAX_ACKS = 120;
    /** Marker slots per writer: a marker overwrites the one {@code SLOTS} before it, so the table stays small. */
    private static final int SLOTS = 8;
    /** The breakages' N: log writes before the put path throws (past a lineage's set-up). */
    private static final int FAIL_AFTER = 80;

    /** Counters over a run, to show it exercised what it claims to. */
    private static final class Totals {
        int cycles;
        int mismatches;
        long acked;
        long flushes;
        int checkpointed;
        int clean;
        long lost;
        long markersChecked;
        long reads;
        long seenLost;
        int held;
        final List<String> problems = new ArrayList<>();

        void problem(String p) {
            if (problems.size() < 10) {
                problems.add(p);
            }
        }
    }

    /**
     * The model of one lineage's marker writes: writer {@code w} has written markers {@code 0..next[w]-1}
     * (the last possibly unacknowledged or lost), and markers {@code 0..acked[w]-1} are acknowledged.
     */
    private static final class Markers {
        final long[] next = new long[WRITERS]; // written by writer w's thread only while writers run
        final AtomicLongArray acked = new AtomicLongArray(WRITERS);

        long[] ackedNow() {
            long[] a = new long[WRITERS];
            for (int w = 0; w < WRITERS; w++) {
                a[w] = acked.get(w);
            }
            return a;
        }

        static Item item(int writer, long seq) {
            String slot = "M" + (seq % SLOTS);
            return Item.builder().s("pk", "ACK-" + writer).s("sk", slot).s("GSI1PK", "ACK#" + writer).s("GSI1SK", slot)
                    .n("seq", seq).build();
        }
    }

    /**
     * The run: {@code -Dindex.crash.cycles} (quick size 300), {@code -Dindex.crash.seed} (lineage i runs from S + i),
     * {@code -Dindex.crash.mutation.cycles}.
     */
    private static CrashCycles crashCycles() {
        return CrashCycles.fromProperties("index.crash", 300, 7L);
    }

    @Test
    @Order(1)
    void shouldRecoverEveryIndexToItsRecomputationAfterPowerLoss() throws Exception {
        CrashCycles run = crashCycles();
        int cycles = run.cycles();
        // Closing a database with GSIs waits out each updater's log poll (up to 200 ms each): the databases
        // a crash leaves behind are closed on the side rather than on the test's time.
        Totals totals;
        try (BackgroundCloser closer = new BackgroundCloser(false)) {
            totals = run.runLineages(LINEAGE, new Totals(),
                    (seed, n, t) -> runLineage(seed, n, t, closer, Breakage.NONE));
        }
        CrashCycles.print(totals, t -> List.of(
                "index crash cycles: " + t.cycles + ", index mismatches: " + t.mismatches,
                "(acknowledged writes " + t.acked + ", flushes " + t.flushes + ", crashes after a checkpoint "
                        + t.checkpointed + ", clean restarts " + t.clean + ")",
                "index crash lost acknowledged writes: " + t.lost + " (markers compared with the model,"
                        + " in the table and in GSI1: " + t.markersChecked + ")",
                "index crash reads checked: " + t.reads + ", visible then lost: " + t.seenLost
                        + " (crashes with the log's fsync held: " + t.held + ")"));
        assertThat(totals.problems).as("replay a lineage with -Dindex.crash.seed=S -Dindex.crash.cycles=%d", LINEAGE)
                .isEmpty();
        assertThat(totals.mismatches).isZero();
        assertThat(totals.lost).isZero();
        assertThat(totals.acked).isPositive();
        assertThat(totals.markersChecked).isPositive();
        assertThat(totals.seenLost).as("markers a reader saw, then lost").isZero();
        assertThat(totals.reads).as("reads checked").isPositive();
        if (cycles >= CHECKPOINT_LINEAGES * LINEAGE) {
            assertThat(totals.flushes).as("flushes").isPositive();
            assertThat(totals.checkpointed).as("crashes after an updater checkpoint").isPositive();
            assertThat(totals.clean).as("clean restarts").isPositive();
            assertThat(totals.held).as("crashes with the log's fsync held").isPositive();
        }
    }

    /**
     * Each breakage under short lineages (one crash cycle each, until one fails, at most
     * {@code -Dindex.crash.mutation.cycles}, default 15): the run must fail, by an index mismatch, a lost
     * marker, a problem or a failing check (writers that stopped early, a database that does not reopen).
     */
    @Test
    @Order(2)
    void shouldFailOnABrokenFileSystem() throws Exception {
        BreakageRuns.Result result;
        // A database on a broken file system may fail to close: the breakage was the point.
        try (BackgroundCloser closer = new BackgroundCloser(true)) {
            result = crashCycles().breakages(15, (breakage, cycle) -> {
                Totals totals = new Totals();
                runLineage(mutationSeed(cycle), 1, totals, closer, breakage);
                return totals.lost + totals.mismatches + totals.seenLost == 0 && totals.problems.isEmpty() ? null
                        : totals.lost + " lost, " + totals.mismatches + " index mismatches, " + totals.seenLost
                        + " seen then lost" + (totals.problems.isEmpty() ? "" : ", e.g. " + totals.problems.get(0));
            });
        }
        assertThat(result.caught()).as("%s", result.outcomes()).isEqualTo(result.of());
    }

    /**
     * The seed of a breakage run's {@code cycle}-th lineage (from 1): the cycle-th from 7 on that is no
     * checkpoint lineage (a one-cycle lineage of those waits for an idle checkpoint: seconds).
     */
    private static long mutationSeed(int cycle) {
        long seed = 6L;
        for (int n = 0; n < cycle; ) {
            seed++;
            n += seed % CHECKPOINT_LINEAGES == 0 ? 0 : 1;
        }
        return seed;
    }

    private static DatabaseOptions options(Vfs vfs, boolean tiny) {
        DatabaseOptions.Builder b = DatabaseOptions.builder().vfs(vfs).durability(Durability.SYNC);
        if (tiny) {
            b.storage(KvOptions.builder().memtableBytes(8192).memoryBudget(64 * 1024).targetFileBytes(8192)
                    .levelBaseBytes(32 * 1024).maxManifestBytes(1024).build());
        }
        return b.build();
    }

    private void runLineage(long seed, int cycles, Totals totals, BackgroundCloser closer, Breakage breakage)
            throws Exception {
        Random random = new Random(seed);
        boolean tiny = seed % 2 == 0;
        BrokenVfs vfs = new BrokenVfs(new MemVfs(), breakage, FAIL_AFTER);
        HeldLogForce held = new HeldLogForce(vfs);
        Markers markers = new Markers();
        Database db = Database.open(DIR, options(held, tiny));
        try {
            db.createTable(Workload.spec(random.nextBoolean() ? IndexSpec.Projection.INCLUDE : IndexSpec.Projection.KEYS_ONLY));
            for (int c = 0; c < cycles; c++) {
                totals.cycles++;
                String where = "seed " + seed + ", cycle " + c;
                if (c % CLEAN_EVERY == CLEAN_EVERY - 1) {
                    write(db, markers, random, random.nextInt(MAX_ACKS), totals, where);
                    check(db, markers, markers.ackedNow(), null, totals, where + ", live"); // concurrent writers, no crash
                    db.close();
                    db = Database.open(DIR, options(held, tiny));
                    totals.clean++;
                }
                write(db, markers, random, random.nextInt(MAX_ACKS + 1), totals, where);
                if (seed % CHECKPOINT_LINEAGES == 0 && c == cycles / 2) {
                    awaitIdleCheckpoints(vfs.base(), db);
                    totals.checkpointed++;
                }
                long[] ackedBeforeCrash = new long[WRITERS];
                long[] seenBeforeCrash = new long[WRITERS];
                MemVfs crashed = crashWhileWriting(db, markers, vfs, held, random, totals, where, ackedBeforeCrash,
                        seenBeforeCrash);
                closer.closeLater(db);
                vfs = new BrokenVfs(crashed, breakage, FAIL_AFTER);
                held = new HeldLogForce(vfs);
                db = Database.open(DIR, options(held, tiny));
                check(db, markers, ackedBeforeCrash, seenBeforeCrash, totals, where);
            }
        } finally {
            db.close();
        }
    }

    /**
     * Checks every index against its recomputation, then the markers in the table and in GSI1 against the
     * model ({@code mustHave[w]}: writer w's markers acknowledged before the crash; {@code seen[w]}, if not
     * null: the highest marker of writer w a reader saw before the crash, or -1); a mismatch or a failure
     * (an index that cannot be read) is recorded, not thrown. The model then continues from what is there.
     */
    private static void check(Database db, Markers markers, long[] mustHave, long[] seen, Totals totals, String where) {
        String problem;
        try {
            List<IndexChecker.Report> reports = IndexChecker.checkAll(db, Workload.TABLE, WAIT);
            int mismatches = IndexChecker.mismatches(reports);
            totals.mismatches += mismatches;
            problem = mismatches == 0 ? null : reports.toString();
            checkMarkers(db, markers, mustHave, seen, totals, where);
        } catch (RuntimeException | AssertionError e) {
            problem = e.toString();
        }
        if (problem != null) {
            totals.problem(where + ": " + problem);
        }
    }

    /**
     * The markers recovered, per writer, must be exactly its markers {@code 0..bound} (the newest in each
     * slot), where {@code bound} is the later of its last acknowledged marker and its last recovered one:
     * a writer writes a marker only after the previous one was acknowledged, so a recovered marker vouches
     * for every earlier one. Read from the table, and from GSI1 (caught up by {@link IndexChecker#checkAll}).
     */
    private static void checkMarkers(Database db, Markers markers, long[] mustHave, long[] seen, Totals totals,
                                     String where) {
        List<Item> table = IndexChecker.scanAll(db, Workload.TABLE, new Scan());
        List<Item> index = IndexChecker.scanAll(db, Workload.TABLE, new Scan().index(Workload.GSI1));
        for (int w = 0; w < WRITERS; w++) {
            Map<String, Long> inTable = markersOf(table, w, "pk", "ACK-" + w);
            Map<String, Long> inIndex = markersOf(index, w, "GSI1PK", "ACK#" + w);
            long recovered = -1;
            for (long seq : inTable.values()) {
                recovered = Math.max(recovered, seq);
            }
            if (seen != null && seen[w] > recovered) {
                totals.seenLost++;
                totals.problem(where + ": writer " + w + " marker " + seen[w] + " was read before the crash, but the"
                        + " table holds only up to " + recovered);
            }
            long bound = Math.max(recovered, mustHave[w] - 1);
            if (bound >= markers.next[w]) {
                totals.problem(where + ": writer " + w + " marker " + bound + " recovered but never written");
            }
            Map<String, Long> expected = new TreeMap<>();
            for (long seq = Math.max(0, bound - SLOTS + 1); seq <= bound; seq++) {
                expected.put("M" + (seq % SLOTS), seq);
            }
            for (Map.Entry<String, Long> e : expected.entrySet()) {
                totals.markersChecked += 2;
                if (!e.getValue().equals(inTable.get(e.getKey()))) {
                    totals.lost++;
                    totals.problem(where + ": writer " + w + " marker " + e.getValue() + " (acknowledged or vouched for)"
                            + " is not in the table: " + inTable);
                }
                if (!e.getValue().equals(inIndex.get(e.getKey()))) {
                    totals.lost++;
                    totals.problem(where + ": writer " + w + " marker " + e.getValue() + " is not in " + Workload.GSI1
                            + ": " + inIndex);
                }
            }
            if (!inTable.keySet().equals(expected.keySet()) || !inIndex.keySet().equals(expected.keySet())) {
                totals.problem(where + ": writer " + w + " markers beyond the model: table " + inTable + ", index " + inIndex);
            }
            // What is there now is the model's start: the markers lost after the last recovered one were never acknowledged.
            markers.next[w] = bound + 1;
            markers.acked.set(w, bound + 1);
        }
    }

    /** Writer {@code w}'s markers among {@code items} (table rows or GSI1 entries), slot to sequence number. */
    private static Map<String, Long> markersOf(List<Item> items, int w, String attribute, String value) {
        Map<String, Long> found = new TreeMap<>();
        for (Item item : items) {
            if (item.get(attribute) instanceof AttributeValue.S v && v.value().equals(value)) {
                String slot = ((AttributeValue.S) item.get("sk")).value();
                long seq = ((AttributeValue.N) item.get("seq")).value().longValueExact();
                if (found.put(slot, seq) != null) {
                    throw new AssertionError("marker slot " + slot + " of writer " + w + " read twice");
                }
            }
        }
        return found;
    }

    /**
     * Runs the writers and a reader until {@code acks} workload steps are acknowledged, then clones the file
     * system while they still run; {@code ackedBeforeCrash} receives each writer's markers acknowledged
     * before the clone, {@code seenBeforeCrash} the highest marker of each the reader saw before it (or -1).
     */
    private MemVfs crashWhileWriting(Database db, Markers markers, BrokenVfs vfs, HeldLogForce held, Random random,
                                     Totals totals, String where, long[] ackedBeforeCrash, long[] seenBeforeCrash)
            throws Exception {
        Writers writers = new Writers(db, markers, random, random.nextInt(MAX_ACKS + 1));
        Reader reader = new Reader(db, random.nextLong());
        boolean hold = random.nextBoolean();
        Thread probe = null;
        MemVfs crashed;
        boolean reached;
        try {
            reached = writers.acks.await(60, TimeUnit.SECONDS);
            if (hold && writers.failures.isEmpty()) {
                held.hold();
                if (held.awaitHeld(TimeUnit.SECONDS.toNanos(5))) {
                    totals.held++;
                    // The markers waiting for the held fsync must not be seen. The probe reads every slot on a
                    // thread of its own: an index read waits while a SYNC transaction holds the index's lock
                    // through its fsync, so it may end only after the release (and then counts nothing).
                    probe = new Thread(() -> reader.readEverySlot(db), "index-crash-probe");
                    probe.start();
                    probe.join(TimeUnit.SECONDS.toMillis(2));
                }
            }
            System.arraycopy(markers.ackedNow(), 0, ackedBeforeCrash, 0, WRITERS); // read before the clone
            crashed = reader.crash.take(vfs, random.nextBoolean() ? random : null);
            totals.flushes += db.storageStats().flushes();
        } finally {
            held.release();
            writers.stop();
            reader.stop();
            if (probe != null) {
                probe.join(TimeUnit.SECONDS.toMillis(60));
                assertThat(probe.isAlive()).as("the probe hangs").isFalse();
            }
        }
        writers.check(where, reached);
        assertThat(reader.failure).as("reader failure at %s", where).isNull();
        for (int w = 0; w < WRITERS; w++) {
            seenBeforeCrash[w] = reader.seen.get(w);
        }
        totals.reads += reader.reads.get();
        totals.acked += writers.acknowledged.get();
        return crashed;
    }

    /**
     * Reads markers until stopped, from the table by key and from GSI1 by writer partition, keeping the
     * highest sequence number of each writer seen {@link CrashMoment#before() before} {@link #crash}.
     */
    private static final class Reader {
        final AtomicBoolean stop = new AtomicBoolean();
        final CrashMoment crash = new CrashMoment();
        final AtomicLongArray seen = new AtomicLongArray(WRITERS);
        final AtomicLong reads = new AtomicLong();
        final Thread thread;
        volatile Throwable failure;

        Reader(Database db, long seed) {
            for (int w = 0; w < WRITERS; w++) {
                seen.set(w, -1);
            }
            thread = new Thread(() -> {
                Random r = new Random(seed);
                try {
                    while (!stop.get()) {
                        int w = r.nextInt(WRITERS);
                        if (r.nextBoolean()) {
                            readSlot(db, w, r.nextInt(SLOTS));
                        } else {
                            readIndex(db, w);
                        }
                    }
                } catch (Throwable e) {
                    failure = e;
                }
            }, "index-crash-reader");
            thread.start();
        }

        /**
         * Reads every marker slot of every writer from the table, then each writer's markers from GSI1, on the
         * caller's thread; a failure is kept in {@link #failure}.
         */
        void readEverySlot(Database db) {
            try {
                for (int w = 0; w < WRITERS; w++) {
                    for (int slot = 0; slot < SLOTS; slot++) {
                        readSlot(db, w, slot);
                    }
                }
                for (int w = 0; w < WRITERS; w++) {
                    readIndex(db, w);
                }
            } catch (Throwable e) {
                failure = e;
            }
        }

        private void readSlot(Database db, int w, int slot) {
            Optional<Item> item = db.getItem(Workload.TABLE, new GetItem(Key.of("pk", AttributeValue.s("ACK-" + w),
                    "sk", AttributeValue.s("M" + slot))));
            item.ifPresent(i -> saw(w, seq(i)));
        }

        private void readIndex(Database db, int w) {
            long max = -1;
            for (Item item : db.query(Workload.TABLE, new Query("GSI1PK = :p").index(Workload.GSI1)
                    .value(":p", AttributeValue.s("ACK#" + w))).items()) {
                max = Math.max(max, seq(item));
            }
            if (max >= 0) {
                saw(w, max);
            }
        }

        private void saw(int w, long seq) {
            if (crash.before()) { // counted only if read before the clone began
                seen.accumulateAndGet(w, seq, Math::max);
                reads.incrementAndGet();
            }
        }

        private static long seq(Item item) {
            return ((AttributeValue.N) item.get("seq")).value().longValueExact();
        }

        void stop() throws InterruptedException {
            stop.set(true);
            thread.join(TimeUnit.SECONDS.toMillis(60));
            assertThat(thread.isAlive()).as("%s hangs", thread.getName()).isFalse();
        }
    }

    /** Writes {@code acks} workload steps (and markers) with the writers, and stops them. */
    private void write(Database db, Markers markers, Random random, int acks, Totals totals, String where)
            throws InterruptedException {
        Writers writers = new Writers(db, markers, random, acks);
        boolean reached;
        try {
            reached = writers.acks.await(60, TimeUnit.SECONDS);
        } finally {
            writers.stop();
        }
        writers.check(where, reached);
        totals.acked += writers.acknowledged.get();
    }

    /** Waits until every GSI has caught up and then recorded a durable checkpoint there (after 2 s idle). */
    private static void awaitIdleCheckpoints(MemVfs vfs, Database db) {
        for (IndexSpec index : db.describeTable(Workload.TABLE).spec().indexes()) {
            if (index.kind() == IndexSpec.Kind.GLOBAL) {
                long applied = IndexChecker.awaitCatchUp(db, Workload.TABLE, index.name(), WAIT);
                awaitCheckpoint(vfs, db, Workload.TABLE, index.name(), applied);
            }
        }
    }

    /**
     * Writer threads running the workload, each step followed by a marker, until stopped; {@link #acks}
     * opens after {@code target} steps (or at a failure); {@link #acknowledged} counts acknowledged calls.
     */
    private static final class Writers {
        final CountDownLatch acks;
        final int target;
        final AtomicLong acknowledged = new AtomicLong();
        final AtomicBoolean stop = new AtomicBoolean();
        final List<Thread> threads = new ArrayList<>();
        final List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());

        Writers(Database db, Markers markers, Random random, int target) {
            this.target = target;
            this.acks = new CountDownLatch(target);
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                Workload workload = new Workload(db, new Random(random.nextLong()), 40);
                Thread t = new Thread(() -> {
                    try {
                        while (!stop.get()) {
                            workload.step();
                            acknowledged.incrementAndGet();
                            acks.countDown();
                            long seq = markers.next[writer]++;
                            db.putItem(Workload.TABLE, new PutItem(Markers.item(writer, seq)));
                            markers.acked.set(writer, seq + 1);
                            acknowledged.incrementAndGet();
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                        while (acks.getCount() > 0) {
                            acks.countDown(); // release the test thread now rather than at its timeout
                        }
                    }
                }, "index-crash-writer-" + w);
                threads.add(t);
                t.start();
            }
        }

        void stop() throws InterruptedException {
            stop.set(true);
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(60));
                assertThat(t.isAlive()).as("%s hangs", t.getName()).isFalse();
            }
        }

        void check(String where, boolean reached) {
            assertThat(failures).as("writer failures at %s", where).isEmpty();
            assertThat(reached).as("writers reached %d acknowledgements at %s", target, where).isTrue();
        }
    }

    /**
     * The checkpoints a power loss now would leave, read from a strict crash clone with the store's own
     * reader: how a test sees an updater's checkpoint move without reaching into the database.
     */
    static Map<String, Long> durableCheckpoints(MemVfs vfs) {
        KvOptions options = KvOptions.builder().vfs(vfs.crashClone()).partitions(1)
                .keyspaceRouter(KeyspaceRouter.FIRST_FOUR_BYTES).keyPrefix(KeyEncoding::partitionPrefixLength).build();
        try (LsmStore kv = LsmStore.open(DIR, options, LsmStore.OWNER_ITEMS)) {
            return Map.copyOf(kv.logCheckpoints());
        }
    }

    /** Waits until the updater of {@code index} has durably checkpointed at least {@code lsn} (it does so when idle). */
    static void awaitCheckpoint(MemVfs vfs, Database db, String table, String index, long lsn) {
        String name = "index-" + db.describeTable(table).index(index).keyspace();
        IndexChecker.await(() -> durableCheckpoints(vfs).getOrDefault(name, -1L) >= lsn, WAIT,
                "checkpoint " + name + " below " + lsn);
    }

    /**
     * An idle updater checkpoints what it has applied, even when the log is not durable that far (writes
     * with {@code Durability.NONE}). After a power loss the log ends below the checkpoint: the updater
     * must still index the writes made after the restart, whose LSNs the lost records had.
     */
    @Test
    @Order(3)
    void shouldKeepIndexingAfterPowerLossWhenAnIdleCheckpointPassedTheDurableLog() {
        MemVfs vfs = new MemVfs();
        String table = "Tickets";
        MemVfs crashed;
        try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(vfs).durability(Durability.NONE).build())) {
            db.createTable(TableSpec.builder(table).partitionKey("pk", AttributeValue.Type.S)
                    .index(IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK"))).build());
            Table t = db.table(table);
            t.putItem(Item.builder().s("pk", "A").s("GSI1PK", "Q").s("GSI1SK", "1").build());
            long a = IndexChecker.awaitCatchUp(db, table, "GSI1", WAIT);
            awaitCheckpoint(vfs, db, table, "GSI1", a); // its flush made the log durable up to A
            t.putItem(Item.builder().s("pk", "B").build()); // not in the index; never synced (NONE)
            long b = IndexChecker.awaitCatchUp(db, table, "GSI1", WAIT);
            assertThat(b).isGreaterThan(a);
            awaitCheckpoint(vfs, db, table, "GSI1", b);
            crashed = vfs.crashClone(); // B is lost, the checkpoint past it is not
        }
        try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(crashed).durability(Durability.NONE).build())) {
            db.table(table).putItem(Item.builder().s("pk", "C").s("GSI1PK", "Q").s("GSI1SK", "2").build());
            IndexChecker.awaitCatchUp(db, table, "GSI1", WAIT);
            IndexChecker.Report report = IndexChecker.check(db, table, "GSI1");
            assertThat(report.mismatches()).as("%s", report).isZero();
            assertThat(report.expected()).isEqualTo(2);
        }
    }
}
