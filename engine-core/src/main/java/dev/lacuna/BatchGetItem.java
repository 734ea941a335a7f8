package dev.lacuna;

import java.util.ArrayList;
import java.util.List;

/**
 * Up to {@value #MAX_KEYS} item reads across tables in one call ({@link Database#batchGetItem}). Not
 * thread-safe.
 */
public final class BatchGetItem {
    /** Most keys in one batch (DynamoDB's limit). */
    public static final int MAX_KEYS = 100;

    private final List<TransactGet> gets = new ArrayList<>();

    /** Adds a read of the item with {@code key} from {@code table}. */
    public BatchGetItem get(String table, Key key) {
        gets.add(new TransactGet(table, new GetItem(key)));
        return this;
    }

    /** Adds a read (with its projection and names) from {@code table}. */
    public BatchGetItem get(String table, GetItem get) {
        gets.add(new TransactGet(table, get));
        return this;
    }

    /** The reads, in the order added. */
    public List<TransactGet> gets() {
        return List.copyOf(gets);
    }
}
