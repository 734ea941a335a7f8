package dev.lacuna;

import java.util.Objects;

/**
 * A request to change an item with an update expression, creating it if absent (as DynamoDB does):
 * {@code new UpdateItem(key).update("SET #s = :closed REMOVE GSI1PK, GSI1SK").name("#s", "status")…}.
 * Not thread-safe; build it, then pass it.
 */
public final class UpdateItem extends ExpressionRequest<UpdateItem> implements WriteOp {
    private final Key key;
    private String update;
    private String condition;
    private ReturnValues returnValues = ReturnValues.NONE;
    private boolean returnItemOnConditionFailure;
    private Durability durability;

    /** Changes the item with primary key {@code key}. */
    public UpdateItem(Key key) {
        this.key = Objects.requireNonNull(key, "key");
    }

    /** The update expression ({@code SET}, {@code REMOVE}, {@code ADD}, {@code DELETE} clauses). */
    public UpdateItem update(String expression) {
        this.update = Objects.requireNonNull(expression, "expression");
        return this;
    }

    /** Writes only if this condition expression holds for the item as it stands. */
    public UpdateItem condition(String expression) {
        this.condition = Objects.requireNonNull(expression, "expression");
        return this;
    }

    /** What to return: any {@link ReturnValues} (default {@link ReturnValues#NONE}). */
    public UpdateItem returnValues(ReturnValues r) {
        this.returnValues = Objects.requireNonNull(r, "returnValues");
        return this;
    }

    /** A failed condition reports the item as it stood. */
    public UpdateItem returnItemOnConditionFailure(boolean yes) {
        this.returnItemOnConditionFailure = yes;
        return this;
    }

    /** Overrides the database's durability for this write (ignored inside a transaction). */
    public UpdateItem durability(Durability d) {
        this.durability = Objects.requireNonNull(d, "durability");
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
        return "Update " + key + " " + update + " if " + condition + " " + placeholderText();
    }
}
