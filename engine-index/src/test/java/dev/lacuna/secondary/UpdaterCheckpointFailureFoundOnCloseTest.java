package dev.lacuna.secondary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.index.ChangeLog;
import dev.lacuna.index.ChangeRecord;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/**
 * A routine checkpoint that failed while the caught-up updater waited for the log is found only once close interrupts
 * that wait: the loop body's checkpointDone() threw it, retrying() took it for the close's doing, and both the failure
 * and the closing checkpoint were lost without a word (the next open read the log again from the older checkpoint).
 * The failure must be logged (WARNING) and the closing checkpoint taken, as UpdaterCheckpointTest checks for a failure
 * found by the closing updater itself.
 */
class UpdaterCheckpointFailureFoundOnCloseTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final long RECORDS = GlobalIndexUpdater.CHECKPOINT_RECORDS + 3 * GlobalIndexUpdater.YOUNG_LSNS;

    @Test
    void shouldLogARoutineCheckpointFailureFoundWhenCloseInterruptsThePoll() throws Exception {
        BlockingLog log = new BlockingLog();
        CountDownLatch held = new CountDownLatch(1);
        log.hold = held;
        log.heldFails = new IllegalStateException("injected: the routine checkpoint failed");
        GlobalIndexUpdater updater = new GlobalIndexUpdater(log, new IndexEntries(log));
        log.applied = updater::appliedLsn;
        UpdaterLog said = new UpdaterLog();
        try {
            updater.start(null);
            assertThat(log.checkpointStarted.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("a routine checkpoint")
                    .isTrue();
            assertThat(updater.awaitApplied(RECORDS, WAIT)).isTrue();
            assertThat(log.polling.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the updater waits for the log")
                    .isTrue();
            Thread checkpointer = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().startsWith("lacuna-checkpoint-")).findFirst().orElseThrow();
            held.countDown(); // the routine checkpoint fails while the updater waits for the log
            checkpointer.join(WAIT.toMillis());
            assertThat(checkpointer.isAlive()).isFalse();
        } finally {
            held.countDown();
            updater.close();
            said.close();
        }
        assertThat(log.checkpoints.isEmpty() ? -1 : log.checkpoints.get(log.checkpoints.size() - 1)[0])
                .as("closing checkpoint (also checked below)").isEqualTo(RECORDS);
        assertThat(said.records).as("what the updater logged").filteredOn(r -> r.getLevel() == Level.WARNING)
                .anySatisfy(r -> assertThat(r.getMessage()).contains("injected: the routine checkpoint failed"));
        assertThat(log.checkpoints).as("checkpoints taken").isNotEmpty();
        assertThat(log.checkpoints.get(log.checkpoints.size() - 1)[0]).as("closing: all of it").isEqualTo(RECORDS);
    }

    /**
     * {@link UpdaterCheckpointTest.EmptyLog}'s log of {@link #RECORDS} records that change nothing the index holds,
     * except that once read to its end it waits until close interrupts the poll.
     */
    private static final class BlockingLog extends UpdaterCheckpointTest.EmptyLog {
        /** Counted down when the updater waits for the log, caught up. */
        final CountDownLatch polling = new CountDownLatch(1);

        @Override
        public ChangeLog readChanges(long afterLsn) {
            return new ChangeLog() {
                private long next = afterLsn + 1;

                @Override
                public ChangeRecord next(Duration timeout) throws InterruptedException {
                    if (next <= RECORDS) {
                        return new ChangeRecord(next++, List.of(), 1);
                    }
                    if (timeout.isZero()) {
                        return null; // a batch's look at what the log already holds
                    }
                    polling.countDown();
                    new CountDownLatch(1).await(); // a log with nothing new: waits until close interrupts the poll
                    return null;
                }

                @Override
                public void close() {
                }
            };
        }
    }
}
