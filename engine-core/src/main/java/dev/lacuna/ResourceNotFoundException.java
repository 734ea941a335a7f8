package dev.lacuna;

import dev.lacuna.storage.LacunaException;

/** The request names a table or index that does not exist (or is being deleted). Nothing was written. */
public final class ResourceNotFoundException extends LacunaException {
    /** Creates the exception with a message naming the missing resource. */
    public ResourceNotFoundException(String message) {
        super(message);
    }
}
