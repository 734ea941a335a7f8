package dev.lacuna;

/**
 * An approximate count of a table's (or an index's) items and their bytes, as {@link Database#estimateSize} makes
 * it: like DynamoDB's {@code ItemCount} and {@code TableSizeBytes}, which DynamoDB itself updates only about every
 * six hours, a figure for capacity planning, never an exact count (a {@code Scan} with {@code Select.COUNT} counts).
 *
 * @param itemCount approximate items (index entries, for an index)
 * @param sizeBytes approximate bytes they take as stored (compressed in files, with the storage's own overhead),
 *                  not DynamoDB's item-size rule
 */
public record SizeEstimate(long itemCount, long sizeBytes) {
    /** Nothing. */
    public static final SizeEstimate EMPTY = new SizeEstimate(0, 0);
}
