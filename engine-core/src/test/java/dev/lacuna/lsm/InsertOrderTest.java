package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.sstable.BlockCache;
import dev.lacuna.sstable.Lz4;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Writes whose memtable inserts run outside the commit lock ({@link InsertOrder}, {@link CommitLock}): a write
 * is published only once every write begun before it is, its writer returns only once it is, and a holder of
 * the commit lock through {@code lock()} finds no insert in flight. Each case holds a write "in flight" by not
 * finishing its ticket, as a writer preempted in the middle of its inserts would.
 */
class InsertOrderTest {
    private final KvOptions options = KvOptions.builder().vfs(new MemVfs()).build();
    private final Path dir = Path.of("/db");
    private final Db db = new Db(options, dir,
            new SstableCache(options.vfs(), dir, new BlockCache(1 << 20), Lz4.fastest(), 16));
    private Thread blocked;

    @AfterEach
    void tearDown() throws InterruptedException {
        if (blocked != null) {
            blocked.join(TimeUnit.SECONDS.toMillis(30));
        }
    }

    @Test
    void shouldPublishNoLaterWriteBeforeAnEarlierOneIsInserted() throws Exception {
        InsertOrder.Ticket first = new InsertOrder.Ticket();
        InsertOrder.Ticket second = new InsertOrder.Ticket();
        db.inserts.begin(first, 1, false);
        db.inserts.begin(second, 2, false);

        CompletableFuture<Void> secondDone = finishInThread(second);
        awaitWaiting(blocked);
        assertThat(db.visibleSequence).as("visible while write 1 is still inserting").isZero();
        assertThat(secondDone).as("write 2's writer returned before it was visible").isNotDone();

        db.inserts.finish(first);
        secondDone.get(30, TimeUnit.SECONDS);
        assertThat(db.visibleSequence).isEqualTo(2);
        assertThat(db.inserts.idle()).isTrue();
    }

    /**
     * Writes whose grouped log write failed (cut from the log with every write after them) are dropped unpublished:
     * by their writers ({@code abandon}), or by the write that is given their LSN again first.
     */
    @Test
    void shouldDropWritesWhoseLogWriteFailedUnpublished() {
        InsertOrder.Ticket good = new InsertOrder.Ticket();
        InsertOrder.Ticket failed = new InsertOrder.Ticket();
        InsertOrder.Ticket failedToo = new InsertOrder.Ticket();
        db.inserts.begin(good, 1, false);
        db.inserts.begin(failed, 2, false);
        db.inserts.begin(failedToo, 3, false);
        db.inserts.abandon(failed);
        db.inserts.finish(good);
        assertThat(db.visibleSequence).isEqualTo(1);

        InsertOrder.Ticket again = new InsertOrder.Ticket();
        db.inserts.begin(again, 2, false); // LSN 2 handed out again before failedToo's writer abandoned it
        db.inserts.finish(again);
        db.inserts.abandon(failedToo);
        assertThat(db.visibleSequence).isEqualTo(2);
        assertThat(db.inserts.idle()).isTrue();
    }

    @Test
    void shouldReturnAtOnceWhenEveryEarlierWriteIsInserted() {
        InsertOrder.Ticket first = new InsertOrder.Ticket();
        InsertOrder.Ticket second = new InsertOrder.Ticket();
        db.inserts.begin(first, 1, false);
        db.inserts.begin(second, 2, false);

        db.inserts.finish(first);
        assertThat(db.visibleSequence).as("write 1 alone").isEqualTo(1);
        db.inserts.finish(second);
        assertThat(db.visibleSequence).isEqualTo(2);
    }

