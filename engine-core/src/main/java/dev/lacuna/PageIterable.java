package dev.lacuna;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Function;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * Every page of a {@link Query} or {@link Scan}, read one at a time as iteration reaches it, without a
 * hand-written {@link Page#lastEvaluatedKey()} loop: the AWS SDK's paginators ({@code queryPaginator},
 * {@code scanPaginator}) in Lacuna's terms. Made by {@link Table#queryPaginator}, {@link Table#scanPaginator} and
 * their {@link Database} counterparts.
 *
 * <pre>{@code
 * for (Item ticket : tickets.queryPaginator(new Query("GSI1PK = :q").index("GSI1")
 *         .value(":q", AttributeValue.s("QUEUE#open")).limit(100)).items()) {
 *     ...   // 100 items read per page, the next page read when these are used up
 * }
 * }</pre>
 *
 * <p>Lazy: nothing is read until iteration asks for the first page, and each page is read only when the one
 * before it is used up, so an iteration stopped early (a {@code break}, {@link Stream#limit}) reads no further.
 * Each page is one request: its {@link PageRequest#limit(int) limit} bounds that page (as in DynamoDB, the
 * limit is per request, not a total), its filter and projection apply, a {@code COUNT} request yields pages
 * with counts and no items. The iteration ends after the page without a last evaluated key.
 *
 * <p>The request is copied when the paginator is made: changing it afterwards changes nothing here. Each
 * {@link #iterator()} (and each stream) starts again from the request's own exclusive start key and reads
 * the pages anew, seeing the table as it is then; pages are not cached. Iterators are not thread-safe (one
 * per thread); the paginator itself is immutable and may be shared. A failed read (a closed database, an
 * unknown table, an invalid request) throws from {@code hasNext()}/{@code next()} with the request's own
 * exception.
 */
public final class PageIterable implements Iterable<Page> {
    private final PageRequest<?> request;
    private final Function<PageRequest<?>, Page> read;

    private PageIterable(PageRequest<?> request, Function<PageRequest<?>, Page> read) {
        this.request = request;
        this.read = read;
    }

    static PageIterable of(Query request, Function<Query, Page> read) {
        Query copy = RequestCopies.copy(request);
        return new PageIterable(copy, r -> read.apply((Query) r));
    }

    static PageIterable of(Scan request, Function<Scan, Page> read) {
        Scan copy = RequestCopies.copy(request);
        return new PageIterable(copy, r -> read.apply((Scan) r));
    }

    /** A new iteration over the pages, from the request's exclusive start key; the first page is read by {@code hasNext()}. */
    @Override
    public Iterator<Page> iterator() {
        return new Pages(RequestCopies.copy(request));
    }

    /** The pages as a sequential, lazy stream (a new iteration each call). */
    public Stream<Page> stream() {
        return StreamSupport.stream(spliterator(), false);
    }

    /** The pages' items, in order, page after page: each page read when the items before it are used up. */
    public Iterable<Item> items() {
        return () -> new Items(iterator());
    }

    /** {@link #items()} as a sequential, lazy stream (a new iteration each call). */
    public Stream<Item> itemStream() {
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(items().iterator(),
                Spliterator.ORDERED | Spliterator.NONNULL), false);
    }

    @Override
    public Spliterator<Page> spliterator() {
        return Spliterators.spliteratorUnknownSize(iterator(), Spliterator.ORDERED | Spliterator.NONNULL);
    }

    /** Reads page after page through one copy of the request, moving its start key along. */
    private final class Pages implements Iterator<Page> {
        private final PageRequest<?> own;
        private Page next;
        private boolean done;

        Pages(PageRequest<?> own) {
            this.own = own;
        }

        @Override
        public boolean hasNext() {
            if (next == null && !done) {
                next = read.apply(own);
                if (next.hasMore()) {
                    own.exclusiveStartKey(next.lastEvaluatedKey());
                } else {
                    done = true;
                }
            }
            return next != null;
        }

        @Override
        public Page next() {
            if (!hasNext()) {
                throw new NoSuchElementException("no more pages");
            }
            Page page = next;
            next = null;
            return page;
        }
    }

    /** The items of the pages an iterator gives, flattened. */
    private static final class Items implements Iterator<Item> {
        private final Iterator<Page> pages;
        private Iterator<Item> current = java.util.Collections.emptyIterator();

        Items(Iterator<Page> pages) {
            this.pages = pages;
        }

        @Override
        public boolean hasNext() {
            // A page may be empty (a filter kept nothing) and still be followed by more.
            while (!current.hasNext() && pages.hasNext()) {
                current = pages.next().items().iterator();
            }
            return current.hasNext();
        }

        @Override
        public Item next() {
            if (!hasNext()) {
                throw new NoSuchElementException("no more items");
            }
            return current.next();
        }
    }
}
