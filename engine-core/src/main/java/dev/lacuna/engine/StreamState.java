package dev.lacuna.engine;

import dev.lacuna.StreamSpecification;
import dev.lacuna.StreamViewType;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * A table's change stream as its descriptor keeps it: on or off, its view type, and the label of the latest
 * stream the table had (kept when it is disabled, as DynamoDB keeps {@code LatestStreamLabel}). The label is
 * the stream's creation time in epoch milliseconds; a table's labels only grow, so a stream enabled again is a
 * new stream, and the log checkpoints named after it ({@link #holdName}, {@link #consumerName}) are its own.
 *
 * @param enabled     whether writes to the table produce stream records
 * @param viewType    the latest stream's view type, kept when it is disabled (DescribeStream reports it); null if
 *                    the table never had a stream, or its stream was disabled before descriptor version 5
 * @param labelMillis the latest stream's label, or 0 if the table never had a stream
 */
record StreamState(boolean enabled, StreamViewType viewType, long labelMillis) {
    static final StreamState NONE = new StreamState(false, null, 0);
    private static final DateTimeFormatter LABEL = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS")
            .withZone(ZoneOffset.UTC);
    /** Every log checkpoint of a stream starts with this. */
    static final String PREFIX = "stream-";

    StreamState {
        if (enabled && viewType == null) {
            throw new IllegalArgumentException("an enabled stream needs a view type");
        }
        if (viewType != null && labelMillis == 0) {
            throw new IllegalArgumentException("a view type goes with a stream the table has or had");
        }
        if (enabled && labelMillis <= 0) {
            throw new IllegalArgumentException("an enabled stream needs a label");
        }
    }

    StreamSpecification spec() {
        return enabled ? StreamSpecification.enabled(viewType) : StreamSpecification.DISABLED;
    }

    /** The label as DynamoDB writes one, or null if the table never had a stream. */
    String label() {
        return labelMillis == 0 ? null : LABEL.format(Instant.ofEpochMilli(labelMillis));
    }

    /** The stream's ARN-like id, or null if the table never had a stream. */
    String arn(String table) {
        return labelMillis == 0 ? null : "arn:lacuna:dynamodb:local:table/" + table + "/stream/" + label();
    }

    /**
     * The log checkpoint of the stream itself: it keeps the records the stream still holds (within its
     * retention), so that a consumer made later can start at the oldest of them.
     */
    static String holdName(int tableId, long label) {
        return PREFIX + tableId + "-" + label;
    }

    /** The log checkpoint of consumer {@code name} of a stream. */
    static String consumerName(int tableId, long label, String name) {
        return holdName(tableId, label) + "-c-" + name;
    }

    /** The checkpoint of consumer {@code name} once retention has passed it, until it is reset. */
    static String trimmedName(int tableId, long label, String name) {
        return holdName(tableId, label) + "-t-" + name;
    }
}
