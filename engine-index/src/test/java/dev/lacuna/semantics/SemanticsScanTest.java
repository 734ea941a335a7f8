package dev.lacuna.semantics;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.Page;
import dev.lacuna.Scan;
import dev.lacuna.Table;
import dev.lacuna.ValidationException;
import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.s;
import static dev.lacuna.semantics.SemanticsFixtures.allPages;
import static dev.lacuna.semantics.SemanticsFixtures.filler;
import static dev.lacuna.semantics.SemanticsFixtures.items;
import static dev.lacuna.semantics.SemanticsFixtures.memDb;
import static dev.lacuna.semantics.SemanticsFixtures.stringTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.item.ItemSize;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Scan as DynamoDB defines it: pages that together return every item once, parallel segments that are
 * disjoint and complete whatever their number, start keys that continue one segment, filters after the
 * limit, and the 1 MB page cap. The table has the default 4 hash partitions.
 */
class SemanticsScanTest {
    private static final int PKS = 100;

    private Database db;
    private Table t;
    private Set<Map<String, AttributeValue>> all;

    @BeforeEach
    void open() {
        db = memDb();
        t = stringTable(db, "Items");
        assertThat(t.describe().spec().partitions()).isEqualTo(4);
        all = new HashSet<>();
        for (int i = 0; i < PKS; i++) {
            for (String sk : List.of("a", "b")) {
                Item item = Item.builder().s("pk", "P" + i).s("sk", sk).n("i", i).build();
                t.putItem(item);
                all.add(Key.from(item, "pk", "sk").attributes());
            }
        }
    }

    @AfterEach
    void close() {
        db.close();
    }

    private static List<Map<String, AttributeValue>> keys(List<Item> items) {
        return items.stream().map(i -> Key.from(i, "pk", "sk").attributes()).toList();
    }

    @Test
    void shouldReturnEveryItemExactlyOnceAcrossPages() {
        List<Page> pages = allPages(start -> t.scan(new Scan().limit(7).exclusiveStartKey(start)), 100);
        List<Map<String, AttributeValue>> read = keys(items(pages));
        assertThat(read).doesNotHaveDuplicates();
        assertThat(new HashSet<>(read)).isEqualTo(all);
        assertThat(pages.subList(0, pages.size() - 1)).allMatch(p -> p.scannedCount() == 7 && p.hasMore());
        // without a limit, one page holds the whole (small) table and says it is complete
        Page whole = t.scan(new Scan());
        assertThat(whole.count()).isEqualTo(2 * PKS);
        assertThat(whole.lastEvaluatedKey()).isNull();
    }

    @Test
    void shouldSplitParallelScansIntoDisjointCompleteSegments() {
        for (int total : List.of(1, 3, 4, 7, 16, 100)) {
            List<Map<String, AttributeValue>> read = new ArrayList<>();
            for (int segment = 0; segment < total; segment++) {
                int seg = segment;
                // pages of 5 continue each segment from its own last key
                List<Page> pages = allPages(start -> t.scan(new Scan().segment(seg, total).limit(5)
                        .exclusiveStartKey(start)), 200);
                read.addAll(keys(items(pages)));
            }
            assertThat(read).as("segments of " + total).doesNotHaveDuplicates();
            assertThat(new HashSet<>(read)).as("segments of " + total).isEqualTo(all);
        }
    }

    @Test
    void shouldRejectAStartKeyFromAnotherSegmentAndBadSegmentNumbers() {
        Page first = t.scan(new Scan().segment(0, 4).limit(1));
        assertThat(first.lastEvaluatedKey()).isNotNull();
        assertThatThrownBy(() -> t.scan(new Scan().segment(1, 4).exclusiveStartKey(first.lastEvaluatedKey())))
                .isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> new Scan().segment(4, 4)).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> new Scan().segment(-1, 4)).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> new Scan().segment(0, 0)).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> new Scan().segment(0, 1_000_001)).isInstanceOf(ValidationException.class);
        assertThat(t.scan(new Scan().segment(999_999, 1_000_000)).scannedCount()).isLessThanOrEqualTo(2);
    }

    @Test
    void shouldFilterAfterTheLimitProjectAndCount() {
        // unlike Query, a Scan filter may name key attributes
        Page page = t.scan(new Scan().limit(50).filter("sk = :a AND i < :ten").value(":a", s("a")).value(":ten", n(10)));
        assertThat(page.scannedCount()).isEqualTo(50);
        assertThat(page.count()).isEqualTo(page.items().size()).isLessThanOrEqualTo(10);
        assertThat(page.items()).allMatch(i -> i.get("sk").equals(s("a")));
        Page counted = t.scan(new Scan().filter("sk = :a AND i < :ten").value(":a", s("a")).value(":ten", n(10)).count());
        assertThat(counted.items()).isEmpty();
        assertThat(counted.count()).isEqualTo(10);
        assertThat(counted.scannedCount()).isEqualTo(2 * PKS);
        Page projected = t.scan(new Scan().projection("i").limit(3));
        assertThat(projected.items()).allMatch(i -> i.attributes().keySet().equals(Set.of("i")));
        assertThatThrownBy(() -> t.scan(new Scan().count().projection("i"))).isInstanceOf(ValidationException.class);
    }

    @Test
    void shouldEndAPageAfterOneMegabyteRead() {
        Table big = stringTable(db, "Big");
        int total = 30;
        Set<Map<String, AttributeValue>> written = new HashSet<>();
        for (int i = 0; i < total; i++) {
            Item item = Item.builder().s("pk", "B" + i).s("sk", "x").s("data", filler(100_000)).build();
            big.putItem(item);
            written.add(Key.from(item, "pk", "sk").attributes());
        }
        Page first = big.scan(new Scan());
        assertThat(first.scannedCount()).isLessThan(total);
        assertThat(first.lastEvaluatedKey()).isNotNull();
        long bytes = first.items().stream().mapToLong(ItemSize::of).sum();
        long last = ItemSize.of(first.items().get(first.items().size() - 1));
        assertThat(bytes).isGreaterThanOrEqualTo(1 << 20);
        assertThat(bytes - last).isLessThan(1 << 20);
        List<Item> read = items(allPages(start -> big.scan(new Scan().exclusiveStartKey(start)), 10));
        assertThat(keys(read)).doesNotHaveDuplicates();
        assertThat(new HashSet<>(keys(read))).isEqualTo(written);
    }
}
