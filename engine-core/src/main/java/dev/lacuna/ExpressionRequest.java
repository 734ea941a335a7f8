package dev.lacuna;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What every request with expressions shares: its expression attribute names ({@code #name}) and values
 * ({@code :value}). As in DynamoDB, every one given must be used by some expression of the request.
 *
 * @param <T> the request type, so that setters chain
 */
public abstract sealed class ExpressionRequest<T extends ExpressionRequest<T>>
        permits GetItem, WriteRequest, ConditionCheck, PageRequest {
    private final Map<String, String> names = new LinkedHashMap<>();
    private final Map<String, AttributeValue> values = new LinkedHashMap<>();

    ExpressionRequest() {
    }

    @SuppressWarnings("unchecked")
    private T self() {
        return (T) this;
    }

    /** Defines expression attribute name {@code placeholder} (for example {@code "#s"}) as {@code attribute}. */
    public T name(String placeholder, String attribute) {
        names.put(Objects.requireNonNull(placeholder, "placeholder"), Objects.requireNonNull(attribute, "attribute"));
        return self();
    }

    /** Defines expression attribute value {@code placeholder} (for example {@code ":v"}) as {@code value}. */
    public T value(String placeholder, AttributeValue value) {
        values.put(Objects.requireNonNull(placeholder, "placeholder"), Objects.requireNonNull(value, "value"));
        return self();
    }

    /** Adds every entry of {@code names} as {@link #name}. */
    public T names(Map<String, String> names) {
        names.forEach(this::name);
        return self();
    }

    /** Adds every entry of {@code values} as {@link #value}. */
    public T values(Map<String, AttributeValue> values) {
        values.forEach(this::value);
        return self();
    }

    /** The expression attribute names given. */
    public Map<String, String> names() {
        return Map.copyOf(names);
    }

    /** The expression attribute values given. */
    public Map<String, AttributeValue> values() {
        return Map.copyOf(values);
    }

    /** The names and values, for idempotency fingerprints. */
    String placeholderText() {
        return names + "" + values;
    }
}
