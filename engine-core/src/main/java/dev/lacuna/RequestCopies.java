package dev.lacuna;

/**
 * Copies of {@link Query} and {@link Scan} requests, made through their public setters: a paginator moves the
 * start key of its own copy, never the caller's request.
 */
final class RequestCopies {
    private RequestCopies() {
    }

    /** A copy of either kind of page request (the class is sealed: a query or a scan). */
    static PageRequest<?> copy(PageRequest<?> r) {
        return r instanceof Query q ? copy(q) : copy((Scan) r);
    }

    static Query copy(Query q) {
        Query c = new Query(q.keyCondition()).scanIndexForward(q.forward()).consistentRead(q.consistentRead());
        if (q.readYourWrites() != null) {
            c.readYourWrites(q.readYourWrites());
        }
        return common(q, c);
    }

    static Scan copy(Scan s) {
        return common(s, new Scan().segment(s.segment(), s.totalSegments()));
    }

    private static <T extends PageRequest<T>> T common(PageRequest<?> from, T to) {
        to.names(from.names()).values(from.values());
        if (from.index() != null) {
            to.index(from.index());
        }
        if (from.filter() != null) {
            to.filter(from.filter());
        }
        if (from.projection() != null) {
            to.projection(from.projection());
        }
        if (from.limit() > 0) {
            to.limit(from.limit());
        }
        if (from.select() != null) {
            to.select(from.select());
        }
        return to.exclusiveStartKey(from.exclusiveStartKey());
    }
}
