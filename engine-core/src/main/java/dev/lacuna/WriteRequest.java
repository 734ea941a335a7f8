package dev.lacuna;

import dev.lacuna.storage.Durability;
import java.util.Objects;

/**
 * What {@link PutItem}, {@link UpdateItem} and {@link DeleteItem} share: an optional condition expression,
 * what the write returns, whether a failed condition reports the item, and a durability of its own.
 *
 * @param <T> the request type, so that setters chain
 */
public abstract sealed class WriteRequest<T extends WriteRequest<T>> extends ExpressionRequest<T>
        permits PutItem, UpdateItem, DeleteItem {
    private String condition;
    private ReturnValues returnValues = ReturnValues.NONE;
    private boolean returnItemOnConditionFailure;
    private Durability durability;

    WriteRequest() {
    }

    @SuppressWarnings("unchecked")
    private T self() {
        return (T) this;
    }

    /** Writes only if this condition expression holds for the item as it stands (an absent item has no attributes). */
    public T condition(String expression) {
        this.condition = Objects.requireNonNull(expression, "expression");
        return self();
    }

    /**
     * What the write returns (default {@link ReturnValues#NONE}); {@code putItem} and {@code deleteItem}
     * accept {@link ReturnValues#NONE} and {@link ReturnValues#ALL_OLD} only.
     */
    public T returnValues(ReturnValues r) {
        this.returnValues = Objects.requireNonNull(r, "returnValues");
        return self();
    }

    /** A failed condition reports the item as it stood (DynamoDB's {@code ReturnValuesOnConditionCheckFailure=ALL_OLD}). */
    public T returnItemOnConditionFailure(boolean yes) {
        this.returnItemOnConditionFailure = yes;
        return self();
    }

    /** Overrides the database's durability for this write (ignored inside a transaction, which has its own). */
    public T durability(Durability d) {
        this.durability = Objects.requireNonNull(d, "durability");
        return self();
    }

    /** The condition expression, or null. */
    public String condition() {
        return condition;
    }

    /** What the write returns. */
    public ReturnValues returnValues() {
        return returnValues;
    }

    /** Whether a failed condition reports the item as it stood. */
    public boolean returnItemOnConditionFailure() {
        return returnItemOnConditionFailure;
    }

    /** The durability asked for, or null for the database's. */
    public Durability durability() {
        return durability;
    }
}
