package dev.lacuna;

import dev.lacuna.storage.LacunaException;

/**
 * A read-your-writes index query ({@link Query#readYourWrites}) gave up: the index had not applied every
 * write acknowledged before the query began within the time allowed. Nothing was read; retry later.
 */
public final class ReadYourWritesTimeoutException extends LacunaException {
    /** Creates the exception with a message naming the index and how far it had got. */
    public ReadYourWritesTimeoutException(String message) {
        super(message);
    }
}
