package dev.lacuna.secondary;

import dev.lacuna.IndexStatus;
import dev.lacuna.Item;
import dev.lacuna.index.BackfillProgress;
import dev.lacuna.index.ChangeLog;
import dev.lacuna.index.ChangeRecord;
import dev.lacuna.index.IndexContext;
import dev.lacuna.index.IndexEntry;
import dev.lacuna.index.IndexMaintainer;
import dev.lacuna.index.ItemChange;
import dev.lacuna.jfr.EventGuard;
import dev.lacuna.kv.KvSnapshot;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.LacunaException;
import dev.lacuna.storage.RetryPolicy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import jdk.jfr.EventType;

/**
 * Keeps one global secondary index: a background thread that reads the log in LSN order from the index's
 * checkpoint and turns each write of the table (the item before and after, both in the record) into puts
 * and deletes of index entries, applied unlogged at the record's LSN. Applying a record twice gives the
 * same entries at the same sequence numbers, so after a crash the updater simply reads the log again from
 * its checkpoint.
 *
 * <p>The checkpoint moves every {@value #CHECKPOINT_RECORDS} records (or after a quiet spell): the index
 * keyspace is flushed first, then the checkpoint recorded in the manifest, so it never claims more than
 * the index's files hold; the log keeps every record above it. A routine checkpoint is taken on a thread of
 * its own while the updater goes on applying the log (one at a time): taken on the updater's thread, its log
 * sync and the wait for the index keyspace's flush (tens of milliseconds, hundreds on a busy machine) held
 * back every write acknowledged meanwhile: a burst of late entries at each checkpoint, in the index lag's tail
 * (issue 13, {@code IndexLagProfile}). The one taken on closing is the updater's own, after any routine one
 * has ended. A routine checkpoint stays {@value #YOUNG_LSNS} to twice that many LSNs behind the last record
 * applied, and the entries written since stay in memory ({@link IndexContext#checkpoint}): under churn (a
 * queue's entries created and deleted within
 * moments) a checkpoint at the last record would push the entries open at that moment into a file, and each
 * deletion of one would then leave a tombstone over a put that every read of the queue steps over until a
 * compaction meets the two; kept in memory, the deletion annihilates the put. The window is sized for entries that
 * move, not only for those closed within moments: a queue where every write moves one of 10,000 tickets to the
 * tail (IndexLagBenchmark) keeps each entry open for 10,000 records; with a window of 4,096 each checkpoint
 * pushed about half the open entries into a file, and a read of a queue's head stepped over ~500 dead entries
 * ({@code MovingQueueReadCostTest}). The price of a wider window is bounded: a restart reads at most
 * {@value #CHECKPOINT_RECORDS} plus twice {@value #YOUNG_LSNS} records again, and the carried entries are at
 * most the keys written within it.
 *
 * <p>A transient error (an I/O error: a full disk) while reading the log, applying entries or checkpointing
 * is retried with a bounded backoff ({@link RetryPolicy#defaults()}), reading the log again from the last
 * record applied; only a permanent one (corruption, a bug) makes the index {@link IndexStatus#FAILED}.
 *
 * <p>A new index on a table that holds items is first backfilled from a snapshot (status {@code CREATING},
 * progress readable), then follows the log after the snapshot.
 */
