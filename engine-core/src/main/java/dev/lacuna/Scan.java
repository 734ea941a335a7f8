package dev.lacuna;

import java.util.Map;
import java.util.Objects;

/**
 * A request to read every item of a table, partition by partition, or one segment of it
 * ({@link #segment}) so that several threads can scan in parallel. Pages as {@link Query} does. Not
 * thread-safe; build it, then pass it.
 */
public final class Scan extends ExpressionRequest<Scan> {
    /** The most segments a parallel scan may have (DynamoDB's limit). */
    public static final int MAX_SEGMENTS = 1_000_000;

    private String index;
    private String filter;
    private String projection;
    private int limit;
    private Map<String, AttributeValue> exclusiveStartKey;
    private int segment;
    private int totalSegments = 1;
    private boolean count;

    /** Scans the whole table. */
    public Scan() {
    }

    /** Scans the secondary index named {@code index} (its entries, as projected) instead of the table. */
    public Scan index(String index) {
        this.index = java.util.Objects.requireNonNull(index, "index");
        return this;
    }

    /** The index scanned, or null for the table. */
    public String index() {
        return index;
    }

    /** Returns only the items read that satisfy this filter expression. */
    public Scan filter(String expression) {
        this.filter = Objects.requireNonNull(expression, "expression");
        return this;
    }

    /** Returns only the attributes named by this projection expression. */
    public Scan projection(String expression) {
        this.projection = Objects.requireNonNull(expression, "expression");
        return this;
    }

    /** Reads at most {@code n} items (before the filter) in this page; n ≥ 1. */
    public Scan limit(int n) {
        if (n < 1) {
            throw new ValidationException("Limit must be at least 1: " + n);
        }
        this.limit = n;
        return this;
    }

    /** Continues after this key: the {@link Page#lastEvaluatedKey()} of the previous page. */
    public Scan exclusiveStartKey(Map<String, AttributeValue> key) {
        this.exclusiveStartKey = key == null ? null : Map.copyOf(key);
        return this;
    }

    /**
     * Reads only segment {@code segment} of {@code totalSegments} (1 to {@value #MAX_SEGMENTS}): the
     * segments are disjoint and together hold every item.
     */
    public Scan segment(int segment, int totalSegments) {
        if (totalSegments < 1 || totalSegments > MAX_SEGMENTS) {
            throw new ValidationException("TotalSegments must be from 1 to " + MAX_SEGMENTS + ": " + totalSegments);
        }
        if (segment < 0 || segment >= totalSegments) {
            throw new ValidationException("Segment must be from 0 to TotalSegments - 1 (" + (totalSegments - 1)
                    + "): " + segment);
        }
        this.segment = segment;
        this.totalSegments = totalSegments;
        return this;
    }

    /** Returns only the count of matching items ({@code Select=COUNT}). */
    public Scan count() {
        this.count = true;
        return this;
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

    /** The segment scanned. */
    public int segment() {
        return segment;
    }

    /** The number of segments the scan is split into. */
    public int totalSegments() {
        return totalSegments;
    }

    /** Whether only the count is asked for. */
    public boolean isCount() {
        return count;
    }
}
