package dev.lacuna;

import java.util.Objects;

/**
 * A request to read one item by its full primary key: {@code new GetItem(key).projection("a, b.c")}.
 * Reads on a base table are strongly consistent. Not thread-safe; build it, then pass it.
 */
public final class GetItem extends ExpressionRequest<GetItem> {
    private final Key key;
    private String projection;

    /** Reads the item with primary key {@code key}. */
    public GetItem(Key key) {
        this.key = Objects.requireNonNull(key, "key");
    }

    /**
     * DynamoDB's {@code ConsistentRead}. Reads of a base table are always strongly consistent in Lacuna, so
     * either value reads the latest acknowledged write; accepted so that DynamoDB code carries over.
     */
    public GetItem consistentRead(boolean consistent) {
        return this;
    }

    /** Returns only the attributes named by this projection expression. */
    public GetItem projection(String expression) {
        this.projection = Objects.requireNonNull(expression, "expression");
        return this;
    }

    /** The primary key of the item. */
    public Key key() {
        return key;
    }

    /** The projection expression, or null. */
    public String projection() {
        return projection;
    }
}