final class GlobalIndexUpdater implements IndexMaintainer {
    /** Log records between two checkpoints (bounds how much log a restart reads again). */
    static final long CHECKPOINT_RECORDS = 50_000;
    /**
     * How far (in LSNs, at least) a routine checkpoint stays behind the last record applied; see the class. Under
     * half of {@link #CHECKPOINT_RECORDS}: the mark a routine checkpoint goes to (two marks back at most) is then
     * always above the last checkpoint, so it never falls back to the last record applied.
     */
    static final long YOUNG_LSNS = 16_384;
    /** Items per unlogged batch while backfilling. */
    private static final int BACKFILL_BATCH = 512;
    /** Log records applied as one batch at most (see {@link #applyBatch}). */
    static final int BATCH_RECORDS = 1024;
    /** Index writes in one applied batch at most: bounds its memory and how long a reader waits for its lock. */
    static final int BATCH_WRITES = 8192;
    /** How long a read of the log waits for a record before the updater checks for an idle checkpoint. */
    private static final Duration POLL = Duration.ofMillis(50);
    /** How transient errors are told from permanent ones, and waited out. */
    private static final RetryPolicy RETRY = RetryPolicy.defaults();
    private static final System.Logger LOG = System.getLogger(GlobalIndexUpdater.class.getName());

    private final IndexContext context;
    private final IndexEntries entries;
    /** This updater's JFR events: one that fails never stops the updater (see {@link EventGuard}). */
    private final EventGuard events;
    private final EventType applyEvents;
    private final Object progress = new Object();
    private volatile long applied;
    /** See {@link #consistentFrom()}: the log's end at the open, if the checkpoint was below it. */
    private volatile long consistentFrom;
    /** When the updater last had applied everything logged (epoch ms by the context's clock). */
    private volatile long caughtUpAt;
    /** The write time of the record read and not yet applied, or 0 if none is (or it has none). */
    private volatile long inHandWrittenAt;
    /** The write time of the last record applied, or 0. */
    private volatile long appliedWrittenAt;
    private volatile IndexStatus status = IndexStatus.ACTIVE;
    private volatile Throwable error;
    private volatile long backfillDone;
    private volatile long backfillTotal;
    private volatile boolean stopping;
    /** The LSN of the last checkpoint taken; written by the thread that took it (see {@link #checkpointer}). */
    private volatile long checkpointed;
    /** The thread taking a routine checkpoint, or null (updater thread only). */
    private Thread checkpointer;
    /** What the last routine checkpoint threw, for the updater's thread to throw (read once it has ended). */
    private volatile Throwable checkpointFailure;
    /** The LSN of a batch applied (updater thread only): the newest of two marks at least {@link #YOUNG_LSNS} apart. */
    private long mark;
    /** The mark before {@link #mark}: where a routine checkpoint goes. */
    private long markBefore;
    /**
     * The highest LSN whose index writes may already be in the index: the log's end when the updater was started
     * (a previous run may have applied records ahead of its checkpoint), raised to each batch's last LSN before the
     * batch is handed over (a failed apply may have gone in). Records above it were applied by no one, so a batch
     * starting above it may leave out what it both creates and deletes ({@link IndexBatch#toWriteBatch}). Fixed at
     * {@link #start}, not when the thread begins to follow the log: read there, a thread that began late took
     * every record written meanwhile as possibly applied, and wrote a tombstone for each entry they created and
     * deleted (UpdaterLateStartTest). Set before the thread starts, then by the updater thread only.
     */
    private long mayBeAppliedUpTo;
    private Thread thread;
    /** Guards {@link #polling}, so that {@link #close()} interrupts the thread only while it waits for the log. */
    private final Object pollLock = new Object();
    /** The thread is inside {@link #poll}: waiting for the next log record. Guarded by {@link #pollLock}. */
    private boolean polling;

    GlobalIndexUpdater(IndexContext context, IndexEntries entries) {
        this.context = context;
        this.entries = entries;
        this.caughtUpAt = context.clock().millis();
        this.events = new EventGuard("the updater of index " + context.index().name() + " of table "
                + context.table().name());
        this.applyEvents = events.type(() -> EventType.getEventType(IndexApplyEvent.class));
    }

    @Override
    public boolean synchronous() {
        return false;
    }

    @Override
    public List<IndexEntry> entries(Item item) {
        return entries.of(item);
    }

