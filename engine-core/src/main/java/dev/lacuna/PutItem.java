package dev.lacuna;

import java.util.Objects;

/**
 * A request to create or replace an item: {@code new PutItem(item).condition("attribute_not_exists(pk)")}.
 * Not thread-safe; build it, then pass it.
 */
public final class PutItem extends ExpressionRequest<PutItem> implements WriteOp {
    private final Item item;
    private String condition;
    private ReturnValues returnValues = ReturnValues.NONE;
    private boolean returnItemOnConditionFailure;
    private Durability durability;

    /** Writes {@code item}, which must hold the table's key attributes. */
    public PutItem(Item item) {
        this.item = Objects.requireNonNull(item, "item");
    }

    /** Writes only if this condition expression holds for the item as it stands (an absent item has no attributes). */
    public PutItem condition(String expression) {
        this.condition = Objects.requireNonNull(expression, "expression");
        return this;
    }

    /** {@link ReturnValues#NONE} (default) or {@link ReturnValues#ALL_OLD}. */
    public PutItem returnValues(ReturnValues r) {
        this.returnValues = Objects.requireNonNull(r, "returnValues");
        return this;
    }

    /** A failed condition reports the item as it stood (DynamoDB's {@code ReturnValuesOnConditionCheckFailure=ALL_OLD}). */
    public PutItem returnItemOnConditionFailure(boolean yes) {
        this.returnItemOnConditionFailure = yes;
        return this;
    }

    /** Overrides the database's durability for this write (ignored inside a transaction, which has its own). */
    public PutItem durability(Durability d) {
        this.durability = Objects.requireNonNull(d, "durability");
        return this;
    }

    /** The item to write. */
    public Item item() {
        return item;
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
        return "Put " + item + " if " + condition + " " + placeholderText();
    }
}
