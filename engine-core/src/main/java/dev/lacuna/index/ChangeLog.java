package dev.lacuna.index;

import java.time.Duration;

/**
 * A table's changes read from the write-ahead log in LSN order, following the live log. Not thread-safe;
 * close it when done (it holds open the log segment it reads).
 */
public interface ChangeLog extends AutoCloseable {
    /**
     * The next log record, waiting up to {@code timeout} for one to be written.
     *
     * @return the record (its changes empty if it did not touch the table), or null if none came in time
     * @throws InterruptedException if the thread was interrupted while waiting
     */
    ChangeRecord next(Duration timeout) throws InterruptedException;

    /** Releases the log. Idempotent. */
    @Override
    void close();
}
