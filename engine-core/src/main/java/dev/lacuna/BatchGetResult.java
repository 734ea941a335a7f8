package dev.lacuna;

import java.util.List;
import java.util.Map;

/**
 * What {@link Database#batchGetItem} found.
 *
 * @param responses   the items found, by table (absent items are simply missing, as in DynamoDB)
 * @param unprocessed reads not done because the response reached 16 MB; ask for them again
 */
public record BatchGetResult(Map<String, List<Item>> responses, List<TransactGet> unprocessed) {
    /** Copies the collections. */
    public BatchGetResult {
        responses = Map.copyOf(responses);
        unprocessed = List.copyOf(unprocessed);
    }
}
