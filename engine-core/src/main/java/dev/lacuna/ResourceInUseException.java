package dev.lacuna;

import dev.lacuna.storage.LacunaException;

/** The request would create a table that already exists. Nothing was changed. */
public final class ResourceInUseException extends LacunaException {
    /** Creates the exception with a message naming the resource. */
    public ResourceInUseException(String message) {
        super(message);
    }
}
