package dev.lacuna;

import java.util.ArrayList;
import java.util.List;

/**
 * Up to {@value #MAX_WRITES} puts and deletes across tables, without conditions, in one call
 * ({@link Database#batchWriteItem}). Lacuna applies a valid batch whole, as one log record; an invalid
 * request in it rejects the whole batch before anything is written. Not thread-safe.
 */
public final class BatchWriteItem {
    /** Most writes in one batch (DynamoDB's limit). */
    public static final int MAX_WRITES = 25;

    private final List<TransactWrite> writes = new ArrayList<>();

    /** Adds a put of {@code item} into {@code table}. */
    public BatchWriteItem put(String table, Item item) {
        writes.add(new TransactWrite(table, new PutItem(item)));
        return this;
    }

    /** Adds a delete of the item with {@code key} from {@code table}. */
    public BatchWriteItem delete(String table, Key key) {
        writes.add(new TransactWrite(table, new DeleteItem(key)));
        return this;
    }

    /** The writes, in the order added. */
    public List<TransactWrite> writes() {
        return List.copyOf(writes);
    }
}
