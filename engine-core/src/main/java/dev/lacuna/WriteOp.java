package dev.lacuna;

/**
 * One write of a transaction ({@link Database#transactWriteItems}): a {@link PutItem},
 * {@link UpdateItem}, {@link DeleteItem} or {@link ConditionCheck}.
 */
public sealed interface WriteOp permits PutItem, UpdateItem, DeleteItem, ConditionCheck {
    /** The condition expression, or null. */
    String condition();

    /** Whether a failed condition reports the item as it stood. */
    boolean returnItemOnConditionFailure();
}
