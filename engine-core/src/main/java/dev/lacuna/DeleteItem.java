package dev.lacuna;

import java.util.Objects;

/**
 * A request to delete an item by its primary key: {@code new DeleteItem(key).condition(…)}. Deleting an
 * absent item succeeds (unless a condition says otherwise). Not thread-safe; build it, then pass it.
 */
public final class DeleteItem extends ExpressionRequest<DeleteItem> implements WriteOp {
    private final Key key;
    private String condition;
    private ReturnValues returnValues = ReturnValues.NONE;
    private boolean returnItemOnConditionFailure;
    private Durability durability;

    /** Deletes the item with primary key {@code key}. */
    public DeleteItem(Key key) {
        this.key = Objects.requireNonNull(key, "key");
    }

    /** Deletes only if this condition expression holds for the item as it stands. */
    public DeleteItem condition(String expression) {
        this.condition = Objects.requireNonNull(expression, "expression");
        return this;
    }

    /** {@link ReturnValues#NONE} (default) or {@link ReturnValues#ALL_OLD}. */
    public DeleteItem returnValues(ReturnValues r) {
        this.returnValues = Objects.requireNonNull(r, "returnValues");
        return this;
    }

    /** A failed condition reports the item as it stood. */
    public DeleteItem returnItemOnConditionFailure(boolean yes) {
        this.returnItemOnConditionFailure = yes;
        return this;
    }

    /** Overrides the database's durability for this write (ignored inside a transaction). */
    public DeleteItem durability(Durability d) {
        this.durability = Objects.requireNonNull(d, "durability");
        return this;
    }

    /** The primary key of the item. */
    public Key key() {
        return key;
    }

    @Override
    public String condition() {
        return condition;
    }

    /** What the write returns. */
    public ReturnValues returnValues() {
        return returnValues;
    }

    @Override
    public boolean returnItemOnConditionFailure() {
        return returnItemOnConditionFailure;
    }

    /** The durability asked for, or null for the database's. */
    public Durability durability() {
        return durability;
    }

    @Override
    public String toString() {
        return "Delete " + key + " if " + condition + " " + placeholderText();
    }
}
