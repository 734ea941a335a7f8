package dev.lacuna.secondary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.DatabaseStats;
import dev.lacuna.IndexDescription;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.KeyAttribute;
import dev.lacuna.Query;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.storage.DatabaseClosedException;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Index back-pressure ({@link DatabaseOptions#maxIndexLagRecords()}): with the updater held ({@link HeldIndexReads}),
 * writers to the table slow down and then stall at the limit, the stall shows in {@link Database#stats()}, they
 * go on once the updater does, the lag never passes the limit by more than the writers in flight, and a close
 * during a stall ends the stalled writes instead of hanging on them.
 */
class IndexBackPressureTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final IndexSpec GSI1 = IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK"));
    private static final long LIMIT = 200;

    private static Database open(HeldIndexReads vfs) {
        return Database.open(Path.of("/db"), DatabaseOptions.builder().vfs(vfs).durability(Durability.NONE)
                .maxIndexLagRecords(LIMIT).build());
    }

    private static Table ticketsWithIndex(Database db) {
        db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S).index(GSI1).build());
        Table t = db.table("Tickets");
        t.putItem(ticket("T0", 0));
        IndexChecker.awaitCatchUp(db, "Tickets", "GSI1", WAIT);
        return t;
    }

    private static Item ticket(String pk, int i) {
        return Item.builder().s("pk", pk).s("GSI1PK", "QUEUE#open").s("GSI1SK", String.format("P#%06d", i)).build();
    }

    @Test
    void shouldStallWritersAtTheLimitAndLetThemGoOnOnceTheIndexCatchesUp() throws Exception {
        HeldIndexReads vfs = new HeldIndexReads(new MemVfs());
        try (Database db = open(vfs)) {
            Table t = ticketsWithIndex(db);
            vfs.hold();
            int writers = 2;
            int writesEach = 500;
            AtomicLong maxLag = new AtomicLong();
            AtomicInteger done = new AtomicInteger();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                String pk = "MOVER" + w;
                Thread thread = new Thread(() -> {
                    try {
                        for (int i = 1; i <= writesEach; i++) {
                            t.putItem(ticket(pk, i));
                            done.incrementAndGet();
                            maxLag.accumulateAndGet(db.describeTable("Tickets").index("GSI1").lagLsn(), Math::max);
                        }
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                }, "writer-" + w);
                thread.start();
                threads.add(thread);
            }
            assertThat(vfs.awaitHeld(WAIT.toNanos())).as("the updater is held").isTrue();
            // Past half the limit writers are slowed (held a moment each write); at the limit they stall.
            IndexChecker.await(() -> {
                IndexDescription i = db.describeTable("Tickets").index("GSI1");
                return i.writersHeld() == writers && i.lagLsn() >= LIMIT;
            }, WAIT, "both writers stalling at the limit");
            IndexDescription stalled = db.describeTable("Tickets").index("GSI1");
            assertThat(done.get()).as("writes acknowledged while the updater is held")
                    .isLessThanOrEqualTo((int) LIMIT + writers);
            assertThat(stalled.lagLsn()).isBetween(LIMIT, LIMIT + writers);
            assertThat(stalled.writersHeld()).isEqualTo(writers);
            assertThat(stalled.writeStallCause()).contains("index GSI1 of table Tickets")
                    .contains("log records behind (limit 200)");
            long stalledAt = System.nanoTime();
            while (System.nanoTime() - stalledAt < 2_000_000) {
                Thread.onSpinWait(); // a stall that certainly lasts a whole millisecond, to be counted
            }
            vfs.release();
            for (Thread thread : threads) {
                thread.join(WAIT.toMillis());
                assertThat(thread.isAlive()).as("%s goes on once the index catches up", thread.getName()).isFalse();
            }
            assertThat(failure.get()).isNull();
            assertThat(done.get()).isEqualTo(writers * writesEach);
            assertThat(maxLag.get()).as("the lag, never past the limit by more than the writers in flight")
                    .isLessThanOrEqualTo(LIMIT + writers);
            DatabaseStats stats = db.stats();
            assertThat(stats.writersHeldByIndexes()).isZero();
            assertThat(stats.indexWriteStallMillis()).isPositive();
            IndexChecker.awaitCatchUp(db, "Tickets", "GSI1", WAIT);
            List<Item> queue = t.query(new Query("GSI1PK = :q").index("GSI1").value(":q", AttributeValue.s("QUEUE#open")))
                    .items();
            assertThat(queue).extracting(i -> i.getString("GSI1SK"))
                    .containsExactly("P#000000", String.format("P#%06d", writesEach), String.format("P#%06d", writesEach));
        }
    }

    @Test
    void shouldEndStalledWritesWhenTheDatabaseCloses() throws Exception {
        HeldIndexReads vfs = new HeldIndexReads(new MemVfs());
        Database db = open(vfs);
        Thread closer = null;
        try {
            Table t = ticketsWithIndex(db);
            vfs.hold();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread writer = new Thread(() -> {
                try {
                    for (int i = 1; ; i++) {
                        t.putItem(ticket("MOVER", i));
                    }
                } catch (Throwable e) {
                    failure.set(e);
                }
            }, "writer");
            writer.start();
            IndexChecker.await(() -> db.stats().writersHeldByIndexes() == 1 && db.stats().maxIndexLagLsn() >= LIMIT, WAIT,
                    "the writer stalling at the limit");
            closer = new Thread(db::close, "closer");
            closer.start();
            writer.join(WAIT.toMillis());
            assertThat(writer.isAlive()).as("the stalled write ends with the close").isFalse();
            assertThat(failure.get()).isInstanceOf(DatabaseClosedException.class);
        } finally {
            vfs.release(); // the updater, held by the test's file system, must end for the close to
            if (closer != null) {
                closer.join(WAIT.toMillis());
                assertThat(closer.isAlive()).as("the close ends").isFalse();
            } else {
                db.close();
            }
        }
    }
}
