package dev.lacuna;

/** Where a shard iterator ({@link Database#getShardIterator}) starts reading (DynamoDB's {@code ShardIteratorType}). */
public enum ShardIteratorType {
    /** At the oldest record the stream still holds (within its retention). */
    TRIM_HORIZON,
    /** After the newest record: only writes made after the iterator was made. */
    LATEST,
    /** At the record with the sequence number given (or the next one, if no record has it). */
    AT_SEQUENCE_NUMBER,
    /** After the record with the sequence number given. */
    AFTER_SEQUENCE_NUMBER
}
