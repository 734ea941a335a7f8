package dev.lacuna;

import dev.lacuna.storage.LacunaException;

/**
 * A stream consumer fell behind the stream's retention ({@link DatabaseOptions#streamRetention()}): records it
 * had not committed were dropped from the log (DynamoDB's {@code TrimmedDataAccessException}). Never silent:
 * the consumer keeps getting this until {@link StreamConsumer#resetToTrimHorizon} accepts the loss.
 */
public final class TrimmedDataAccessException extends LacunaException {
    /** Creates the exception with a message naming the consumer and what it lost. */
    public TrimmedDataAccessException(String message) {
        super(message);
    }
}
