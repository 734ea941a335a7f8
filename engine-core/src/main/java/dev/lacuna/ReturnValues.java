package dev.lacuna;

/**
 * What a write returns, as DynamoDB's {@code ReturnValues}: nothing, the item before the write (all
 * attributes or only the updated ones), or the item after it (likewise). {@code putItem} and
 * {@code deleteItem} accept {@link #NONE} and {@link #ALL_OLD} only.
 */
public enum ReturnValues {
    /** Nothing. */
    NONE,
    /** The whole item as it was before the write (if it existed). */
    ALL_OLD,
    /** The attributes the update changed, as they were before it. */
    UPDATED_OLD,
    /** The whole item after the write. */
    ALL_NEW,
    /** The attributes the update changed, as they are after it. */
    UPDATED_NEW
}
