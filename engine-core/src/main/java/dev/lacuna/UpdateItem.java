package dev.lacuna;

import java.util.Objects;

/**
 * A request to change an item with an update expression, creating it if absent (as DynamoDB does):
 * {@code new UpdateItem(key).update("SET #s = :closed REMOVE GSI1PK, GSI1SK").name("#s", "status")…}.
 * Not thread-safe; build it, then pass it.
 */
public final class UpdateItem extends WriteRequest<UpdateItem> implements WriteOp {
    private final Key key;
    private String update;

    /** Changes the item with primary key {@code key}. */
    public UpdateItem(Key key) {
        this.key = Objects.requireNonNull(key, "key");
    }

    /** The update expression ({@code SET}, {@code REMOVE}, {@code ADD}, {@code DELETE} clauses). */
    public UpdateItem update(String expression) {
        this.update = Objects.requireNonNull(expression, "expression");
        return this;
    }

    /** The primary key of the item. */
    public Key key() {
        return key;
    }

    /** The update expression, or null (then the write only makes sure the item exists). */
    public String update() {
        return update;
    }

    @Override
    public String toString() {
        return "Update " + key + " " + update + " if " + condition() + " " + placeholderText();
    }
}
