package dev.lacuna;

import dev.lacuna.storage.LacunaException;

/**
 * A shard iterator older than {@link Database#SHARD_ITERATOR_LIFETIME} by the database's clock was passed to
 * {@link Database#getRecords} (DynamoDB Streams' {@code ExpiredIteratorException}): get a new one with
 * {@link Database#getShardIterator}, after the last sequence number read. Every iterator {@code getRecords}
 * returns starts a lifetime of its own.
 */
public final class ExpiredIteratorException extends LacunaException {
    /** Creates the exception with a message saying how old the iterator is. */
    public ExpiredIteratorException(String message) {
        super(message);
    }
}
