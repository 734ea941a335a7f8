package dev.lacuna;

/**
 * Who made a change, when it was not the application (DynamoDB's {@code userIdentity} of a stream record).
 *
 * @param principalId who: {@code dynamodb.amazonaws.com} for a time-to-live deletion
 * @param type        of what kind: {@code Service} for a time-to-live deletion
 */
public record StreamIdentity(String principalId, String type) {
    /** The identity DynamoDB gives a deletion made by time to live. */
    public static final StreamIdentity TIME_TO_LIVE = new StreamIdentity("dynamodb.amazonaws.com", "Service");
}
