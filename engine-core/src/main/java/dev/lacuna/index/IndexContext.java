package dev.lacuna.index;

import dev.lacuna.AttributeValue;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.TableSpec;
import dev.lacuna.kv.KvSnapshot;
import dev.lacuna.kv.WriteBatch;
import java.time.Clock;
import java.util.function.Consumer;

/**
 * What a maintainer is given, and all it is given: its index and table, the table's changes read from the log
 * from an LSN, writes to its own entries applied at an LSN, a durable checkpoint, a flush of its entries,
 * and a scan of the table at a snapshot. Thread-safe.
 */
public interface IndexContext {
    /** The table's spec. */
    TableSpec table();

    /** The index's spec. */
    IndexSpec index();

    /** The time source. */
    Clock clock();

    /** The LSN of the newest logged write. */
    long lastLsn();

    /**
     * The LSN of the index's durable checkpoint: every entry whose last change is at or below it is in the
     * index's files (those changed again after it are written again by the log's records after it). Never past
     * the recovered log's end.
     */
    long checkpointLsn();

    /** The table's changes, from the log record after {@code afterLsn} on. */
    ChangeLog readChanges(long afterLsn);

    /**
     * The index entry of a base item: its key sorts by {@code pk}, then {@code sk}, then the base key, so
     * that entries of one index partition key are read in index sort-key order.
     *
     * @param sk        the index sort key value, or null if the index has none
     * @param projected the attributes the index projects
     */
    IndexEntry entry(AttributeValue pk, AttributeValue sk, Key baseKey, Item projected);

    /**
     * Applies {@code batch} (puts and deletes of {@link IndexEntry} keys) to the index at sequence {@code lsn}
     * without logging it, atomically as far as the index's readers are concerned: a query sees all of it or
     * none (an item moving within the index is never seen twice or missed). Idempotent per LSN.
     */
    void apply(WriteBatch batch, long lsn);

    /**
     * Makes everything applied up to {@code lsn} durable — the log up to there and the index's entries whose
     * last change is at or below it — and then moves the checkpoint there, so a restart resumes after it.
     * Entries changed after {@code lsn} may stay in memory (their records after the checkpoint write them
     * again after a restart): a checkpoint a little behind the last record applied keeps a queue's entries
     * created since, most about to be deleted, out of the files. {@code lsn} must be an LSN the maintainer
     * applied a batch at.
     */
    void checkpoint(long lsn);

    /** Writes the index's entries held in memory to files and waits until that is done. */
    void flush();

    /** Every item of the table as of {@code snapshot}, in key order. */
    void scanTable(KvSnapshot snapshot, Consumer<Item> item);

    /** Called once a backfill is complete and the index is {@code ACTIVE}, so that the status is recorded. */
    void activated();

    /**
     * Called once the index has failed for good (its status {@code FAILED}): the index is marked to be built
     * again from the table at the next open, and its checkpoint stops keeping the log, which a failed index
     * would otherwise hold forever. Best effort: if recording it fails, the index keeps the log as before.
     */
    default void failed() {
    }

    /**
     * A daemon thread, not started, that runs {@code body}: the maintainer's threads (its updater, its checkpoints)
     * are made here, so that the database counts them as its own. A close of the database from one of them (a file
     * system hook there) while another thread's close waits for it then returns at once instead of waiting for that
     * close, which waits for it.
     */
    default Thread newThread(Runnable body, String name) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        return t;
    }
}
