package dev.lacuna;

import java.util.Objects;

/**
 * A request to delete an item by its primary key: {@code new DeleteItem(key).condition(…)}. Deleting an
 * absent item succeeds (unless a condition says otherwise). Not thread-safe; build it, then pass it.
 */
public final class DeleteItem extends WriteRequest<DeleteItem> implements WriteOp {
    private final Key key;

    /** Deletes the item with primary key {@code key}. */
    public DeleteItem(Key key) {
        this.key = Objects.requireNonNull(key, "key");
    }

    /** The primary key of the item. */
    public Key key() {
        return key;
    }

    @Override
    public String toString() {
        return "Delete " + key + " if " + condition() + " " + placeholderText();
    }
}
