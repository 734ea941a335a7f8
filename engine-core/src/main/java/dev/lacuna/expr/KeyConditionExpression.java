package dev.lacuna.expr;

import dev.lacuna.AttributeValue;
import dev.lacuna.ValidationException;
import dev.lacuna.expr.KeyConditionParser.RawTerm;
import dev.lacuna.expr.KeyTerm.Operator;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A parsed and bound key condition expression of a query: {@code pk = :v}, optionally {@code AND} one
 * condition on the sort key ({@code = < <= > >=}, {@code BETWEEN}, {@code begins_with}), the two in either
 * order. Which term is which is settled by {@link #resolve} against the key schema of the table or index
 * queried. Immutable and thread-safe.
 */
public final class KeyConditionExpression {
    /** What a query reads: one partition, and optionally a condition on the sort key. */
    public record KeyRange(String partitionKey, AttributeValue partitionValue, Optional<KeyTerm> sortKeyCondition) {
        public KeyRange {
            Objects.requireNonNull(partitionKey, "partitionKey");
            Objects.requireNonNull(partitionValue, "partitionValue");
            Objects.requireNonNull(sortKeyCondition, "sortKeyCondition");
        }
    }

    private static final ExpressionKind KIND = ExpressionKind.KEY_CONDITION;

    private final String text;
    private final List<KeyTerm> terms;

    private KeyConditionExpression(String text, List<KeyTerm> terms) {
        this.text = text;
        this.terms = List.copyOf(terms);
    }

    /**
     * Parses {@code expression}, resolving its placeholders in {@code placeholders} (and marking them used).
     *
     * @throws ValidationException if the expression is malformed or not a key condition (OR, NOT, IN,
     *                             {@code <>}, other functions, nested paths, more than two terms, two terms on one
     *                             attribute), uses an undefined placeholder or a reserved word, has BETWEEN bounds
     *                             of different types or in the wrong order, or compares with a value that no key
     *                             can have (not S, N or B)
     */
    public static KeyConditionExpression parse(String expression, Placeholders placeholders) {
        return bind(expression, KeyConditionParser.parse(expression), placeholders);
    }

    /** As {@link #parse(String, Placeholders)}, taking the parse from {@code cache} when it has it. */
    public static KeyConditionExpression parse(String expression, Placeholders placeholders, ParseCache cache) {
        return bind(expression, cache.keyCondition(expression), placeholders);
    }

    private static KeyConditionExpression bind(String expression, List<RawTerm> raw, Placeholders placeholders) {
        Binder binder = new Binder(placeholders, KIND);
        List<KeyTerm> terms = new ArrayList<>();
        for (RawTerm term : raw) {
            String attribute = binder.path(term.key()).topLevelName();
            AttributeValue value = keyValue(binder.value(term.value()));
            AttributeValue upper = term.upper() == null ? null : keyValue(binder.value(term.upper()));
            if (upper != null) {
                binder.checkBounds(value, upper);
            }
            if (term.operator() == Operator.BEGINS_WITH && !Binder.isStringOrBinary(value)) {
                throw KIND.error("Incorrect operand type for operator or function; operator or function: begins_with,"
                        + " operand type: " + value.type());
            }
            for (KeyTerm other : terms) {
                if (other.attribute().equals(attribute)) {
                    throw KIND.error("KeyConditionExpressions must only contain one condition per key; key: " + attribute);
                }
            }
            terms.add(new KeyTerm(attribute, term.operator(), value, upper));
        }
        return new KeyConditionExpression(expression, terms);
    }

    private static AttributeValue keyValue(AttributeValue v) {
        if (v.type() != AttributeValue.Type.S && v.type() != AttributeValue.Type.N && v.type() != AttributeValue.Type.B) {
            throw new ValidationException("One or more parameter values were invalid: Condition parameter type does not"
                    + " match schema type; a key is S, N or B, the value is " + v.type());
        }
        return v;
    }

    /** The one or two terms, in the order written. */
    public List<KeyTerm> terms() {
        return terms;
    }

    /**
     * Matches the terms to a key schema: one must be {@code partitionKey = :v}; the other, if any, must be on
     * {@code sortKey}.
     *
     * @param sortKey the sort key's name, or null if the table or index has none
     * @throws ValidationException {@code Query condition missed key schema element: <key>} if there is no term
     *                             on the partition key (or the second term is not on the sort key),
     *                             {@code Query key condition not supported} if the partition key is not compared
     *                             with {@code =}, or the schema has no sort key but the expression has a second term
     */
    public KeyRange resolve(String partitionKey, String sortKey) {
        Objects.requireNonNull(partitionKey, "partitionKey");
        KeyTerm partition = null;
        KeyTerm other = null;
        for (KeyTerm term : terms) {
            if (term.attribute().equals(partitionKey)) {
                partition = term;
            } else {
                other = term;
            }
        }
        if (partition == null) {
            throw new ValidationException("Query condition missed key schema element: " + partitionKey);
        }
        if (partition.operator() != Operator.EQ) {
            throw new ValidationException("Query key condition not supported; the partition key " + partitionKey
                    + " must be compared with =, not " + partition.operator());
        }
        if (other != null && !other.attribute().equals(sortKey)) {
            if (sortKey == null) {
                throw new ValidationException("Query key condition not supported; the key schema has no sort key, but the"
                        + " expression has a condition on " + other.attribute());
            }
            throw new ValidationException("Query condition missed key schema element: " + sortKey);
        }
        return new KeyRange(partitionKey, partition.value(), Optional.ofNullable(other));
    }

    @Override
    public String toString() {
        return text;
    }
}
