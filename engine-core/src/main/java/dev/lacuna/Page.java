package dev.lacuna;

import java.util.List;
import java.util.Map;

/**
 * One page of a {@link Query} or {@link Scan}.
 *
 * <p>A page's items are complete, immutable and thread-safe, but make some attribute values (strings and numbers) only
 * when they are first read: most readers of a page look at a few attributes of each item. Such an item keeps its
 * stored bytes (about its DynamoDB size) besides the values read from them, for as long as it is kept.
 *
 * @param items              the items that passed the filter, projected (empty for a count)
 * @param count              how many items passed the filter
 * @param scannedCount       how many items were read (before the filter)
 * @param lastEvaluatedKey   where the next page starts (give it as the exclusive start key), or null if
 *                           the read is complete
 * @param deadEntriesSkipped deleted or superseded entries the read stepped over in the storage engine:
 *                           what a backlog of not-yet-compacted deletions cost this page
 */
public record Page(List<Item> items, int count, int scannedCount, Map<String, AttributeValue> lastEvaluatedKey,
                   long deadEntriesSkipped) {
    /** Copies the collections. */
    public Page {
        items = List.copyOf(items);
        lastEvaluatedKey = lastEvaluatedKey == null ? null : Map.copyOf(lastEvaluatedKey);
    }

    /** Whether there is more to read. */
    public boolean hasMore() {
        return lastEvaluatedKey != null;
    }
}
