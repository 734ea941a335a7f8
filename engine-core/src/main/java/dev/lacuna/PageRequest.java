package dev.lacuna;

import java.util.Map;
import java.util.Objects;

/**
 * What {@link Query} and {@link Scan} share: the index read instead of the table, a filter, a projection,
 * the page's item limit, where it starts, and whether only the count is asked for.
 *
 * @param <T> the request type, so that setters chain
 */
public abstract sealed class PageRequest<T extends PageRequest<T>> extends ExpressionRequest<T>
        permits Query, Scan {
    private String index;
    private String filter;
    private String projection;
    private int limit;
    private Map<String, AttributeValue> exclusiveStartKey;
    private Select select;

    PageRequest() {
    }

    @SuppressWarnings("unchecked")
    private T self() {
        return (T) this;
    }

    /** Reads the secondary index named {@code index} (its entries, as projected) instead of the table. */
    public T index(String index) {
        this.index = Objects.requireNonNull(index, "index");
        return self();
    }

    /** Returns only the items read that satisfy this filter expression (a query's may not name key attributes). */
    public T filter(String expression) {
        this.filter = Objects.requireNonNull(expression, "expression");
        return self();
    }

    /** Returns only the attributes named by this projection expression. */
    public T projection(String expression) {
        this.projection = Objects.requireNonNull(expression, "expression");
        return self();
    }

    /** Reads at most {@code n} items (before the filter) in this page; n ≥ 1. */
    public T limit(int n) {
        if (n < 1) {
            throw new ValidationException("Limit must be at least 1: " + n);
        }
        this.limit = n;
        return self();
    }

    /** Continues after this key: the {@link Page#lastEvaluatedKey()} of the previous page. */
    public T exclusiveStartKey(Map<String, AttributeValue> key) {
        this.exclusiveStartKey = key == null ? null : Map.copyOf(key);
        return self();
    }

    /** Returns only how many items match ({@code Select.COUNT}), not the items. */
    public T count() {
        return select(Select.COUNT);
    }

    /** What to return of each matching item ({@link Select}); the default depends on the target and projection. */
    public T select(Select select) {
        this.select = Objects.requireNonNull(select, "select");
        return self();
    }


    /** The index read, or null for the table. */
    public String index() {
        return index;
    }

    /** The filter expression, or null. */
    public String filter() {
        return filter;
    }

    /** The projection expression, or null for every attribute. */
    public String projection() {
        return projection;
    }

    /** The item limit, or 0 for none. */
    public int limit() {
        return limit;
    }

    /** Where the page starts (exclusive), or null for the beginning. */
    public Map<String, AttributeValue> exclusiveStartKey() {
        return exclusiveStartKey;
    }

    /** The {@link Select} given, or null for the default. */
    public Select select() {
        return select;
    }

    /** Whether only the count is asked ({@code Select.COUNT}). */
    public boolean isCount() {
        return select == Select.COUNT;
    }
}
