package dev.lacuna;

import dev.lacuna.storage.LacunaException;
import java.util.Optional;

/**
 * A write's condition expression was false for the item as it stood, so nothing was written. Carries
 * the item when the request asked for it ({@code returnValuesOnConditionCheckFailure(ALL_OLD)}), as
 * DynamoDB does.
 */
public final class ConditionalCheckFailedException extends LacunaException {
    private final transient Item item;

    /** Creates the exception; {@code item} is the current item, or null if not asked for or absent. */
    public ConditionalCheckFailedException(String message, Item item) {
        super(message);
        this.item = item;
    }

    /** The item the condition was evaluated against, if the request asked for it and it exists. */
    public Optional<Item> item() {
        return Optional.ofNullable(item);
    }
}
