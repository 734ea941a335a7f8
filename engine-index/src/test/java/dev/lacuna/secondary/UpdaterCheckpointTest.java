package dev.lacuna.secondary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.index.ChangeLog;
import dev.lacuna.index.ChangeRecord;
import dev.lacuna.index.IndexEntry;
import dev.lacuna.kv.WriteBatch;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/**
 * Where the GSI updater puts its checkpoint: a routine one stays behind the last record applied, at an LSN it
 * applied a batch at, so that the entries written since stay in memory (a queue's entries, opened and closed
 * within moments, then never reach a file); closing checkpoints everything.
 */
class UpdaterCheckpointTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** Enough records for a routine checkpoint and some. */
    private static final long RECORDS = GlobalIndexUpdater.CHECKPOINT_RECORDS + 3 * GlobalIndexUpdater.YOUNG_LSNS;

    @Test
    void shouldKeepARoutineCheckpointBehindTheLastRecordAppliedAtABatchBoundary() throws InterruptedException {
        EmptyLog log = new EmptyLog();
        GlobalIndexUpdater updater = new GlobalIndexUpdater(log, new IndexEntries(log));
        log.applied = updater::appliedLsn;
        updater.start(null);
        try {
            assertThat(updater.awaitApplied(RECORDS, WAIT)).isTrue();
        } finally {
            updater.close();
        }
        assertThat(log.checkpoints).hasSizeGreaterThanOrEqualTo(2);
        long[] routine = log.checkpoints.get(0);
        long at = routine[0];
        long applied = routine[1];
        // Every record is in the log from the start, so batches are whole: a batch boundary is a multiple of it.
        assertThat(at % GlobalIndexUpdater.BATCH_RECORDS).isZero();
        // Behind what was applied when it was taken (on a thread of its own: the updater may have gone further)...
        assertThat(applied - at).isGreaterThanOrEqualTo(GlobalIndexUpdater.YOUNG_LSNS);
        // ... and, chosen once CHECKPOINT_RECORDS were applied, no further behind than two marks and a batch.
        assertThat(at).isGreaterThanOrEqualTo(GlobalIndexUpdater.CHECKPOINT_RECORDS - 2 * GlobalIndexUpdater.YOUNG_LSNS
                - GlobalIndexUpdater.BATCH_RECORDS);
        assertThat(log.checkpoints.get(log.checkpoints.size() - 1)[0]).isEqualTo(RECORDS); // closing: all of it
    }

    /**
     * The updater goes on applying the log while a routine checkpoint is being taken (its log sync and its wait
     * for the index's flush used to hold back every write logged meanwhile: the index lag's tail, issue 13),
     * takes one checkpoint at a time, and on closing waits for the routine one before taking its own.
     */
    @Test
    void shouldGoOnApplyingTheLogWhileARoutineCheckpointIsTaken() throws InterruptedException {
        EmptyLog log = new EmptyLog();
        CountDownLatch held = new CountDownLatch(1);
        log.hold = held;
        GlobalIndexUpdater updater = new GlobalIndexUpdater(log, new IndexEntries(log));
        log.applied = updater::appliedLsn;
        updater.start(null);
        try {
            assertThat(log.checkpointStarted.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("a routine checkpoint")
                    .isTrue();
            assertThat(updater.awaitApplied(RECORDS, WAIT)).as("the whole log applied while the checkpoint is held")
                    .isTrue();
            assertThat(log.checkpoints).as("the held checkpoint has not ended").isEmpty();
        } finally {
            held.countDown();
            updater.close();
        }
        assertThat(log.overlapped).as("two checkpoints taken at once").isFalse();
        assertThat(log.checkpoints).hasSizeGreaterThanOrEqualTo(2);
        assertThat(log.checkpoints.get(0)[0]).isLessThan(RECORDS); // the routine one, ended first
        assertThat(log.checkpoints.get(log.checkpoints.size() - 1)[0]).isEqualTo(RECORDS); // closing: all of it
    }

    /**
     * A routine checkpoint that fails while the updater is closing (its failure found once the closing updater has
     * waited for it) was dropped without a word, and the closing checkpoint skipped with it: the updater's retry loop
     * takes any failure while closing for the close's doing. The failure is now logged (WARNING), and the closing
     * checkpoint is still taken, so that a reopen need not read the log again from the last checkpoint.
     */
    @Test
    void shouldLogARoutineCheckpointFailingWhileClosingAndStillTakeTheClosingOne() throws Exception {
        EmptyLog log = new EmptyLog();
        CountDownLatch held = new CountDownLatch(1);
        log.hold = held;
        log.heldFails = new IllegalStateException("injected: the routine checkpoint failed");
        GlobalIndexUpdater updater = new GlobalIndexUpdater(log, new IndexEntries(log));
        log.applied = updater::appliedLsn;
        UpdaterLog said = new UpdaterLog();
        Thread closer = new Thread(updater::close, "closer");
        try {
            updater.start(null);
            Thread updaterThread = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals("lacuna-index-Tickets-GSI1")).findFirst().orElseThrow();
            assertThat(log.checkpointStarted.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("a routine checkpoint")
                    .isTrue();
            assertThat(updater.awaitApplied(RECORDS, WAIT)).isTrue();
            closer.start();
            // The updater, closing, waits for the held checkpoint (its thread joins it); it spins until then.
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (updaterThread.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
                closer.join(1); // a timed wait, polling the updater's state
            }
            assertThat(updaterThread.getState()).as("the closing updater waits for the routine checkpoint")
                    .isEqualTo(Thread.State.WAITING);
        } finally {
            held.countDown();
            closer.join(WAIT.toMillis());
            updater.close();
            said.close();
        }
        assertThat(said.records).as("what the updater logged").filteredOn(r -> r.getLevel() == Level.WARNING)
                .anySatisfy(r -> assertThat(r.getMessage()).contains("injected: the routine checkpoint failed"));
        assertThat(log.checkpoints).as("checkpoints taken").isNotEmpty();
        assertThat(log.checkpoints.get(log.checkpoints.size() - 1)[0]).as("closing: all of it").isEqualTo(RECORDS);
    }

    /**
     * An index opened with its checkpoint below the log's end may have lost, in a crash, the entries its routine
     * checkpoint kept in memory: it is consistent only once it has applied the log up to the end it found, and says
     * so (queries wait for that); once there, nothing more to wait for.
     */
    @Test
    void shouldBeConsistentOnlyOnceTheLogHeldAtTheOpenIsAppliedAgain() throws InterruptedException {
        EmptyLog log = new EmptyLog();
        GlobalIndexUpdater updater = new GlobalIndexUpdater(log, new IndexEntries(log));
        log.applied = updater::appliedLsn;
        assertThat(updater.consistentFrom()).isZero();
        updater.start(null);
        try {
            assertThat(updater.consistentFrom()).as("the log's end at the open").isEqualTo(RECORDS);
            assertThat(updater.awaitApplied(updater.consistentFrom(), WAIT)).isTrue();
        } finally {
            updater.close();
        }
    }

    /** A log of {@link #RECORDS} records that change nothing the index holds. */
    static class EmptyLog extends TicketsIndexContext {
        /** Each checkpoint: its LSN, and the LSN applied when it was taken. */
        final List<long[]> checkpoints = new CopyOnWriteArrayList<>();
        /** The updater's applied LSN. */
        volatile LongSupplier applied = () -> -1;
        /** If set, the first checkpoint waits for it to open. */
        volatile CountDownLatch hold;
        /** If set, what the held checkpoint throws once released. */
        volatile RuntimeException heldFails;
        /** Counted down when a checkpoint starts. */
        final CountDownLatch checkpointStarted = new CountDownLatch(1);
        private final AtomicInteger taking = new AtomicInteger();
        /** Whether a checkpoint started while another was being taken. */
        volatile boolean overlapped;

        @Override
        public long lastLsn() {
            return RECORDS;
        }

        @Override
        public ChangeLog readChanges(long afterLsn) {
            return new ChangeLog() {
                private long next = afterLsn + 1;

                @Override
                public ChangeRecord next(Duration timeout) {
                    return next <= RECORDS ? new ChangeRecord(next++, List.of(), 1) : null;
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public IndexEntry entry(AttributeValue pk, AttributeValue sk, Key baseKey, Item projected) {
            throw new UnsupportedOperationException("no item reaches the index");
        }

        @Override
        public void apply(WriteBatch batch, long lsn) {
            throw new UnsupportedOperationException("no record changes the index");
        }

        @Override
        public void checkpoint(long lsn) {
            if (taking.incrementAndGet() > 1) {
                overlapped = true;
            }
            try {
                long appliedNow = applied.getAsLong();
                checkpointStarted.countDown();
                CountDownLatch h = hold;
                if (h != null) {
                    hold = null;
                    h.await();
                    RuntimeException fails = heldFails;
                    if (fails != null) {
                        throw fails;
                    }
                }
                checkpoints.add(new long[] {lsn, appliedNow});
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while held", e);
            } finally {
                taking.decrementAndGet();
            }
        }
    }
}
