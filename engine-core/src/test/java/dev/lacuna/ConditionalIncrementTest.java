package dev.lacuna;

import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.s;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Optimistic concurrency under contention: threads read a counter and write it back one higher on the
 * condition that it still holds what they read, retrying when another thread got there first; and
 * unconditional {@code ADD} from many threads. Any lost update (two writers both succeeding from the same
 * read, or an increment applied twice or not at all) shows as a final value different from the number of
 * successes. Increments per thread: {@code -Dtxn.increments=M}.
 */
class ConditionalIncrementTest {
    private static final Path DIR = Path.of("/db");
    private static final String TABLE = "Counters";
    private static final int THREADS = 8;
    private static final Key PLAIN = Key.of("id", s("plain"));
    private static final Key TRANSACTED = Key.of("id", s("transacted"));
    private static final Key GATE = Key.of("id", s("gate"));
    private static final Key ADDED = Key.of("id", s("added"));

    private static Database open() {
        // Small memtables, so that reads and conditions also run against flushed and compacting data.
        return Database.open(DIR, DatabaseOptions.builder().vfs(new MemVfs()).storage(KvOptions.builder()
                .memtableBytes(8192).memoryBudget(64 * 1024).targetFileBytes(8192).levelBaseBytes(32 * 1024).build())
                .build());
    }

    private static int increments() {
        return Integer.getInteger("txn.increments", 250);
    }

    @Test
    void shouldLoseNoConditionalIncrement() throws Exception {
        int m = increments();
        AtomicLong plainSuccesses = new AtomicLong();
        AtomicLong transactedSuccesses = new AtomicLong();
        AtomicLong retries = new AtomicLong();
        try (Database db = open()) {
            db.createTable(TableSpec.builder(TABLE).partitionKey("id", AttributeValue.Type.S).build());
            Table t = db.table(TABLE);
            t.putItem(Item.builder().s("id", "plain").n("c", 0).build());
            t.putItem(Item.builder().s("id", "transacted").n("c", 0).build());
            t.putItem(Item.builder().s("id", "gate").bool("open", true).build());
            runTogether(() -> {
                for (int i = 0; i < m; i++) {
                    retries.addAndGet(incrementPlain(t));
                    plainSuccesses.incrementAndGet();
                    retries.addAndGet(incrementTransacted(db));
                    transactedSuccesses.incrementAndGet();
                }
            });
            long plain = counter(t, PLAIN);
            long transacted = counter(t, TRANSACTED);
            long lost = (plainSuccesses.get() - plain) + (transactedSuccesses.get() - transacted);
            System.out.println("conditional increments: " + (plainSuccesses.get() + transactedSuccesses.get())
                    + ", lost updates: " + lost);
            assertThat(plain).as("plain counter, successes, expected").isEqualTo(plainSuccesses.get()).isEqualTo((long) THREADS * m);
            assertThat(transacted).as("transacted counter, successes, expected").isEqualTo(transactedSuccesses.get()).isEqualTo((long) THREADS * m);
            assertThat(t.getItem(GATE)).get().isEqualTo(Item.builder().s("id", "gate").bool("open", true).build());
            // Eight threads on one item must have collided; otherwise this test proved nothing.
            assertThat(retries.get()).as("retries after a failed condition").isPositive();
        }
    }

    /** Read, then write one higher if unchanged; returns how many times it had to retry. */
    private static int incrementPlain(Table t) {
        for (int attempt = 0; ; attempt++) {
            long old = counter(t, PLAIN);
            try {
                t.updateItem(new UpdateItem(PLAIN).update("SET c = :new").condition("c = :old")
                        .value(":new", n(old + 1)).value(":old", n(old)));
                return attempt;
            } catch (ConditionalCheckFailedException e) {
                // another thread incremented since the read: read again
            }
        }
    }

    /** The same through a transaction whose other item is a check that always holds. */
    private static int incrementTransacted(Database db) {
        for (int attempt = 0; ; attempt++) {
            long old = counter(db.table(TABLE), TRANSACTED);
            try {
                db.transactWriteItems(List.of(
                        new TransactWrite(TABLE, new ConditionCheck(GATE, "#o = :yes").name("#o", "open")
                                .value(":yes", AttributeValue.bool(true))),
                        new TransactWrite(TABLE, new UpdateItem(TRANSACTED).update("SET c = :new").condition("c = :old")
                                .value(":new", n(old + 1)).value(":old", n(old)))));
                return attempt;
            } catch (TransactionCanceledException e) {
                // Only the counter's condition can fail; the gate always holds.
                assertThat(e.reasons()).extracting(CancellationReason::code)
                        .containsExactly("None", "ConditionalCheckFailed");
            }
        }
    }

    @Test
    void shouldApplyEveryUnconditionalAddExactlyOnce() throws Exception {
        int m = increments();
        // Each ADD returns the value it produced: all of them together must be exactly 1..total.
        Set<Long> returned = ConcurrentHashMap.newKeySet();
        AtomicLong duplicates = new AtomicLong();
        try (Database db = open()) {
            db.createTable(TableSpec.builder(TABLE).partitionKey("id", AttributeValue.Type.S).build());
            Table t = db.table(TABLE);
            runTogether(() -> {
                for (int i = 0; i < m; i++) {
                    Item after = t.updateItem(new UpdateItem(ADDED).update("ADD c :one").value(":one", n(1))
                            .returnValues(ReturnValues.UPDATED_NEW)).orElseThrow();
                    if (!returned.add(number(after))) {
                        duplicates.incrementAndGet();
                    }
                }
            });
            long total = (long) THREADS * m;
            System.out.println("conditional increments: " + total + ", lost updates: " + (total - counter(t, ADDED)));
            assertThat(counter(t, ADDED)).as("counter after every ADD").isEqualTo(total);
            assertThat(duplicates.get()).as("values returned twice").isZero();
            assertThat(new TreeSet<>(returned)).hasSize((int) total).first().isEqualTo(1L);
            assertThat(new TreeSet<>(returned).last()).isEqualTo(total);
        }
    }

    /** Runs {@code body} on {@value #THREADS} threads released together; fails on any error or a hang. */
    private static void runTogether(ThrowingRunnable body) throws Exception {
        CyclicBarrier barrier = new CyclicBarrier(THREADS);
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            threads.add(new Thread(() -> {
                try {
                    barrier.await(30, TimeUnit.SECONDS);
                    body.run();
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "increment-" + i));
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(120));
            assertThat(thread.isAlive()).as("%s hangs", thread.getName()).isFalse();
        }
        assertThat(failures).isEmpty();
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    private static long counter(Table t, Key key) {
        return number(t.getItem(key).orElseThrow());
    }

    private static long number(Item item) {
        return ((AttributeValue.N) item.get("c")).value().longValueExact();
    }
}
