package dev.lacuna;

import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.s;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.storage.DatabaseClosedException;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link PageIterable}: every page and every item of a query or scan without a lastEvaluatedKey loop. */
class PaginatorTest {
    private static final Path DIR = Path.of("/db");
    private static final int ITEMS = 23;

    private Database db;
    private Table orders;

    @BeforeEach
    void open() {
        db = Database.open(DIR, DatabaseOptions.builder().vfs(new MemVfs()).build());
        db.createTable(TableSpec.builder("Orders").partitionKey("pk", AttributeValue.Type.S)
                .sortKey("sk", AttributeValue.Type.N).partitions(4).build());
        orders = db.table("Orders");
        for (int i = 0; i < ITEMS; i++) {
            orders.putItem(Item.builder().s("pk", "REGION#north").n("sk", i).bool("open", i % 3 == 0).build());
            orders.putItem(Item.builder().s("pk", "REGION#south-" + i).n("sk", 0).bool("open", false).build());
        }
    }

    @AfterEach
    void close() {
        db.close();
    }

    private static Query north() {
        return new Query("pk = :p").value(":p", s("REGION#north"));
    }

    @Test
    void shouldIterateEveryItemOfAQueryPageByPageHonouringTheLimitPerPage() {
        PageIterable pages = orders.queryPaginator(north().limit(5));

        List<Page> all = new ArrayList<>();
        pages.forEach(all::add);

        assertThat(all).extracting(p -> p.items().size()).containsExactly(5, 5, 5, 5, 3);
        assertThat(all.get(all.size() - 1).hasMore()).isFalse();
        List<Long> sks = new ArrayList<>();
        for (Item item : pages.items()) {
            sks.add(item.getLong("sk"));
        }
        assertThat(sks).hasSize(ITEMS).isSorted().doesNotHaveDuplicates();
        assertThat(pages.itemStream().map(i -> i.getLong("sk")).collect(Collectors.toList())).isEqualTo(sks);
    }

    @Test
    void shouldReadEachPageOnlyWhenIterationReachesIt() {
        AtomicInteger reads = new AtomicInteger();
        PageIterable pages = PageIterable.of(north().limit(4), q -> {
            reads.incrementAndGet();
            return orders.query(q);
        });
        assertThat(reads).hasValue(0);

        Iterator<Item> items = pages.items().iterator();
        for (int i = 0; i < 4; i++) {
            items.next();
        }
        assertThat(reads).hasValue(1);
        items.next();
        assertThat(reads).hasValue(2);

        assertThat(pages.itemStream().limit(9).count()).isEqualTo(9);
        assertThat(reads).hasValue(2 + 3);
    }

    @Test
    void shouldScanEveryItemAndCrossPagesThatTheFilterEmptied() {
        PageIterable pages = db.scanPaginator("Orders", new Scan().filter("#o = :t").name("#o", "open")
                .value(":t", AttributeValue.bool(true)).limit(2));

        List<Item> open = pages.itemStream().toList();

        assertThat(open).hasSize(8).allMatch(i -> i.getBoolean("open"));
        assertThat(pages.stream().filter(p -> p.items().isEmpty()).count()).isPositive();
        assertThat(pages.stream().mapToInt(Page::scannedCount).sum()).isEqualTo(2 * ITEMS);
    }

    @Test
    void shouldLeaveTheCallersRequestAloneAndStartEachIterationAfresh() {
        Query request = north().limit(10);
        PageIterable pages = orders.queryPaginator(request);
        request.limit(1).scanIndexForward(false); // after the paginator was made: no effect on it

        assertThat(pages.stream().count()).isEqualTo(3);
        assertThat(pages.stream().count()).isEqualTo(3);
        assertThat(request.exclusiveStartKey()).isNull();
        assertThat(pages.itemStream().findFirst().orElseThrow().getLong("sk")).isZero();
    }

    @Test
    void shouldStartFromTheRequestsExclusiveStartKey() {
        Page first = orders.query(north().limit(20));
        PageIterable rest = orders.queryPaginator(north().exclusiveStartKey(first.lastEvaluatedKey()));

        assertThat(rest.itemStream().map(i -> i.getLong("sk")).toList()).containsExactly(20L, 21L, 22L);
    }

    @Test
    void shouldYieldCountsWithoutItemsForACountQuery() {
        PageIterable pages = orders.queryPaginator(north().count().limit(10));

        assertThat(pages.stream().mapToInt(Page::count).sum()).isEqualTo(ITEMS);
        assertThat(pages.items()).isEmpty();
    }

    @Test
    void shouldEndWithNoSuchElementAndFailWithTheReadsOwnException() {
        Iterator<Page> it = orders.queryPaginator(north()).iterator();
        it.next();
        assertThat(it.hasNext()).isFalse();
        assertThatThrownBy(it::next).isInstanceOf(NoSuchElementException.class);

        PageIterable unknown = db.queryPaginator("Nope", north());
        assertThatThrownBy(() -> unknown.iterator().hasNext()).isInstanceOf(ResourceNotFoundException.class);

        PageIterable pages = orders.scanPaginator(new Scan());
        db.close();
        assertThatThrownBy(() -> pages.iterator().hasNext()).isInstanceOf(DatabaseClosedException.class);
    }

    @Test
    void shouldPageAnIndexInReverse() {
        List<AttributeValue> descending = orders.queryPaginator(north().scanIndexForward(false).limit(7))
                .itemStream().map(i -> i.get("sk")).toList();

        assertThat(descending).hasSize(ITEMS);
        assertThat(descending.get(0)).isEqualTo(n(ITEMS - 1));
    }
}
