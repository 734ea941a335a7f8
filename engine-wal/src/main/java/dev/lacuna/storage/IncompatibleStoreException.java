package dev.lacuna.storage;

/**
 * A directory holds a store this call cannot open: one made through the other API (a byte-level
 * {@code KvStore} opened as an item {@code Database}, or the reverse), one written in a newer format than
 * this version of Lacuna reads, or one created with another partition count; or the path given as the
 * directory is a file. Nothing in the directory was changed.
 */
public final class IncompatibleStoreException extends LacunaException {
    /** Creates the exception; {@code message} names the directory and what it holds. */
    public IncompatibleStoreException(String message) {
        super(message);
    }
}