    @Override
    public synchronized void start(KvSnapshot backfillFrom) {
        if (thread != null) {
            throw new IllegalStateException("already started");
        }
        if (backfillFrom != null) {
            status = IndexStatus.CREATING;
        } else if (context.checkpointLsn() < context.lastLsn()) {
            // The log after the checkpoint may rewrite entries the checkpoint kept in memory and a crash lost:
            // reads wait until it is applied again (an open after a clean close has nothing to wait for).
            consistentFrom = context.lastLsn();
        }
        mayBeAppliedUpTo = context.lastLsn();
        // A daemon (close() stops it; a forgotten database must not keep the JVM alive), counted as the database's.
        thread = context.newThread(() -> run(backfillFrom),
                "lacuna-index-" + context.table().name() + "-" + context.index().name());
        thread.start();
    }

    private void run(KvSnapshot backfillFrom) {
        try {
            long from;
            if (backfillFrom != null) {
                try (backfillFrom) {
                    retrying(() -> backfill(backfillFrom));
                    from = backfillFrom.sequence();
                }
                retrying(() -> {
                    context.flush();
                    context.activated();
                });
                status = IndexStatus.ACTIVE;
            } else {
                from = context.checkpointLsn();
            }
            checkpointed = from;
            mark = from;
            markBefore = from;
            advance(from);
            // After a transient error the log is read again from the last record applied whole: applying a
            // record twice gives the same entries at the same sequence numbers.
            try {
                retrying(() -> follow(applied));
            } finally {
                awaitCheckpointer(); // nothing of the updater outlives its thread (close joins that thread)
            }
        } catch (InterruptedException e) {
            // closing
        } catch (Throwable t) {
            if (!stopping) {
                error = t;
                status = IndexStatus.FAILED;
                LOG.log(System.Logger.Level.ERROR, "index " + context.index().name() + " of table "
                        + context.table().name() + " FAILED and is no longer kept; it is rebuilt at the next open", t);
                context.failed(); // rebuilt at the next open; meanwhile it no longer keeps the log
            }
        } finally {
            synchronized (progress) {
                progress.notifyAll();
            }
        }
    }

    /** A step of the updater that may be run again from its start after a transient error. */
    @FunctionalInterface
    private interface Step {
        void run() throws InterruptedException;
    }

    /**
     * Runs {@code step}, running it again after each transient error (an I/O error: a full disk, a store
     * retrying a flush) once a backoff has passed, as long as the updater is not closing. A permanent error
     * (corruption, a bug) is thrown, and the index goes {@link IndexStatus#FAILED}. The backoff starts again
     * whenever the step made progress between two errors.
     */
    private void retrying(Step step) throws InterruptedException {
        int attempt = 0;
        long appliedAtLastError = -1;
        while (true) {
            try {
                step.run();
                return;
            } catch (RuntimeException e) {
                if (stopping) {
                    throw new InterruptedException("closing"); // a close is no failure, whatever it caused
                }
                if (!RETRY.retries(e)) {
                    throw e;
                }
                attempt = applied != appliedAtLastError ? 1 : attempt + 1;
                appliedAtLastError = applied;
                if (attempt == 1) {
                    LOG.log(System.Logger.Level.WARNING, "index " + context.index().name() + " of table "
                            + context.table().name() + ": retrying after " + e);
                }
                pause(RETRY.delayNanos(attempt));
            }
        }
    }

