package dev.lacuna;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A table's latest change stream and its shards, as {@link Database#describeStream} and
 * {@link Database#listStreams} report them (DynamoDB Streams' {@code StreamDescription}). Immutable.
 *
 * <p>A stream has one shard per hash partition of its table, for its whole life: Lacuna never splits or closes
 * a shard while the stream is enabled, so a shard has no ending sequence number and its iterators never run
 * out. A disabled stream has no shards left to read (its records are no longer kept).
 *
 * @param streamArn    the stream's ARN-like id ({@link TableDescription#latestStreamArn()})
 * @param streamLabel  the stream's label ({@link TableDescription#latestStreamLabel()})
 * @param tableName    the table
 * @param enabled      whether the stream is enabled (DynamoDB's {@code StreamStatus} {@code ENABLED}), or was
 *                     disabled ({@code DISABLED})
 * @param viewType     what its records carry (or carried, once it is disabled, as DynamoDB reports it); null only
 *                     for a stream disabled by a Lacuna that did not keep it (keyspace descriptor version 4)
 * @param createdAt    when the stream was enabled
 * @param partitionKey the table's partition key
 * @param sortKey      the table's sort key, or null
 * @param shards       the shards to read, in partition order; empty once the stream is disabled
 */
public record StreamDescription(String streamArn, String streamLabel, String tableName, boolean enabled,
                                StreamViewType viewType, Instant createdAt, KeyAttribute partitionKey,
                                KeyAttribute sortKey, List<Shard> shards) {
    /** Copies the shards. */
    public StreamDescription {
        Objects.requireNonNull(streamArn, "streamArn");
        Objects.requireNonNull(tableName, "tableName");
        shards = List.copyOf(shards);
    }

    /** DynamoDB's {@code StreamStatus}: {@code ENABLED} or {@code DISABLED}. */
    public String status() {
        return enabled ? "ENABLED" : "DISABLED";
    }

    /**
     * One shard of a stream: the records of the items of one hash partition, in write order.
     *
     * @param shardId                the shard's id, {@code shardId-<label ms, 20 digits>-<partition, 8 digits>}
     * @param startingSequenceNumber a sequence number at or below the shard's oldest record the stream holds
     *                               (records older than the stream's retention are gone)
     */
    public record Shard(String shardId, String startingSequenceNumber) {
        /** Checks the arguments. */
        public Shard {
            Objects.requireNonNull(shardId, "shardId");
            Objects.requireNonNull(startingSequenceNumber, "startingSequenceNumber");
        }
    }
}
