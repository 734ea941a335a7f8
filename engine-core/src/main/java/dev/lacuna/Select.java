package dev.lacuna;

/**
 * What a {@link Query} or {@link Scan} returns of each item that passes its filter (DynamoDB's
 * {@code Select}). Without one, a table read returns {@link #ALL_ATTRIBUTES} and an index read
 * {@link #ALL_PROJECTED_ATTRIBUTES}, or {@link #SPECIFIC_ATTRIBUTES} when a projection expression is given.
 */
public enum Select {
    /**
     * Every attribute of the item. On a local secondary index that does not project them all, each item is
     * fetched from the table; on a global one that does not, it is refused.
     */
    ALL_ATTRIBUTES,
    /** Every attribute the index projects; only when reading an index. */
    ALL_PROJECTED_ATTRIBUTES,
    /**
     * The attributes of the projection expression, which must be given. On a local secondary index, an
     * attribute it does not project is fetched from the table; on a global one it is missing.
     */
    SPECIFIC_ATTRIBUTES,
    /** No items, only how many matched ({@link Page#count()}). */
    COUNT
}
