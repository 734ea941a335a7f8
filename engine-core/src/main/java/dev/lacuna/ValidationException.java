package dev.lacuna;

import dev.lacuna.storage.LacunaException;

/**
 * A request is invalid: a wrong type, a limit exceeded, a malformed expression, a missing key attribute.
 * Thrown before anything is written, so the database is unchanged. The message says what is wrong and,
 * for expressions, where (as DynamoDB's {@code ValidationException} does).
 */
public final class ValidationException extends LacunaException {
    /** Creates the exception with a message naming what is wrong. */
    public ValidationException(String message) {
        super(message);
    }
}
