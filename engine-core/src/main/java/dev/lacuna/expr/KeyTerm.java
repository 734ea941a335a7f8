package dev.lacuna.expr;

import dev.lacuna.AttributeValue;
import java.util.Objects;
import java.util.Optional;

/**
 * One condition of a key condition expression, bound to its values: {@code attribute operator value}, or
 * {@code attribute BETWEEN value AND upperValue}, or {@code begins_with(attribute, value)}. Immutable.
 *
 * <p>Key values are ordered as DynamoDB orders keys: N by numeric value, S by UTF-8 bytes, B by unsigned
 * bytes. A key value of another type than the condition's value never matches.
 *
 * @param attribute  the key attribute's name (placeholders resolved)
 * @param operator   the comparison
 * @param value      the value compared with (the lower bound for {@link Operator#BETWEEN}, the prefix for
 *                   {@link Operator#BEGINS_WITH})
 * @param upperValue the upper bound for {@link Operator#BETWEEN}, null otherwise
 */
public record KeyTerm(String attribute, Operator operator, AttributeValue value, AttributeValue upperValue) {
    /** The comparisons a key condition allows. */
    public enum Operator {
        EQ, LT, LE, GT, GE, BETWEEN, BEGINS_WITH
    }

    /** One end of the range of keys a term admits. */
    public record Bound(AttributeValue value, boolean inclusive) {
    }

    public KeyTerm {
        Objects.requireNonNull(attribute, "attribute");
        Objects.requireNonNull(operator, "operator");
        Objects.requireNonNull(value, "value");
        if ((operator == Operator.BETWEEN) != (upperValue != null)) {
            throw new IllegalArgumentException("an upper value goes with BETWEEN and only with it");
        }
    }

    /** Whether a key with value {@code key} satisfies this term. */
    public boolean matches(AttributeValue key) {
        if (operator == Operator.BEGINS_WITH) {
            return Values.beginsWith(key, value);
        }
        Integer order = Values.compare(key, value);
        if (order == null) {
            return false;
        }
        return switch (operator) {
            case EQ -> order == 0;
            case LT -> order < 0;
            case LE -> order <= 0;
            case GT -> order > 0;
            case GE -> order >= 0;
            default -> {
                Integer upper = Values.compare(key, upperValue);
                yield order >= 0 && upper != null && upper <= 0;
            }
        };
    }

    /**
     * The lowest key this term admits, if it has one. For {@link Operator#BEGINS_WITH} it is the prefix
     * (inclusive): the matching keys follow it contiguously, until the first that does not {@link #matches}.
     */
    public Optional<Bound> lower() {
        return switch (operator) {
            case EQ, GE, BETWEEN, BEGINS_WITH -> Optional.of(new Bound(value, true));
            case GT -> Optional.of(new Bound(value, false));
            default -> Optional.empty();
        };
    }

    /** The highest key this term admits, if it has one; none for {@link Operator#BEGINS_WITH} (see {@link #lower}). */
    public Optional<Bound> upper() {
        return switch (operator) {
            case EQ, LE -> Optional.of(new Bound(value, true));
            case LT -> Optional.of(new Bound(value, false));
            case BETWEEN -> Optional.of(new Bound(upperValue, true));
            default -> Optional.empty();
        };
    }
}
