package dev.lacuna;

/**
 * Whether a table's items expire ({@link Database#describeTimeToLive}). A change takes effect when
 * {@link Database#updateTimeToLive} returns, so DynamoDB's transitional {@code ENABLING} and {@code DISABLING}
 * are never reported.
 */
public enum TimeToLiveStatus {
    /** Items whose time-to-live attribute lies in the past are hidden from reads and deleted in the background. */
    ENABLED,
    /** No item expires. */
    DISABLED
}
