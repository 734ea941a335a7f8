package dev.lacuna.index;

import dev.lacuna.IndexStatus;
import dev.lacuna.Item;
import dev.lacuna.kv.KvSnapshot;
import java.time.Duration;
import java.util.List;

/**
 * Keeps one index of one table. A <em>synchronous</em> maintainer's entries are written by the database in
 * the base write's own log record (an LSI: strongly consistent). An <em>asynchronous</em> one reads the log
 * from its checkpoint and applies the entries itself (a GSI: eventually consistent), using the item images
 * the database logs with every write of the table. A maintainer makes the threads it runs with
 * {@link IndexContext#newThread}, so that a close of the database from one of them does not wait for itself.
 */
public interface IndexMaintainer extends AutoCloseable {
    /** Whether the database writes this index's entries in the write path. */
    boolean synchronous();

    /** The entries {@code item} has in the index: none when it lacks an index key attribute (sparse). */
    List<IndexEntry> entries(Item item);

    /**
     * Starts the maintainer's background work. If {@code backfillFrom} is given, the index is new on a table
     * that may hold items: build it from the table as of that snapshot first (status {@code CREATING}; close
     * the snapshot when done), then follow the log after it. Otherwise follow the log from the index's
     * checkpoint.
     */
    void start(dev.lacuna.kv.KvSnapshot backfillFrom);

    /** The highest LSN whose writes are applied to the index (for a synchronous index: every one). */
    long appliedLsn();

    /**
     * The LSN the index must have applied before its entries are a state the table had (0: they always are). An
     * index whose routine checkpoint kept the entries changed after it in memory ({@link IndexContext#checkpoint})
     * lost them in a crash: until the log after the checkpoint is applied again, up to the log's end at the open,
     * an entry open at the checkpoint may be missing. Queries wait for it ({@code Queries}).
     */
    default long consistentFrom() {
        return 0;
    }

    /** The last LSN of the log as the maintainer knows it (for lag: this minus {@link #appliedLsn}). */
    default long lastSeenLsn() {
        return appliedLsn();
    }

    /**
     * Waits until every write up to {@code lsn} is applied to the index.
     *
     * @return false if {@code timeout} passed first
     * @throws dev.lacuna.storage.LacunaException if the maintainer has failed (status {@code FAILED})
     */
    boolean awaitApplied(long lsn, Duration timeout) throws InterruptedException;

    /**
     * How far the index is behind the log, in milliseconds: the age of the oldest write logged and not yet
     * applied, 0 when it has applied everything (for a synchronous index: always 0). See
     * {@link dev.lacuna.IndexDescription#lagMillis}.
     */
    default long lagMillis() {
        return 0;
    }

    /** {@code CREATING} while a backfill runs, {@code ACTIVE} after, {@code FAILED} if the maintainer stopped on an error. */
    IndexStatus status();

    /**
     * The error the maintainer stopped on when its status is {@code FAILED} (null otherwise, or if it does not
     * say): a query that finds the index failed reports it, so the caller learns why (a damaged file, named).
     */
    default Throwable failure() {
        return null;
    }

    /** Items backfilled so far, and of how many ({@link BackfillProgress#NONE} when there is no backfill). */
    BackfillProgress backfillProgress();

    /** Stops the background work (waiting for it to end); what was applied stays. */
    @Override
    void close();
}
