package dev.lacuna.storage;

/** An operation was attempted on a database (or one of its components, such as its log) after it was closed. */
public final class DatabaseClosedException extends LacunaException {
    /** Creates the exception; {@code what} names the closed component. */
    public DatabaseClosedException(String what) {
        super(what + " is closed");
    }
}
