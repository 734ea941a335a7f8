package dev.lacuna;

import java.util.Objects;

/**
 * A transaction item that writes nothing: the transaction goes ahead only if {@code condition} holds for
 * the item with primary key {@code key}. Not thread-safe; build it, then pass it.
 */
public final class ConditionCheck extends ExpressionRequest<ConditionCheck> implements WriteOp {
    private final Key key;
    private final String condition;
    private boolean returnItemOnConditionFailure;

    /** Checks {@code condition} against the item with primary key {@code key}. */
    public ConditionCheck(Key key, String condition) {
        this.key = Objects.requireNonNull(key, "key");
        this.condition = Objects.requireNonNull(condition, "condition");
    }

    /** A failed condition reports the item as it stood. */
    public ConditionCheck returnItemOnConditionFailure(boolean yes) {
        this.returnItemOnConditionFailure = yes;
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

    @Override
    public boolean returnItemOnConditionFailure() {
        return returnItemOnConditionFailure;
    }

    @Override
    public String toString() {
        return "Check " + key + " " + condition + " " + placeholderText();
    }
}
