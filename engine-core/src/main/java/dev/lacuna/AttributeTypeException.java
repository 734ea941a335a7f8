package dev.lacuna;

import dev.lacuna.storage.LacunaException;

/**
 * A value was read as a type it does not have, through a typed getter ({@link Item#getString}, {@link
 * AttributeValue#asNumber()}, ...): the attribute is absent, holds another DynamoDB type, or is a number that
 * the Java type asked for cannot hold exactly ({@link AttributeValue#asLong()} of {@code 1.5}). The message
 * names the attribute (for an item's getters), the type asked for and what was there.
 */
public final class AttributeTypeException extends LacunaException {
    private final AttributeValue.Type expected;
    private final AttributeValue.Type actual;

    /**
     * Creates the exception.
     *
     * @param message  what was asked and what was found
     * @param expected the DynamoDB type asked for
     * @param actual   the type found, or null if the attribute is absent
     */
    public AttributeTypeException(String message, AttributeValue.Type expected, AttributeValue.Type actual) {
        super(message);
        this.expected = expected;
        this.actual = actual;
    }

    /** The DynamoDB type that was asked for. */
    public AttributeValue.Type expected() {
        return expected;
    }

    /** The type found, or null if the attribute is absent. */
    public AttributeValue.Type actual() {
        return actual;
    }
}
