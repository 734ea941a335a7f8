package dev.lacuna;

import dev.lacuna.storage.Durability;
import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.s;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.vfs.testing.BrokenVfs;
import dev.lacuna.vfs.testing.BrokenVfs.Breakage;
import dev.lacuna.vfs.testing.BreakageRuns;
import dev.lacuna.vfs.testing.CrashCycles;
import dev.lacuna.vfs.testing.CrashMoment;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Power loss in the middle of concurrent transactions. Writers move money between accounts with
 * {@code SYNC} transactions that also put and delete ledger rows, while tiny memtables and a tiny manifest
 * limit keep flushes, compactions and manifest switches running; at a random moment the file system is
 * cloned as a power loss would leave it, and the database is reopened on the clone.
 *
 * <p>The check is exact although items are overwritten: every account carries a version counter that
 * each transaction bumps by one (under a {@code ver = :old} condition), so the recovered version of an
 * account says which of the transactions that wrote it are in; ledger rows have keys that are never
 * reused. A transaction is torn if some of its effects are recovered and others not; one is lost if it was
 * acknowledged before the clone (or an earlier transaction of the same writer, which only starts after the
 * previous one's acknowledgement, is recovered) yet not wholly there. Cycles: {@code -Dtxn.crash.cycles=N}.
 * {@link #shouldFailOnABrokenFileSystem} shows the check is not vacuous: short runs on each
 * {@link BrokenVfs.Breakage} must fail.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class) // the mutation line prints after the summary
class TransactionCrashTest {
    private static final Path DIR = Path.of("/db");
    private static final String ACCOUNTS = "Accounts";
    private static final String LEDGER = "Ledger";
    private static final int ACCOUNT_COUNT = 8;
    private static final long START_BALANCE = 1000;
    private static final int WRITERS = 3;
    private static final int MAX_ACKS_BEFORE_CRASH = 800;

    /** One write of a committed transaction, with what it must look like wherever it is recovered. */
    sealed interface Effect permits AccountWrite, LedgerPut, LedgerDelete {
    }

    record AccountWrite(String account, long version, Item image) implements Effect {
    }

    record LedgerPut(String row, Item image) implements Effect {
    }

    record LedgerDelete(String row) implements Effect {
    }

    record Tx(String id, List<Effect> effects) {
    }

    /** What one verification found. */
    record Check(int torn, int lost, List<String> problems) {
    }

    /** The run: {@code -Dtxn.crash.cycles} (quick size 100), {@code -Dtxn.crash.seed}, {@code -Dtxn.crash.mutation.cycles}. */
    private static CrashCycles crashCycles() {
        return CrashCycles.fromProperties("txn.crash", 100, 11L);
    }

    /** Counts over the cycles of a run, each added by the cycle that compared it. */
    private static final class Totals {
        int torn;
        int lost;
        final List<String> problems = new ArrayList<>();
        /** Acknowledged before the clone, doomed, flushes, compactions, manifest switches. */
        final long[] exercised = new long[5];
        /** Reads checked, and accounts recovered below a version a reader saw. */
        long readsChecked;
        long seenLost;
    }

    @Test
    @Order(1)
    void shouldKeepEveryTransactionAllOrNothingAcrossPowerLoss() {
        CrashCycles run = crashCycles();
        int cycles = run.cycles();
        Totals totals = run.run(new Totals(), (seed, cycle, t) -> {
            Check check = runCycle(seed, cycle % 2 == 0, t, Breakage.NONE);
            t.torn += check.torn();
            t.lost += check.lost();
            for (String p : check.problems()) {
                if (t.problems.size() < 20) { // enough to diagnose; the counts say how many there were
                    t.problems.add("seed " + seed + ": " + p);
                }
            }
        }, t -> List.of("transaction crash cycles: " + cycles + ", torn transactions: " + t.torn
                + ", lost acknowledged: " + t.lost,
                "transaction crash reads checked: " + t.readsChecked + ", visible then lost: " + t.seenLost));
        assertThat(totals.problems).as("replay one cycle with -Dtxn.crash.seed=S -Dtxn.crash.cycles=1").isEmpty();
        assertThat(totals.torn).isZero();
        assertThat(totals.lost).isZero();
        assertThat(totals.seenLost).as("accounts recovered below a version a reader saw").isZero();
        assertThat(totals.readsChecked).as("reads checked").isPositive();
        // The run must have exercised what it claims to (only checked on runs long enough to be sure to).
        String[] names = {"transactions acknowledged before a crash", "doomed transactions", "flushes", "compactions",
            "manifest switches"};
        for (int i = 0; cycles >= 20 && i < totals.exercised.length; i++) {
            assertThat(totals.exercised[i]).as(names[i]).isPositive();
        }
    }

    /**
     * Each breakage under a short run (cycles until one fails, at most {@code -Dtxn.crash.mutation.cycles},
     * default 10): the run must fail, by a torn or lost transaction, a problem the check names, or a failing
     * check (writers that stopped before their target, a database that does not reopen).
     */
    @Test
    @Order(2)
    void shouldFailOnABrokenFileSystem() {
        BreakageRuns.Result result = crashCycles().breakages(10, (breakage, cycle) -> {
            Check check = runCycle(10L + cycle, cycle % 2 == 1, new Totals(), breakage);
            return check.torn() + check.lost() == 0 && check.problems().isEmpty() ? null
                    : check.torn() + " torn, " + check.lost() + " lost"
                    + (check.problems().isEmpty() ? "" : ", e.g. " + check.problems().get(0));
        });
        assertThat(result.caught()).as("%s", result.outcomes()).isEqualTo(result.of());
    }

    private static DatabaseOptions options(Vfs vfs) {
        return DatabaseOptions.builder().vfs(vfs).durability(Durability.SYNC).storage(KvOptions.builder()
                .memtableBytes(8192).memoryBudget(64 * 1024).targetFileBytes(8192).levelBaseBytes(32 * 1024)
                .maxManifestBytes(2048).build()).build();
    }

    private Check runCycle(long seed, boolean randomCrash, Totals run, Breakage breakage) throws Exception {
        long[] totals = run.exercised;
        Random random = new Random(seed);
        // N: past the set-up's log writes (two tables, eight accounts), below most cycles' acknowledgements.
        BrokenVfs vfs = new BrokenVfs(new MemVfs(), breakage, 60);
        MemVfs crashed;
        List<Writer> writers = new ArrayList<>();
        int[] ackedBeforeCrash = new int[WRITERS];
        // A reader beside the writers: every account version it saw before the clone came from a SYNC
        // transaction, visible only once durable, so the recovered account must be at that version or later.
        AtomicLongArray seen = new AtomicLongArray(ACCOUNT_COUNT);
        AtomicLong reads = new AtomicLong();
        try (Database db = Database.open(DIR, options(vfs))) {
            db.createTable(TableSpec.builder(ACCOUNTS).partitionKey("pk", AttributeValue.Type.S).partitions(4).build());
            db.createTable(TableSpec.builder(LEDGER).partitionKey("pk", AttributeValue.Type.S)
                    .sortKey("sk", AttributeValue.Type.S).partitions(2).build());
            for (int i = 0; i < ACCOUNT_COUNT; i++) {
                db.table(ACCOUNTS).putItem(initialAccount(i));
            }
            String manifestAtStart = current(vfs);
            CountDownLatch start = new CountDownLatch(1);
            CountDownLatch acks = new CountDownLatch(random.nextInt(MAX_ACKS_BEFORE_CRASH + 1));
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                Writer writer = new Writer(w, db, new Random(seed * 31 + w), start, acks, stop);
                writers.add(writer);
                threads.add(new Thread(writer, "txn-crash-writer-" + w));
            }
            CrashMoment crash = new CrashMoment();
            AtomicReference<Throwable> readerFailure = new AtomicReference<>();
            threads.add(new Thread(() -> {
                Random r = new Random(seed ^ 0x5EED);
                try {
                    start.await();
                    while (!stop.get()) {
                        int i = r.nextInt(ACCOUNT_COUNT);
                        Optional<Item> item = db.table(ACCOUNTS).getItem(accountKey(i));
                        if (item.isPresent() && crash.before()) { // counted only if read before the clone began
                            seen.accumulateAndGet(i, number(item.get(), "ver"), Math::max);
                            reads.incrementAndGet();
                        }
                    }
                } catch (Throwable t) {
                    readerFailure.set(t);
                }
            }, "txn-crash-reader"));
            threads.forEach(Thread::start);
            try {
                start.countDown();
                boolean reached = acks.await(60, TimeUnit.SECONDS) && failures(writers).isEmpty();
                // Read the acknowledgement counts before cloning: each of these was durable before the clone.
                for (int w = 0; w < WRITERS; w++) {
                    ackedBeforeCrash[w] = writers.get(w).acked.get();
                }
                crashed = crash.take(vfs, randomCrash ? random : null);
                assertThat(reached).as("writers reached their acknowledgement target; failures: %s",
                        failures(writers)).isTrue();
            } finally {
                stop.set(true);
                for (Thread t : threads) {
                    t.join(TimeUnit.SECONDS.toMillis(60));
                    assertThat(t.isAlive()).as("%s hangs", t.getName()).isFalse();
                }
            }
            assertThat(failures(writers)).isEmpty();
            assertThat(readerFailure.get()).as("the reader ran without error").isNull();
            // Without a crash every committed transaction is there: this also checks the checker.
            int[] all = writers.stream().mapToInt(w -> w.committed.size()).toArray();
            Check live = verify(db, writers, all);
            assertThat(live.problems()).as("live database").isEmpty();
            assertThat(live.torn() + live.lost()).as("live database").isZero();
            totals[2] += db.storageStats().flushes();
            totals[3] += db.storageStats().compactions();
            totals[4] += current(vfs).equals(manifestAtStart) ? 0 : 1;
        }
        for (int w = 0; w < WRITERS; w++) {
            totals[0] += ackedBeforeCrash[w];
            totals[1] += writers.get(w).doomed;
        }
        try (Database db = Database.open(DIR, options(crashed))) {
            Check check = verify(db, writers, ackedBeforeCrash);
            for (int i = 0; i < ACCOUNT_COUNT; i++) {
                long recovered = number(db.table(ACCOUNTS).getItem(accountKey(i)).orElseThrow(), "ver");
                if (recovered < seen.get(i)) {
                    run.seenLost++;
                }
            }
            run.readsChecked += reads.get();
            return check;
        }
    }

    /** One writer thread: transfers between two accounts plus ledger rows, some doomed by a failing check. */
    private static final class Writer implements Runnable {
        final int id;
        final Database db;
        final Random random;
        final CountDownLatch start;
        final CountDownLatch acks;
        final AtomicBoolean stop;
        /** Committed transactions in order; read by the test thread only after join. */
        final List<Tx> committed = new ArrayList<>();
        /** Ids of transactions cancelled (by the doomed check or by a version conflict). */
        final List<String> cancelled = new ArrayList<>();
        /** How many of {@link #committed} have been acknowledged. */
        final AtomicInteger acked = new AtomicInteger();
        /** Ledger rows of committed transactions not deleted since: the only rows this writer deletes. */
        final List<Key> liveRows = new ArrayList<>();
        int doomed;
        volatile Throwable failure;

        Writer(int id, Database db, Random random, CountDownLatch start, CountDownLatch acks, AtomicBoolean stop) {
            this.id = id;
            this.db = db;
            this.random = random;
            this.start = start;
            this.acks = acks;
            this.stop = stop;
        }

        @Override
        public void run() {
            try {
                start.await();
                for (int seq = 0; !stop.get(); seq++) {
                    step("w" + id + "-" + seq);
                }
            } catch (Throwable t) {
                failure = t;
                // Release the test thread now rather than at its timeout.
                while (acks.getCount() > 0) {
                    acks.countDown();
                }
            }
        }

        private void step(String tx) {
            int a = random.nextInt(ACCOUNT_COUNT);
            int b = (a + 1 + random.nextInt(ACCOUNT_COUNT - 1)) % ACCOUNT_COUNT;
            int c = random.nextInt(ACCOUNT_COUNT);
            while (c == a || c == b) {
                c = random.nextInt(ACCOUNT_COUNT);
            }
            List<Optional<Item>> now = db.transactGetItems(List.of(new TransactGet(ACCOUNTS, new GetItem(accountKey(a))),
                    new TransactGet(ACCOUNTS, new GetItem(accountKey(b)))));
            Item fromItem = now.get(0).orElseThrow();
            Item toItem = now.get(1).orElseThrow();
            long amount = 1 + random.nextInt(100);
            long fromVersion = number(fromItem, "ver");
            long toVersion = number(toItem, "ver");
            List<TransactWrite> ops = new ArrayList<>();
            List<Effect> effects = new ArrayList<>();

            // The debit as an update expression, the credit as a whole-item put: both paths are covered.
            ops.add(new TransactWrite(ACCOUNTS, new UpdateItem(accountKey(a))
                    .update("SET bal = bal - :x, ver = :nv, tx = :tx").condition("ver = :ov")
                    .value(":x", n(amount)).value(":nv", n(fromVersion + 1)).value(":tx", s(tx)).value(":ov", n(fromVersion))));
            effects.add(new AccountWrite(account(a), fromVersion + 1,
                    account(a, number(fromItem, "bal") - amount, fromVersion + 1, tx)));
            Item credited = account(b, number(toItem, "bal") + amount, toVersion + 1, tx);
            ops.add(new TransactWrite(ACCOUNTS, new PutItem(credited).condition("ver = :ov").value(":ov", n(toVersion))));
            effects.add(new AccountWrite(account(b), toVersion + 1, credited));

            List<Key> put = new ArrayList<>();
            for (int j = 0, rows = 1 + random.nextInt(2); j < rows; j++) {
                Item row = Item.builder().s("pk", "w" + id).s("sk", tx + "#" + j).s("tx", tx).n("amount", amount)
                        .s("from", account(a)).s("to", account(b)).build();
                ops.add(new TransactWrite(LEDGER, new PutItem(row)));
                effects.add(new LedgerPut(row(row), row));
                put.add(Key.of("pk", row.get("pk"), "sk", row.get("sk")));
            }
            boolean doomedNow = random.nextInt(8) == 0;
            List<Key> deleted = new ArrayList<>();
            int deletes = Math.min(Math.min(liveRows.size(), random.nextInt(3)), 6 - ops.size() - (doomedNow ? 1 : 0));
            for (int k = 0; k < deletes; k++) {
                Key key = liveRows.get(random.nextInt(liveRows.size()));
                if (!deleted.contains(key)) {
                    deleted.add(key);
                    ops.add(new TransactWrite(LEDGER, new DeleteItem(key)));
                    effects.add(new LedgerDelete(row(key.toItem())));
                }
            }
            if (doomedNow) {
                // Accounts always exist, so this check fails and the whole transaction must leave nothing.
                ops.add(new TransactWrite(ACCOUNTS, new ConditionCheck(accountKey(c), "attribute_not_exists(pk)")));
            } else if (ops.size() < 6 && random.nextBoolean()) {
                ops.add(new TransactWrite(ACCOUNTS, new ConditionCheck(accountKey(c), "attribute_exists(bal)")));
            }
            try {
                db.transactWriteItems(ops, null, Durability.SYNC);
            } catch (TransactionCanceledException e) {
                cancelled.add(tx);
                if (doomedNow) {
                    doomed++;
                    assertThat(e.reasons()).last().extracting(CancellationReason::code).isEqualTo("ConditionalCheckFailed");
                }
                return; // otherwise another writer changed an account since the read: a lost race, not an error
            }
            assertThat(doomedNow).as("%s committed despite a failing ConditionCheck", tx).isFalse();
            committed.add(new Tx(tx, effects));
            liveRows.addAll(put);
            liveRows.removeAll(deleted);
            acked.set(committed.size());
            acks.countDown();
        }
    }

    /**
     * Compares the database with the committed transactions; the first {@code mustHave[w]} transactions of
     * writer {@code w} must be wholly there.
     */
    private static Check verify(Database db, List<Writer> writers, int[] mustHave) {
        Map<String, Item> accounts = scanAll(db, ACCOUNTS, i -> string(i, "pk"));
        Map<String, Item> ledger = scanAll(db, LEDGER, TransactionCrashTest::row);
        List<String> problems = new ArrayList<>();
        Map<String, Item> accountVersions = new HashMap<>(); // "acct-3@17" -> the image of that version
        Map<String, Tx> putBy = new HashMap<>();
        Map<String, Item> putImage = new HashMap<>();
        Map<String, Tx> deletedBy = new HashMap<>();
        Set<String> cancelled = new HashSet<>();
        for (Writer w : writers) {
            cancelled.addAll(w.cancelled);
            for (Tx tx : w.committed) {
                for (Effect e : tx.effects()) {
                    if (e instanceof AccountWrite aw) {
                        accountVersions.put(aw.account() + "@" + aw.version(), aw.image());
                    } else if (e instanceof LedgerPut p) {
                        putBy.put(p.row(), tx);
                        putImage.put(p.row(), p.image());
                    } else if (e instanceof LedgerDelete d) {
                        deletedBy.put(d.row(), tx);
                    }
                }
            }
        }

        // Every stored item is exactly an image some committed transaction wrote (or the initial state).
        long sum = 0;
        for (int i = 0; i < ACCOUNT_COUNT; i++) {
            Item item = accounts.get(account(i));
            if (item == null) {
                problems.add(account(i) + " is missing");
                continue;
            }
            sum += number(item, "bal");
            long version = number(item, "ver");
            Item expected = version == 0 ? initialAccount(i) : accountVersions.get(account(i) + "@" + version);
            if (!item.equals(expected)) {
                problems.add(account(i) + " is " + item + (expected == null
                        ? ", a version no committed transaction wrote" + cancelledNote(cancelled, item)
                        : ", but that version was written as " + expected));
            }
        }
        if (accounts.size() != ACCOUNT_COUNT) {
            problems.add("unexpected accounts: " + accounts.keySet());
        }
        if (sum != ACCOUNT_COUNT * START_BALANCE) {
            problems.add("the balances sum to " + sum + ", not " + ACCOUNT_COUNT * START_BALANCE);
        }
        for (Map.Entry<String, Item> e : ledger.entrySet()) {
            if (!e.getValue().equals(putImage.get(e.getKey()))) {
                problems.add("ledger row " + e.getValue() + " was never written by a committed transaction"
                        + cancelledNote(cancelled, e.getValue()));
            }
        }

        Visibility seen = new Visibility(accounts, ledger, putBy, deletedBy);
        int torn = 0;
        int lost = 0;
        for (int w = 0; w < writers.size(); w++) {
            List<Tx> txs = writers.get(w).committed;
            boolean[] whole = new boolean[txs.size()];
            int lastSeen = -1;
            for (int i = 0; i < txs.size(); i++) {
                Tx tx = txs.get(i);
                long visible = tx.effects().stream().filter(seen::visible).count();
                whole[i] = visible == tx.effects().size();
                if (visible > 0) {
                    lastSeen = i;
                    if (!whole[i]) {
                        torn++;
                        problems.add("torn " + tx.id() + ": " + visible + " of " + tx.effects().size()
                                + " effects recovered: " + tx.effects());
                    }
                }
            }
            // A writer starts a transaction only after the previous one was acknowledged (durable).
            int required = Math.max(mustHave[w], lastSeen);
            for (int i = 0; i < required; i++) {
                if (!whole[i]) {
                    lost++;
                    problems.add("lost " + txs.get(i).id() + " (acknowledged before the crash)");
                }
            }
        }
        return new Check(torn, lost, problems);
    }

    /** Whether one effect of a transaction is in the recovered state. */
    private record Visibility(Map<String, Item> accounts, Map<String, Item> ledger, Map<String, Tx> putBy,
                              Map<String, Tx> deletedBy) {
        boolean visible(Effect e) {
            if (e instanceof AccountWrite aw) {
                return accounts.containsKey(aw.account()) && number(accounts.get(aw.account()), "ver") >= aw.version();
            }
            if (e instanceof LedgerPut p) {
                // An absent row was either never put or put and then deleted by a recovered transaction.
                return ledger.containsKey(p.row())
                        || (deletedBy.containsKey(p.row()) && accountsIn(deletedBy.get(p.row())));
            }
            // A delete shows only if the row had been put by a recovered transaction.
            LedgerDelete d = (LedgerDelete) e;
            return !ledger.containsKey(d.row()) && accountsIn(putBy.get(d.row()));
        }

        /** Whether the transaction's account writes (which every transaction has) are recovered. */
        private boolean accountsIn(Tx tx) {
            return tx.effects().stream().filter(e -> e instanceof AccountWrite).allMatch(this::visible);
        }
    }

    private static Map<String, Item> scanAll(Database db, String table, Function<Item, String> key) {
        Map<String, Item> items = new HashMap<>();
        Scan scan = new Scan().limit(50);
        while (true) {
            Page page = db.scan(table, scan);
            for (Item item : page.items()) {
                assertThat(items.put(key.apply(item), item)).as("scan returned %s twice", item).isNull();
            }
            if (!page.hasMore()) {
                return items;
            }
            scan = new Scan().limit(50).exclusiveStartKey(page.lastEvaluatedKey());
        }
    }

    private static String current(BrokenVfs vfs) throws IOException {
        return new String(vfs.base().readAll(DIR.resolve("CURRENT")), StandardCharsets.UTF_8);
    }

    private static String account(int i) {
        return "acct-" + i;
    }

    private static Key accountKey(int i) {
        return Key.of("pk", s(account(i)));
    }

    private static Item account(int i, long balance, long version, String tx) {
        return Item.builder().s("pk", account(i)).n("bal", balance).n("ver", version).s("tx", tx).build();
    }

    private static Item initialAccount(int i) {
        return account(i, START_BALANCE, 0, "init");
    }

    private static String row(Item row) {
        return string(row, "pk") + "/" + string(row, "sk");
    }

    private static String string(Item item, String attribute) {
        return ((AttributeValue.S) item.get(attribute)).value();
    }

    private static long number(Item item, String attribute) {
        return ((AttributeValue.N) item.get(attribute)).value().longValueExact();
    }

    private static String cancelledNote(Set<String> cancelled, Item item) {
        return cancelled.contains(string(item, "tx")) ? " (by a cancelled transaction)" : "";
    }

    private static List<Throwable> failures(List<Writer> writers) {
        List<Throwable> failures = new ArrayList<>();
        for (Writer w : writers) {
            if (w.failure != null) {
                failures.add(w.failure);
            }
        }
        return failures;
    }
}