    /** Waits {@code nanos}, or until the updater is closing (then throws {@link InterruptedException}). */
    private void pause(long nanos) throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        synchronized (progress) {
            while (!stopping) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                progress.wait(left / 1_000_000, (int) (left % 1_000_000));
            }
        }
        throw new InterruptedException("closing");
    }

    private void backfill(KvSnapshot snapshot) {
        backfillDone = 0; // a retry starts over: entries applied twice are the same entries
        long[] total = {0};
        context.scanTable(snapshot, item -> total[0]++);
        backfillTotal = total[0];
        WriteBatch[] batch = {new WriteBatch()};
        int[] inBatch = {0};
        context.scanTable(snapshot, item -> {
            if (stopping) {
                throw new IllegalStateException("closed during backfill");
            }
            for (IndexEntry e : entries.of(item)) {
                batch[0].put(e.key(), e.value());
            }
            if (++inBatch[0] == BACKFILL_BATCH) {
                apply(batch[0], snapshot.sequence());
                backfillDone += inBatch[0];
                batch[0] = new WriteBatch();
                inBatch[0] = 0;
            }
        });
        apply(batch[0], snapshot.sequence());
        backfillDone += inBatch[0];
    }

    private void follow(long from) throws InterruptedException {
        long quietSince = System.nanoTime();
        try (ChangeLog log = context.readChanges(from)) {
            while (!stopping) {
                ChangeRecord record = poll(log);
                if (record == null) {
                    if (applied >= context.lastLsn()) {
                        caughtUpAt = context.clock().millis();
                    }
                    if (checkpointDoneUnlessClosing() && applied > checkpointed
                            && System.nanoTime() - quietSince > 2_000_000_000L) {
                        checkpointInBackground(applied); // quiet: nothing is being created and deleted
                    }
                    continue;
                }
                quietSince = System.nanoTime();
                applyBatch(log, record, record.lsn() > mayBeAppliedUpTo);
                if (checkpointDoneUnlessClosing() && applied - checkpointed >= CHECKPOINT_RECORDS) {
                    checkpointInBackground(markBefore > checkpointed ? markBefore : applied);
                }
            }
            awaitCheckpointer();
            checkpointOnClose();
        }
    }

    /**
     * Closing: checkpoints everything applied, so that a reopen resumes from here instead of reading the log again.
     * A routine checkpoint that failed meanwhile is logged and the closing one taken all the same: thrown, as outside a
     * close, it reached {@link #retrying}, which takes any failure while closing for the close's doing, and both were
     * lost without a word. A closing checkpoint that fails is logged too: the next open reads the log again from the
     * last checkpoint, and loses nothing.
     */
    private void checkpointOnClose() {
        try {
            checkpointDone();
        } catch (RuntimeException | Error e) {
            LOG.log(System.Logger.Level.WARNING, "index " + context.index().name() + " of table "
                    + context.table().name() + ": a routine checkpoint failed while closing (the closing one is"
                    + " taken instead): " + e, e);
        }
        if (applied <= checkpointed) {
            return;
        }
        try {
            checkpoint(applied);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "index " + context.index().name() + " of table "
                    + context.table().name() + ": the checkpoint on closing failed; the next open reads the log"
                    + " again from LSN " + checkpointed + ": " + e, e);
        }
    }

    /**
     * Applies {@code first} and the records after it that the log already holds (up to {@link #BATCH_RECORDS}
     * records or {@link #BATCH_WRITES} index writes) as one batch at the last one's LSN: one lock and one pass
     * over the memtables per batch instead of per record, which is what lets the updater keep up with a table
     * written at full speed. Readers still see each record whole (they see the batch whole), and a key written
     * by several records of the batch keeps only its last write ({@link IndexBatch}; {@code fresh}: no record of
     * the batch can have been applied before). Entries applied again after a restart may be
     * batched otherwise and so get another sequence number; every key still ends with its last write at the
     * highest sequence it was given, which is all a reader of the newest state sees.
     */
    private void applyBatch(ChangeLog log, ChangeRecord first, boolean fresh) throws InterruptedException {
        inHandWrittenAt = first.writeTimeMillis();
        IndexApplyEvent event = events.begin(applyEvents, IndexApplyEvent::new);
        IndexBatch writes = new IndexBatch();
        int records = 0;
        int changes = 0;
        ChangeRecord last = first;
        for (ChangeRecord record = first; record != null; ) {
            for (ItemChange change : record.changes()) {
                writes.add(entriesOf(change.before()), entriesOf(change.after()));
            }
            changes += record.changes().size();
            records++;
            last = record;
            // Not a wait: only what the log already holds joins the batch, so a lone write is applied at once.
            record = records < BATCH_RECORDS && writes.size() < BATCH_WRITES && !stopping ? log.next(Duration.ZERO) : null;
        }
        WriteBatch batch = writes.toWriteBatch(fresh);
        mayBeAppliedUpTo = Math.max(mayBeAppliedUpTo, last.lsn()); // before: a failed apply may have gone in
        apply(batch, last.lsn());
        appliedWrittenAt = last.writeTimeMillis();
        advance(last.lsn());
        if (applied - mark >= YOUNG_LSNS) {
            markBefore = mark;
            mark = applied;
        }
        inHandWrittenAt = 0;
        if (event != null) { // tested first: the fill below would otherwise be allocated for every batch
            int recordCount = records;
            int changeCount = changes;
            long lsn = last.lsn();
            events.commit(event, e -> {
                e.table = context.table().name();
                e.index = context.index().name();
                e.records = recordCount;
                e.changes = changeCount;
                e.entries = batch.size();
                e.lsn = lsn;
                e.lagRecords = Math.max(context.lastLsn() - lsn, 0);
            });
        }
    }

    /**
     * The next log record, waiting up to {@link #POLL} for one; null if none came or the updater is closing.
     * Only this wait is ever interrupted (by {@link #close()}), so that closing does not wait out the poll:
     * an interrupt elsewhere would fail the record being applied or the final checkpoint.
     */
    private ChangeRecord poll(ChangeLog log) throws InterruptedException {
        synchronized (pollLock) {
            if (stopping) {
                return null;
            }
            polling = true;
        }
        try {
            return log.next(POLL);
        } catch (InterruptedException e) {
            if (stopping) {
                return null;
            }
            throw e;
        } finally {
            synchronized (pollLock) {
                polling = false;
                if (stopping) {
                    // close() may have interrupted the wait just as it ended: the flag is not meant for the
                    // final checkpoint that follows.
                    Thread.interrupted();
                }
            }
        }
    }

    private List<IndexEntry> entriesOf(Item item) {
        return item == null ? List.of() : entries.of(item);
    }

    private void apply(WriteBatch batch, long lsn) {
        if (batch.size() > 0) {
            context.apply(batch, lsn);
        }
    }

    private void advance(long lsn) {
        applied = lsn;
        if (lsn >= context.lastLsn()) {
            caughtUpAt = context.clock().millis();
        }
        synchronized (progress) {
            progress.notifyAll();
        }
    }

    /**
     * Makes everything applied up to {@code at} (an LSN a batch was applied at) durable and moves the checkpoint
     * there ({@link IndexContext#checkpoint}).
     */
    private void checkpoint(long at) {
        context.checkpoint(at);
        checkpointed = at;
    }

    /**
     * Starts {@link #checkpoint}{@code (at)} on a thread of its own, so that the updater goes on applying the
     * log meanwhile (see the class). The store allows it: the index keyspace's memtable switch keeping the keys
     * written after {@code at} is made under the commit lock, which the updater's applies take too. Called only
     * when no checkpoint is being taken ({@link #checkpointDone}).
     */
    private void checkpointInBackground(long at) {
        Thread t = context.newThread(() -> { // a daemon, as the updater's: joined by it, and so by close()
            try {
                checkpoint(at);
            } catch (Throwable e) {
                checkpointFailure = e; // thrown on the updater's thread, which retries or fails as for its own
            }
        }, "lacuna-checkpoint-" + context.table().name() + "-" + context.index().name());
        checkpointer = t;
        t.start();
    }

    /**
     * Whether no routine checkpoint is being taken; throws what the last one threw (once), so that the updater
     * handles it as an error of its own: a transient one is retried (the next checkpoint is taken again), a
     * permanent one fails the index.
     */
    private boolean checkpointDone() {
        Thread t = checkpointer;
        if (t != null && t.isAlive()) {
            return false;
        }
        checkpointer = null;
        Throwable failure = checkpointFailure;
        if (failure != null) {
            checkpointFailure = null;
            if (failure instanceof RuntimeException r) {
                throw r;
            }
            if (failure instanceof Error e) {
                throw e;
            }
            throw new IllegalStateException(failure);
        }
        return true;
    }

    /**
     * {@link #checkpointDone}, except that a failure it finds once the updater is closing is kept for
     * {@link #checkpointOnClose} (which logs it and takes the closing checkpoint all the same) instead of thrown:
     * thrown, it reached {@link #retrying}, which takes any failure while closing for the close's doing, and both the
     * failure and the closing checkpoint were lost (a routine checkpoint failing while the caught-up updater waited in
     * {@link #poll}, found once close interrupted that wait).
     */
    private boolean checkpointDoneUnlessClosing() {
        try {
            return checkpointDone();
        } catch (RuntimeException | Error e) {
            if (!stopping) {
                throw e;
            }
            checkpointFailure = e; // its thread has ended: only this one reads or writes it now
            return false;
        }
    }

    /** Waits for the routine checkpoint being taken, if one is, to end (an interrupt does not cut it short). */
    private void awaitCheckpointer() {
        Thread t = checkpointer;
        if (t == null) {
            return;
        }
        joinThroughInterrupts(t);
    }

    /** Waits for {@code t} to end, through interrupts, and restores the caller's interrupt flag afterwards. */
    private static void joinThroughInterrupts(Thread t) {
        boolean interrupted = false;
        while (t.isAlive()) {
            try {
                t.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public long appliedLsn() {
        return applied;
    }

    @Override
    public long lastSeenLsn() {
        return context.lastLsn();
    }

    @Override
    public long lagMillis() {
        if (applied >= context.lastLsn()) {
            return 0;
        }
        // The oldest write not applied is the record in hand if there is one. Between records it is the next
        // one in the log, not read yet: no write logged after the last applied one, or after the updater last
        // had applied everything, is older than that, so the age of the newer of the two bounds it.
        long inHand = inHandWrittenAt;
        long since = inHand > 0 ? inHand : Math.max(appliedWrittenAt, caughtUpAt);
        return Math.max(0, context.clock().millis() - since);
    }

    @Override
    public Throwable failure() {
        return error;
    }

    @Override
    public long consistentFrom() {
        return consistentFrom;
    }

    @Override
    public boolean awaitApplied(long lsn, Duration timeout) throws InterruptedException {
        // Saturates where Duration.toNanos() would throw (past ~292 years); the deadline may wrap, the
        // differences do not.
        long deadline = System.nanoTime() + TimeUnit.NANOSECONDS.convert(timeout);
        synchronized (progress) {
            while (applied < lsn) {
                if (error != null) {
                    // Worded as a query that finds the index failed already words it (Queries), and of the
                    // API's type: the reader waiting here is an embedder's query.
                    throw new LacunaException("index " + context.index().name() + " of table " + context.table().name()
                            + " is " + IndexStatus.FAILED + ": " + error.getMessage(), error);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || stopping) {
                    return false;
                }
                progress.wait(Math.max(1, left / 1_000_000));
            }
        }
        return true;
    }

    @Override
    public IndexStatus status() {
        return status;
    }

    @Override
    public BackfillProgress backfillProgress() {
        return new BackfillProgress(backfillDone, backfillTotal);
    }

    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            stopping = true;
            t = thread;
        }
        if (t == null) {
            return;
        }
        synchronized (progress) {
            progress.notifyAll(); // ends a backoff before a retry
        }
        synchronized (pollLock) {
            if (polling) {
                // Wakes it from its wait for the log (NioVfs reads survive an interrupt should it be reading
                // a segment); otherwise it sees the flag between records and between backfilled items.
                t.interrupt();
            }
        }
        joinThroughInterrupts(t);
    }
}
