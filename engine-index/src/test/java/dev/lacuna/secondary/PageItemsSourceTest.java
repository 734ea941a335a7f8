package dev.lacuna.secondary;

import dev.lacuna.*;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.vfs.MemVfs;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A query page's items, read only after the store moved on (every item overwritten, flushed, overwritten again), still
 * hold what the page read: the bytes a page item makes its values from later are its own, through every kind of read
 * (forward, reverse, local index by fetch and keys only, global index, scan; memtable and tables).
 */
class PageItemsSourceTest {
    @Test
    void pageItemsReadLaterHoldTheirValuesWhateverTheStoreDidSince() {
        Random random = new Random(5);
        try (Database db = Database.open(Path.of("/db"), DatabaseOptions.builder().vfs(new MemVfs()).build())) {
            db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
                    .sortKey("sk", AttributeValue.Type.N).partitions(2)
                    .index(IndexSpec.local("byTitle", KeyAttribute.s("title"))
                            .withProjection(IndexSpec.Projection.KEYS_ONLY))
                    .index(IndexSpec.global("byStatus", KeyAttribute.s("status"), KeyAttribute.n("sk")))
                    .build());
            Table t = db.table("Tickets");
            for (int round = 0; round < 3; round++) {
                Map<Long, Item> put = new HashMap<>();
                for (int i = 0; i < 150; i++) {
                    Item item = item(i, random);
                    put.put((long) i, item);
                    t.putItem(item);
                }
                if (round == 1) {
                    db.flush();
                }
                List<Page> pages = new ArrayList<>();
                Query base = new Query("pk = :p").value(":p", AttributeValue.s("P"));
                pages.add(t.query(base));
                pages.add(t.query(new Query("pk = :p").value(":p", AttributeValue.s("P")).scanIndexForward(false)));
                pages.add(t.query(new Query("pk = :p").value(":p", AttributeValue.s("P")).index("byTitle")
                        .select(Select.ALL_ATTRIBUTES)));
                pages.add(t.query(new Query("#st = :s").name("#st", "status").value(":s", AttributeValue.s("OPEN"))
                        .index("byStatus").consistentRead(false).readYourWrites(java.time.Duration.ofSeconds(30))));
                pages.add(t.query(new Query("pk = :p").value(":p", AttributeValue.s("P")).index("byTitle")));
                pages.add(t.scan(new Scan()));
                // the store moves on: every item overwritten, flushed, overwritten again
                for (int i = 0; i < 150; i++) {
                    t.putItem(item(i, random));
                }
                db.flush();
                for (int i = 0; i < 150; i++) {
                    t.putItem(item(i, random));
                }
                int checked = 0;
                for (Page page : pages) {
                    for (Item got : page.items()) {
                        Item want = put.get(got.getLong("sk"));
                        for (Map.Entry<String, AttributeValue> e : got.attributes().entrySet()) {
                            assertThat(e.getValue()).as(e.getKey()).isEqualTo(want.get(e.getKey()));
                        }
                        checked++;
                    }
                }
                assertThat(checked).isGreaterThan(600);
            }
        }
    }

    private static Item item(int i, Random random) {
        return Item.builder().s("pk", "P").n("sk", i).s("title", "title-" + random.nextInt(1_000_000))
                .s("body", "b".repeat(random.nextInt(200)) + random.nextInt())
                .n("price", BigDecimal.valueOf(random.nextInt(100_000) - 50_000, random.nextInt(4)))
                .s("status", i % 2 == 0 ? "OPEN" : "CLOSED")
                .put("tags", AttributeValue.ss("a" + random.nextInt(9), "z"))
                .n("created", 1_700_000_000_000L + random.nextInt(1_000_000)).build();
    }
}
