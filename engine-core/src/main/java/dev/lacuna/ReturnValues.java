package dev.lacuna;

/**
 * What a write returns, as DynamoDB's {@code ReturnValues}: nothing, the item before the write (all
 * attributes or only the updated ones), or the item after it (likewise). {@code putItem} and
 * {@code deleteItem} accept {@link #NONE} and {@link #ALL_OLD} only.
 */
public enum ReturnValues {
    NONE, ALL_OLD, UPDATED_OLD, ALL_NEW, UPDATED_NEW
}
