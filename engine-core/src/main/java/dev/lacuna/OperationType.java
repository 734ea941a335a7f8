package dev.lacuna;

/** What a change stream record reports (DynamoDB's {@code OperationType}, a record's {@code eventName}). */
public enum OperationType {
    /** A new item was written where there was none. */
    INSERT,
    /** An existing item was replaced or updated, and changed. */
    MODIFY,
    /** An item was deleted (by a user, or by time to live: see {@link StreamRecord#userIdentity()}). */
    REMOVE
}
