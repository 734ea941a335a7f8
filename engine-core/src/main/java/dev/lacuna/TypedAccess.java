package dev.lacuna;

import java.math.BigDecimal;

/** The errors of the typed getters of {@link Item} and {@link AttributeValue}, worded in one place. */
final class TypedAccess {
    private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);
    private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

    private TypedAccess() {
    }

    /** {@code value} (of attribute {@code name}, or a bare value if null) is not of type {@code expected}. */
    static AttributeTypeException mismatch(String name, AttributeValue.Type expected, AttributeValue value) {
        return new AttributeTypeException(subject(name) + " is " + value.type() + ", not " + expected,
                expected, value.type());
    }

    /** The item has no attribute {@code name}. */
    static AttributeTypeException absent(String name, AttributeValue.Type expected) {
        return new AttributeTypeException("the item has no attribute \"" + name + "\" (asked for as " + expected + ")",
                expected, null);
    }

    static long exactLong(String name, AttributeValue value) {
        if (!(value instanceof AttributeValue.N n)) {
            throw mismatch(name, AttributeValue.Type.N, value);
        }
        BigDecimal v = n.value();
        if (v.compareTo(LONG_MIN) < 0 || v.compareTo(LONG_MAX) > 0 || v.stripTrailingZeros().scale() > 0) {
            throw new AttributeTypeException(subject(name) + " is N " + n + ", which is not a whole number in the"
                    + " range of a long (read it with getNumber)", AttributeValue.Type.N, AttributeValue.Type.N);
        }
        return v.longValueExact();
    }

    private static String subject(String name) {
        return name == null ? "the value" : "attribute \"" + name + "\"";
    }
}
