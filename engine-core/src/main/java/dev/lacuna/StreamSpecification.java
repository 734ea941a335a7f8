package dev.lacuna;

import java.util.Objects;

/**
 * Whether a table has a change stream, and what its records carry (DynamoDB's {@code StreamSpecification}).
 * Given to {@link TableSpec.Builder#streamSpecification} at creation, or to {@link Database#updateTable} to
 * enable or disable the stream; as in DynamoDB, the view type of an enabled stream cannot be changed in place:
 * disable the stream, then enable it with the new view type (a new stream, with a new label).
 *
 * @param streamEnabled  whether the stream is on
 * @param streamViewType what each record carries; required when enabled, null when disabled
 */
public record StreamSpecification(boolean streamEnabled, StreamViewType streamViewType) {
    /** No stream (or, in {@link Database#updateTable}, turn it off). */
    public static final StreamSpecification DISABLED = new StreamSpecification(false, null);

    /** Checks that a view type is given exactly when the stream is enabled. */
    public StreamSpecification {
        if (streamEnabled && streamViewType == null) {
            throw new ValidationException("StreamSpecification: StreamViewType is required when StreamEnabled is true");
        }
        if (!streamEnabled && streamViewType != null) {
            throw new ValidationException("StreamSpecification: StreamViewType " + streamViewType
                    + " cannot be given when StreamEnabled is false");
        }
    }

    /** An enabled stream of {@code viewType}. */
    public static StreamSpecification enabled(StreamViewType viewType) {
        return new StreamSpecification(true, Objects.requireNonNull(viewType, "viewType"));
    }
}
