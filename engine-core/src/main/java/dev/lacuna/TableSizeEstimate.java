package dev.lacuna;

import java.util.Map;

/**
 * Approximate sizes of a table and of each of its secondary indexes, as {@link Database#estimateSize} makes them.
 *
 * @param table   the table's items
 * @param indexes each index's entries, by index name (global and local)
 */
public record TableSizeEstimate(SizeEstimate table, Map<String, SizeEstimate> indexes) {
    /** Copies the map. */
    public TableSizeEstimate {
        java.util.Objects.requireNonNull(table, "table");
        indexes = Map.copyOf(indexes);
    }

    /** Index {@code name}'s estimate, {@link SizeEstimate#EMPTY} if it has none. */
    public SizeEstimate index(String name) {
        return indexes.getOrDefault(name, SizeEstimate.EMPTY);
    }
}
