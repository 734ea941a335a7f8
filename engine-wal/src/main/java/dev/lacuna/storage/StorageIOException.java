package dev.lacuna.storage;

import java.io.IOException;

/**
 * The file system failed an operation (write, fsync, rename, disk full). After a storage error the
 * component that saw it refuses further writes rather than risk a hole or corruption; reopening recovers
 * everything that was acknowledged before the failure.
 */
public final class StorageIOException extends LacunaException {
    /** Wraps the I/O error {@code cause} with a description of what was being done. */
    public StorageIOException(String message, IOException cause) {
        super(message, cause);
    }

    /** A storage error without an underlying {@link IOException} (for example a refused write). */
    public StorageIOException(String message, Throwable cause) {
        super(message, cause);
    }
}
