package dev.lacuna;

import java.util.Map;
import java.util.Objects;

/**
 * A request to read the items of one partition key, in sort-key order:
 * {@code new Query("pk = :p AND begins_with(sk, :s)").value(":p", …).value(":s", …)}. A page ends after
 * {@link #limit} items were read, or after 1 MB of items, with a {@link Page#lastEvaluatedKey()} to
 * continue from. Not thread-safe; build it, then pass it.
 */
public final class Query extends ExpressionRequest<Query> {
    private final String keyCondition;
    private String index;
    private String filter;
    private String projection;
    private int limit;
    private Map<String, AttributeValue> exclusiveStartKey;
    private boolean forward = true;
    private boolean count;
    private java.time.Duration readYourWrites;
    private boolean consistentRead;

    /** Reads the items matching this key condition expression. */
    public Query(String keyCondition) {
        this.keyCondition = Objects.requireNonNull(keyCondition, "keyCondition");
    }

    /** Queries the secondary index named {@code index} instead of the table. */
    public Query index(String index) {
        this.index = Objects.requireNonNull(index, "index");
        return this;
    }

    /** Returns only the items read that satisfy this filter expression (it may not name key attributes). */
    public Query filter(String expression) {
        this.filter = Objects.requireNonNull(expression, "expression");
        return this;
    }

    /** Returns only the attributes named by this projection expression. */
    public Query projection(String expression) {
        this.projection = Objects.requireNonNull(expression, "expression");
        return this;
    }

    /** Reads at most {@code n} items (before the filter) in this page; n ≥ 1. */
    public Query limit(int n) {
        if (n < 1) {
            throw new ValidationException("Limit must be at least 1: " + n);
        }
        this.limit = n;
        return this;
    }

    /** Continues after this key: the {@link Page#lastEvaluatedKey()} of the previous page. */
    public Query exclusiveStartKey(Map<String, AttributeValue> key) {
        this.exclusiveStartKey = key == null ? null : Map.copyOf(key);
        return this;
    }

    /** Ascending sort-key order (default) or, if false, descending. */
    public Query scanIndexForward(boolean forward) {
        this.forward = forward;
        return this;
    }

    /**
     * For a query on a global secondary index (eventually consistent, as in DynamoDB): first wait, at most
     * {@code timeout}, until the index has applied every write acknowledged before the query began, so the
     * query sees them ({@link ReadYourWritesTimeoutException} if it takes longer). Lacuna's addition.
     */
    public Query readYourWrites(java.time.Duration timeout) {
        this.readYourWrites = java.util.Objects.requireNonNull(timeout, "timeout");
        return this;
    }

    /** The read-your-writes timeout, or null for an eventually consistent read. */
    public java.time.Duration readYourWrites() {
        return readYourWrites;
    }

    /**
     * DynamoDB's {@code ConsistentRead}: tables and local indexes are always read strongly consistently;
     * {@code true} on a global index is a {@link ValidationException}, as in DynamoDB (see
     * {@link #readYourWrites} for Lacuna's alternative).
     */
    public Query consistentRead(boolean consistent) {
        this.consistentRead = consistent;
        return this;
    }

    /** Whether a consistent read was asked for. */
    public boolean consistentRead() {
        return consistentRead;
    }

    /** Returns only the count of matching items, not the items ({@code Select=COUNT}). */
    public Query count() {
        this.count = true;
        return this;
    }

    /** The key condition expression. */
    public String keyCondition() {
        return keyCondition;
    }

    /** The index queried, or null for the table. */
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

    /** Whether the sort-key order is ascending. */
    public boolean forward() {
        return forward;
    }

    /** Whether only the count is asked for. */
    public boolean isCount() {
        return count;
    }
}
