package dev.lacuna;

import java.time.Duration;

/**
 * A named, durable reader of a table's change stream ({@link Database#streamConsumer}). Its checkpoint is kept
 * in the database's manifest: a consumer opened again (also after a crash) resumes after its last
 * {@link #commit}, and while it lags the log keeps the records it has not committed, up to the stream's
 * retention ({@link DatabaseOptions#streamRetention()}). A consumer that retention passed gets
 * {@link TrimmedDataAccessException} until it is {@link #resetToTrimHorizon reset}.
 *
 * <p>It reads every shard of the stream (one per hash partition of the table) in sequence-number order, so an
 * item's records come in write order and a transaction's records together; a poll never splits the records
 * of one write (a transaction's records come in one batch, so a batch may hold more than {@code max} of them
 * if one transaction alone does).
 *
 * <p>One open handle per consumer name at a time; a handle is used by one thread at a time (or by one
 * {@link StreamProcessor}). Close it when done.
 */
public interface StreamConsumer extends AutoCloseable {
    /** The consumer's name. */
    String name();

    /** The stream's ARN-like id ({@link TableDescription#latestStreamArn()} when the consumer was made). */
    String streamArn();

    /** {@link #poll(int, Duration)} without waiting: what is there now. */
    StreamBatch poll(int max);

    /**
     * The next records after what this handle has read (at first: after the consumer's checkpoint), waiting up
     * to {@code wait} for the first one. Reading moves this handle on, not the checkpoint: {@link #commit} does.
     * A {@link #close} of the handle, or of the database, from another thread ends the wait at once: the poll then
     * returns the records it has (perhaps none), and the next call throws, as on a closed handle or database.
     *
     * @param max at least 1: records to return at most (see the class comment for a transaction's)
     * @throws TrimmedDataAccessException if retention dropped records the consumer had not committed
     * @throws ResourceNotFoundException if the table was deleted or its stream disabled
     * @throws InterruptedException if the thread is interrupted while it waits
     */
    StreamBatch poll(int max, Duration wait) throws InterruptedException;

    /**
     * Moves the consumer's durable checkpoint to {@code batch}'s: a consumer opened after this resumes after the
     * batch's records. Durable when it returns. A checkpoint at or below the current one changes nothing.
     *
     * @throws IllegalArgumentException if this handle has not read that far
     * @throws TrimmedDataAccessException if retention passed the consumer meanwhile
     */
    void commit(StreamBatch batch);

    /** The consumer's durable checkpoint (the LSN through which it has committed). */
    long checkpoint();

    /**
     * After a {@link TrimmedDataAccessException}: accepts the loss and moves the consumer to the oldest record the
     * stream still holds (DynamoDB's {@code TRIM_HORIZON}). Durable when it returns.
     */
    void resetToTrimHorizon();

    /** Starts a {@link StreamProcessor} that feeds this consumer's records to {@code handler}, {@code batchSize} at most at a time. */
    StreamProcessor start(StreamHandler handler, int batchSize);

    /** Stops a processor started on it and releases the handle (the checkpoint stays). Idempotent. */
    @Override
    void close();
}