    @Test
    void shouldHoldASyncWriteBackUntilItsLogIsDurable() {
        InsertOrder.Ticket sync = new InsertOrder.Ticket();
        InsertOrder.Ticket none = new InsertOrder.Ticket();
        db.inserts.begin(sync, 1, true);
        db.inserts.begin(none, 2, false);
        db.inserts.finish(sync);
        db.inserts.finish(none);

        assertThat(db.loggedSequence).isEqualTo(2);
        assertThat(db.visibleSequence).as("a SYNC write waiting for its fsync").isZero();
        db.visibility.durable(1);
        assertThat(db.visibleSequence).isEqualTo(2);
    }

    @Test
    void shouldMakeTheCommitLockWaitForInsertsInFlight() throws Exception {
        InsertOrder.Ticket inFlight = new InsertOrder.Ticket();
        db.inserts.begin(inFlight, 1, false);

        CompletableFuture<Long> seen = new CompletableFuture<>();
        blocked = new Thread(() -> {
            db.commitLock.lock();
            try {
                seen.complete(db.visibleSequence);
            } finally {
                db.commitLock.unlock();
            }
        });
        blocked.start();
        awaitWaiting(blocked);
        assertThat(seen).as("took the commit lock with an insert in flight").isNotDone();

        db.inserts.finish(inFlight);
        assertThat(seen.get(30, TimeUnit.SECONDS)).as("what the lock's holder saw visible").isEqualTo(1);
    }

    @Test
    void shouldLetTheNextWriterAppendWhileInsertsAreInFlight() throws Exception {
        InsertOrder.Ticket inFlight = new InsertOrder.Ticket();
        db.inserts.begin(inFlight, 1, false);

        CompletableFuture<Boolean> appended = CompletableFuture.supplyAsync(() -> {
            db.commitLock.lockForAppend();
            try {
                return true;
            } finally {
                db.commitLock.unlock();
            }
        });
        assertThat(appended.get(30, TimeUnit.SECONDS)).isTrue();
        db.inserts.finish(inFlight);
    }

    private CompletableFuture<Void> finishInThread(InsertOrder.Ticket ticket) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        blocked = new Thread(() -> {
            db.inserts.finish(ticket);
            done.complete(null);
        });
        blocked.start();
        return done;
    }

    /** Waits (up to 30 s) until {@code thread} parks: it waits for the monitor or a notification. */
    private static void awaitWaiting(Thread thread) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TERMINATED) {
            assertThat(System.nanoTime()).as("the thread never waited").isLessThan(deadline);
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    /**
     * {@code begin} runs between a write's log reservation and its log write, where nothing may fail: with room
     * made first ({@code makeRoom}, before the reservation), it allocates nothing, also when the queue is full:
     * its array is never replaced there. On the ArrayDeque it used, the 17th write in flight grew the queue in
     * {@code begin}, and an OutOfMemoryError at that point left the reserved record to the next grouped write, logged
     * while its writer was told it failed.
     */
    @Test
    void shouldBeginWithoutGrowingTheQueueOnceRoomIsMade() {
        InsertOrder.Ticket[] tickets = new InsertOrder.Ticket[100];
        int grownInBegin = 0;
        int grownBefore = 0;
        Object array = LsmInternals.field(db.inserts, "inFlight");
        for (int i = 0; i < tickets.length; i++) {
            tickets[i] = new InsertOrder.Ticket();
            db.inserts.makeRoom();
            Object made = LsmInternals.field(db.inserts, "inFlight");
            if (made != array) {
                grownBefore++;
            }
            db.inserts.begin(tickets[i], i + 1, false);
            array = LsmInternals.field(db.inserts, "inFlight");
            if (array != made) {
                grownInBegin++;
            }
        }
        assertThat(grownBefore).as("the queue grown by makeRoom (16 to 128 slots)").isEqualTo(3);
        assertThat(grownInBegin).as("the queue grown inside begin").isZero();
        for (InsertOrder.Ticket t : tickets) {
            db.inserts.finish(t);
        }
        assertThat(db.visibleSequence).isEqualTo(tickets.length);
        assertThat(db.inserts.idle()).isTrue();
    }
}
