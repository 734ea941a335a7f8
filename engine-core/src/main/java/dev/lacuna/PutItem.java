package dev.lacuna;

import java.util.Objects;

/**
 * A request to create or replace an item: {@code new PutItem(item).condition("attribute_not_exists(pk)")}.
 * Not thread-safe; build it, then pass it.
 */
public final class PutItem extends WriteRequest<PutItem> implements WriteOp {
    private final Item item;

    /** Writes {@code item}, which must hold the table's key attributes. */
    public PutItem(Item item) {
        this.item = Objects.requireNonNull(item, "item");
    }

    /** The item to write. */
    public Item item() {
        return item;
    }

    @Override
    public String toString() {
        return "Put " + item + " if " + condition() + " " + placeholderText();
    }
}
