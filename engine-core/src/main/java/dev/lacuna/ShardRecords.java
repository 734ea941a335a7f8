package dev.lacuna;

import java.util.List;
import java.util.Objects;

/**
 * What one {@link Database#getRecords} call read from a shard (DynamoDB Streams' {@code GetRecordsResponse}).
 *
 * @param records           the shard's records after the iterator's position, in sequence-number order (possibly
 *                          none: nothing new yet, or the call stopped after reading its bound of the log)
 * @param nextShardIterator where the next call goes on from; never null, as a shard stays open while its stream
 *                          is enabled
 */
public record ShardRecords(List<StreamRecord> records, String nextShardIterator) {
    /** Copies the list. */
    public ShardRecords {
        records = List.copyOf(records);
        Objects.requireNonNull(nextShardIterator, "nextShardIterator");
    }
}
