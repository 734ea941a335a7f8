package dev.lacuna;

import java.time.Duration;
import java.util.Objects;

/**
 * A request to read the items of one partition key, in sort-key order:
 * {@code new Query("pk = :p AND begins_with(sk, :s)").value(":p", …).value(":s", …)}. A page ends after
 * {@link #limit} items were read, or after 1 MB of items, with a {@link Page#lastEvaluatedKey()} to
 * continue from. Not thread-safe; build it, then pass it.
 */
public final class Query extends PageRequest<Query> {
    private final String keyCondition;
    private boolean forward = true;
    private Duration readYourWrites;
    private boolean consistentRead;

    /** Reads the items matching this key condition expression. */
    public Query(String keyCondition) {
        this.keyCondition = Objects.requireNonNull(keyCondition, "keyCondition");
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
    public Query readYourWrites(Duration timeout) {
        this.readYourWrites = Objects.requireNonNull(timeout, "timeout");
        return this;
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

    /** The key condition expression. */
    public String keyCondition() {
        return keyCondition;
    }

    /** Whether the sort-key order is ascending. */
    public boolean forward() {
        return forward;
    }

    /** The read-your-writes timeout, or null for an eventually consistent read. */
    public Duration readYourWrites() {
        return readYourWrites;
    }

    /** Whether a consistent read was asked for. */
    public boolean consistentRead() {
        return consistentRead;
    }
}
