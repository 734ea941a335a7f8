package dev.lacuna.secondary;

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
import dev.lacuna.secondary.IndexEquivalenceTest.Workload;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

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
 */
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

    /** Counters over a run, to show it exercised what it claims to. */
    private static final class Totals {
        int cycles;
        int mismatches;
        long acked;
        long flushes;
        int checkpointed;
        int clean;
        final List<String> problems = new ArrayList<>();
    }

    @Test
    void shouldRecoverEveryIndexToItsRecomputationAfterPowerLoss() throws Exception {
        int cycles = Integer.getInteger("index.crash.cycles", 300);
        long baseSeed = Long.getLong("index.crash.seed", 7L);
        Totals totals = new Totals();
        // Closing a database with GSIs waits out each updater's log poll (up to 200 ms each): the databases
        // a crash leaves behind are closed on the side rather than on the test's time.
        ExecutorService closer = Executors.newFixedThreadPool(2);
        List<Future<?>> closing = new ArrayList<>();
        try {
            for (int lineage = 0; totals.cycles < cycles; lineage++) {
                runLineage(baseSeed + lineage, Math.min(LINEAGE, cycles - totals.cycles), totals, closer, closing);
            }
        } finally {
            closer.shutdown();
        }
        for (Future<?> f : closing) {
            f.get(60, TimeUnit.SECONDS);
        }
        System.out.println("index crash cycles: " + totals.cycles + ", index mismatches: " + totals.mismatches);
        System.out.println("(acknowledged writes " + totals.acked + ", flushes " + totals.flushes
                + ", crashes after a checkpoint " + totals.checkpointed + ", clean restarts " + totals.clean + ")");
        assertThat(totals.problems).as("replay a lineage with -Dindex.crash.seed=S -Dindex.crash.cycles=%d", LINEAGE)
                .isEmpty();
        assertThat(totals.mismatches).isZero();
        assertThat(totals.acked).isPositive();
        if (cycles >= CHECKPOINT_LINEAGES * LINEAGE) {
            assertThat(totals.flushes).as("flushes").isPositive();
            assertThat(totals.checkpointed).as("crashes after an updater checkpoint").isPositive();
            assertThat(totals.clean).as("clean restarts").isPositive();
        }
    }

    private static DatabaseOptions options(MemVfs vfs, boolean tiny) {
        DatabaseOptions.Builder b = DatabaseOptions.builder().vfs(vfs).durability(Durability.SYNC);
        if (tiny) {
            b.storage(KvOptions.builder().memtableBytes(8192).memoryBudget(64 * 1024).targetFileBytes(8192)
                    .levelBaseBytes(32 * 1024).maxManifestBytes(4096).build());
        }
        return b.build();
    }

    private void runLineage(long seed, int cycles, Totals totals, ExecutorService closer, List<Future<?>> closing)
            throws Exception {
        Random random = new Random(seed);
        boolean tiny = seed % 2 == 0;
        MemVfs vfs = new MemVfs();
        Database db = Database.open(DIR, options(vfs, tiny));
        try {
            db.createTable(Workload.spec(random.nextBoolean() ? IndexSpec.Projection.INCLUDE : IndexSpec.Projection.KEYS_ONLY));
            for (int c = 0; c < cycles; c++) {
                totals.cycles++;
                String where = "seed " + seed + ", cycle " + c;
                if (c % CLEAN_EVERY == CLEAN_EVERY - 1) {
                    write(db, random, random.nextInt(MAX_ACKS), totals, where);
                    check(db, totals, where + ", live"); // concurrent writers, no crash
                    db.close();
                    db = Database.open(DIR, options(vfs, tiny));
                    totals.clean++;
                }
                write(db, random, random.nextInt(MAX_ACKS + 1), totals, where);
                if (seed % CHECKPOINT_LINEAGES == 0 && c == cycles / 2) {
                    awaitIdleCheckpoints(vfs, db);
                    totals.checkpointed++;
                }
                MemVfs crashed = crashWhileWriting(db, vfs, random, totals, where);
                Database old = db;
                closing.add(closer.submit(old::close));
                vfs = crashed;
                db = Database.open(DIR, options(vfs, tiny));
                check(db, totals, where);
            }
        } finally {
            db.close();
        }
    }

    /** Checks every index; a mismatch or a failure (an index that cannot be read) is recorded, not thrown. */
    private static void check(Database db, Totals totals, String where) {
        String problem;
        try {
            List<IndexChecker.Report> reports = IndexChecker.checkAll(db, Workload.TABLE, WAIT);
            int mismatches = IndexChecker.mismatches(reports);
            totals.mismatches += mismatches;
            problem = mismatches == 0 ? null : reports.toString();
        } catch (RuntimeException | AssertionError e) {
            problem = e.toString();
        }
        if (problem != null && totals.problems.size() < 10) {
            totals.problems.add(where + ": " + problem);
        }
    }

    /** Runs the writers until {@code acks} writes are acknowledged, then clones the file system while they still run. */
    private MemVfs crashWhileWriting(Database db, MemVfs vfs, Random random, Totals totals, String where)
            throws InterruptedException {
        Writers writers = new Writers(db, random, random.nextInt(MAX_ACKS + 1));
        MemVfs crashed;
        try {
            writers.acks.await(60, TimeUnit.SECONDS);
            crashed = random.nextBoolean() ? vfs.crashClone(random) : vfs.crashClone();
            totals.flushes += db.storageStats().flushes();
        } finally {
            writers.stop();
        }
        writers.check(where);
        totals.acked += writers.target;
        return crashed;
    }

    /** Writes {@code acks} operations with the writers, and stops them. */
    private void write(Database db, Random random, int acks, Totals totals, String where) throws InterruptedException {
        Writers writers = new Writers(db, random, acks);
        try {
            writers.acks.await(60, TimeUnit.SECONDS);
        } finally {
            writers.stop();
        }
        writers.check(where);
        totals.acked += acks;
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

    /** Writer threads running the workload until stopped; {@link #acks} opens after {@code target} writes. */
    private static final class Writers {
        final CountDownLatch acks;
        final int target;
        final AtomicBoolean stop = new AtomicBoolean();
        final List<Thread> threads = new ArrayList<>();
        final List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());

        Writers(Database db, Random random, int target) {
            this.target = target;
            this.acks = new CountDownLatch(target);
            for (int w = 0; w < WRITERS; w++) {
                Workload workload = new Workload(db, new Random(random.nextLong()), 40);
                Thread t = new Thread(() -> {
                    try {
                        while (!stop.get()) {
                            workload.step();
                            acks.countDown();
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

        void check(String where) {
            assertThat(failures).as("writer failures at %s", where).isEmpty();
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
