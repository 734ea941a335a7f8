package dev.lacuna;

import java.time.Instant;
import java.util.List;

/**
 * A table as {@link Database#describeTable} reports it.
 *
 * @param spec      the key schema, partitions and indexes
 * @param id        the table's internal id (its keyspace); a table created again after a delete gets a new one
 * @param status    {@code ACTIVE} (tables are usable as soon as {@code createTable} returns)
 * @param createdAt when it was created
 * @param indexes   the state of each secondary index (status, backfill progress, what it has applied)
 * @param timeToLive whether the table's items expire, and by which attribute (as {@link Database#describeTimeToLive})
 * @param streamSpecification whether the table has a change stream now, and its view type
 * @param latestStreamLabel   the label of the table's latest stream (its creation time by the database's clock,
 *                            {@code yyyy-MM-dd'T'HH:mm:ss.SSS} in UTC, as DynamoDB's), or null if it never had one;
 *                            kept after the stream is disabled, as DynamoDB does
 * @param latestStreamArn     the latest stream's ARN-like id,
 *                            {@code arn:lacuna:dynamodb:local:table/NAME/stream/LABEL}, or null
 * @param timeToLiveProgress  what the time-to-live sweeper has done to the table since the database opened
 */
public record TableDescription(TableSpec spec, int id, String status, Instant createdAt,
                               List<IndexDescription> indexes, TimeToLiveDescription timeToLive,
                               StreamSpecification streamSpecification, String latestStreamLabel,
                               String latestStreamArn, TimeToLiveProgress timeToLiveProgress) {
    /** Copies the list. */
    public TableDescription {
        indexes = List.copyOf(indexes);
        java.util.Objects.requireNonNull(timeToLive, "timeToLive");
        java.util.Objects.requireNonNull(streamSpecification, "streamSpecification");
        java.util.Objects.requireNonNull(timeToLiveProgress, "timeToLiveProgress");
    }

    /** A description without the sweeper's progress (the form before it was reported). */
    public TableDescription(TableSpec spec, int id, String status, Instant createdAt, List<IndexDescription> indexes,
                            TimeToLiveDescription timeToLive, StreamSpecification streamSpecification,
                            String latestStreamLabel, String latestStreamArn) {
        this(spec, id, status, createdAt, indexes, timeToLive, streamSpecification, latestStreamLabel,
                latestStreamArn, TimeToLiveProgress.NONE);
    }

    /** A description of a table without a stream (the form before streams existed). */
    public TableDescription(TableSpec spec, int id, String status, Instant createdAt, List<IndexDescription> indexes,
                            TimeToLiveDescription timeToLive) {
        this(spec, id, status, createdAt, indexes, timeToLive, StreamSpecification.DISABLED, null, null);
    }

    /** A description of a table whose time to live is disabled (the form before time to live existed). */
    public TableDescription(TableSpec spec, int id, String status, Instant createdAt, List<IndexDescription> indexes) {
        this(spec, id, status, createdAt, indexes, TimeToLiveDescription.DISABLED);
    }

    /** The state of index {@code name}, or null. */
    public IndexDescription index(String name) {
        return indexes.stream().filter(i -> i.name().equals(name)).findFirst().orElse(null);
    }

    /** The table's name. */
    public String name() {
        return spec.name();
    }
}
