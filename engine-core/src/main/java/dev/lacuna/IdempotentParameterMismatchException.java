package dev.lacuna;

import dev.lacuna.storage.LacunaException;

/**
 * A transaction reused a client request token with a different request within the token's lifetime.
 * Nothing was written.
 */
public final class IdempotentParameterMismatchException extends LacunaException {
    /** Creates the exception with a message naming the token. */
    public IdempotentParameterMismatchException(String message) {
        super(message);
    }
}
