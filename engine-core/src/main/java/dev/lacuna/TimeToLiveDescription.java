package dev.lacuna;

import java.util.Objects;

/**
 * A table's time to live, as {@link Database#describeTimeToLive} reports it.
 *
 * @param status        whether items expire
 * @param attributeName the top-level attribute holding each item's expiry time (a number of epoch seconds)
 *                      while {@code ENABLED}; null while {@code DISABLED}
 */
public record TimeToLiveDescription(TimeToLiveStatus status, String attributeName) {
    /** Time to live off. */
    public static final TimeToLiveDescription DISABLED = new TimeToLiveDescription(TimeToLiveStatus.DISABLED, null);

    /** Checks that an attribute is named exactly when time to live is enabled. */
    public TimeToLiveDescription {
        Objects.requireNonNull(status, "status");
        if ((status == TimeToLiveStatus.ENABLED) != (attributeName != null)) {
            throw new IllegalArgumentException("an attribute name goes with ENABLED, and only with it: " + status
                    + ", " + attributeName);
        }
    }

    /** Time to live on, with {@code attributeName} holding each item's expiry time. */
    public static TimeToLiveDescription enabled(String attributeName) {
        return new TimeToLiveDescription(TimeToLiveStatus.ENABLED, Objects.requireNonNull(attributeName, "attributeName"));
    }

    /** Whether items expire. */
    public boolean isEnabled() {
        return status == TimeToLiveStatus.ENABLED;
    }
}
