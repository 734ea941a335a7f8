package dev.lacuna.engine;

import dev.lacuna.AttributeValue;
import dev.lacuna.Item;
import dev.lacuna.ValidationException;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.ZoneOffset;

/**
 * DynamoDB's time-to-live rules: which changes of a table's setting are allowed, and when an item has
 * expired. An item expires when its TTL attribute is a top-level number of epoch seconds at or before now;
 * a value more than five years in the past is ignored (DynamoDB does so, so that a value in milliseconds or a
 * mistaken zero does not delete the table's items), and an item whose attribute is absent or not a number
 * never expires.
 */
final class TimeToLive {
    /** DynamoDB's limit on the length of the attribute name. */
    static final int MAX_ATTRIBUTE_CHARS = 255;

    private TimeToLive() {
    }

    /**
     * The settings with time to live enabled on {@code attribute}, or disabled.
     *
     * @throws ValidationException if the name is invalid, or the change is not allowed as things stand: enabling
     *         when it is enabled (also on another attribute: disable it first, as DynamoDB asks), disabling when it
     *         is disabled, or disabling by another attribute than the enabled one
     */
    static TableSettings update(TableSettings current, String attribute, boolean enabled) {
        String at = "timeToLiveSpecification.attributeName";
        if (attribute == null) {
            throw new ValidationException("1 validation error detected: Value null at '" + at
                    + "' failed to satisfy constraint: Member must not be null");
        }
        int length = attribute.codePointCount(0, attribute.length());
        if (length < 1) {
            throw new ValidationException("1 validation error detected: Value '' at '" + at
                    + "' failed to satisfy constraint: Member must have length greater than or equal to 1");
        }
        if (length > MAX_ATTRIBUTE_CHARS) {
            throw new ValidationException("1 validation error detected: Value '" + attribute + "' at '" + at
                    + "' failed to satisfy constraint: Member must have length less than or equal to "
                    + MAX_ATTRIBUTE_CHARS);
        }
        String now = current.ttlAttribute();
        if (enabled) {
            if (now != null) {
                throw new ValidationException("TimeToLive is already enabled");
            }
            return current.withTtlAttribute(attribute);
        }
        if (now == null) {
            throw new ValidationException("TimeToLive is already disabled");
        }
        if (!now.equals(attribute)) {
            throw new ValidationException("One or more parameter values were invalid: TimeToLive is enabled on "
                    + "attribute " + now + ", not " + attribute);
        }
        return current.withTtlAttribute(null);
    }

    /** The expiry test of {@code attribute} as of {@code now}. */
    static Expiry expiry(String attribute, Instant now) {
        long oldest = now.atOffset(ZoneOffset.UTC).minusYears(5).toEpochSecond();
        return new Expiry(attribute, BigDecimal.valueOf(now.getEpochSecond()), BigDecimal.valueOf(oldest));
    }

    /**
     * Whether an item has expired, as of one moment.
     *
     * @param attribute the TTL attribute
     * @param now       the moment, in epoch seconds
     * @param oldest    five years before it: values below are ignored
     */
    record Expiry(String attribute, BigDecimal now, BigDecimal oldest) {
        boolean expired(Item item) {
            return expired(item.get(attribute));
        }

        /** Whether {@code value} (an item's TTL attribute, or null if it has none) says the item has expired. */
        boolean expired(AttributeValue value) {
            if (!(value instanceof AttributeValue.N n)) {
                return false;
            }
            return n.value().compareTo(now) <= 0 && n.value().compareTo(oldest) >= 0;
        }
    }
}
