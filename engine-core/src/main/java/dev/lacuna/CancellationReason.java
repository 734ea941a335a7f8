package dev.lacuna;

import java.util.Optional;

/**
 * Why one item of a cancelled transaction stopped it (or {@code "None"} if it did not), in the order
 * of the request's items, as DynamoDB reports them.
 *
 * @param code    {@code "None"}, {@code "ConditionalCheckFailed"}, {@code "ValidationError"} or
 *                {@code "TransactionConflict"}
 * @param message what went wrong, or null for {@code "None"}
 * @param item    the item as it stood, when the request asked for it on a failed condition; else null
 */
public record CancellationReason(String code, String message, Item item) {
    /** The reason of an item that did not cancel the transaction. */
    public static final CancellationReason NONE = new CancellationReason("None", null, null);

    /** The item as it stood, if there is one here. */
    public Optional<Item> currentItem() {
        return Optional.ofNullable(item);
    }
}
