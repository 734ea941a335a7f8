package dev.lacuna;

/**
 * A background thread that feeds a {@link StreamConsumer}'s records to a {@link StreamHandler}, batch by
 * batch, committing the consumer's checkpoint after each batch the handler returned from: delivery is exactly
 * once while the database runs, at least once across a crash (records handled but not yet committed are
 * delivered again). When there is nothing to read it waits on the log for the next record (no sleeping, no
 * busy loop). Made by {@link StreamConsumer#start}; thread-safe.
 */
public interface StreamProcessor extends AutoCloseable {
    /** Whether the thread still runs (false once closed, or once the handler or the stream failed). */
    boolean running();

    /** What stopped the processor: the handler's exception, or the stream's ({@link TrimmedDataAccessException}); null if none. */
    Throwable failure();

    /** Records the handler has returned from since the processor started. */
    long delivered();

    /**
     * Stops the thread and waits for it: a batch being handled is finished (and committed) first. Idempotent.
     * The consumer stays open.
     */
    @Override
    void close();
}
