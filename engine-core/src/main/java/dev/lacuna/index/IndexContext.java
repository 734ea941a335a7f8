package dev.lacuna.index;

import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.TableSpec;
import dev.lacuna.lsm.KvLogReader;
import dev.lacuna.lsm.KvSnapshot;
import dev.lacuna.lsm.KvStore;
import java.time.Clock;
import java.util.List;
import java.util.function.Consumer;

/**
 * What a maintainer is given: its index, its table, its keyspace in the store, and the database's
 * services for reading the table's changes from the log and its items at a snapshot.
 */
public interface IndexContext {
    /** The table's spec. */
    TableSpec table();

    /** The index's spec. */
    IndexSpec index();

    /** The keyspace holding the index's entries (its keys start with this id). */
    int keyspace();

    /** The store (for log reading, unlogged writes, checkpoints and flushes of the index keyspace). */
    KvStore store();

    /** The name of the index's log checkpoint. */
    String checkpointName();

    /** The time source. */
    Clock clock();

    /** The changes a log record made to this table's items, in order; none if it did not touch the table. */
    List<ItemChange> changes(KvLogReader.Batch batch);

    /**
     * Applies {@code batch} to the index keyspace at sequence {@code lsn} without logging it
     * ({@link KvStore#applyUnlogged}), atomically as far as the index's readers are concerned: a query sees
     * all of it or none (an item moving within the index is never seen twice or missed).
     */
    void apply(dev.lacuna.lsm.WriteBatch batch, long lsn);

    /** Every item of the table as of {@code snapshot}, in key order. */
    void scanTable(KvSnapshot snapshot, Consumer<Item> item);

    /** Called once a backfill is complete and the index is {@code ACTIVE}, so that the status is recorded. */
    void activated();
}
