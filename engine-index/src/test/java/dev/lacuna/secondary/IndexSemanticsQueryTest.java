package dev.lacuna.secondary;

import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.s;
import static dev.lacuna.secondary.IndexSemanticsTest.GSI1;
import static dev.lacuna.secondary.IndexSemanticsTest.WAIT;
import static dev.lacuna.secondary.IndexSemanticsTest.allPages;
import static dev.lacuna.secondary.IndexSemanticsTest.column;
import static dev.lacuna.secondary.IndexSemanticsTest.gsi;
import static dev.lacuna.secondary.IndexSemanticsTest.items;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.KeyAttribute;
import dev.lacuna.Page;
import dev.lacuna.Query;
import dev.lacuna.Scan;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.UpdateItem;
import dev.lacuna.ValidationException;
import dev.lacuna.vfs.MemVfs;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Reading a GSI as a table is read: every key condition on the index sort key in both directions, filters,
 * projection expressions, COUNT, limits and pages to the end (the start key holds the index keys and the
 * table's key), Scan of an index with segments, and the KEYS_ONLY and INCLUDE projections.
 */
class IndexSemanticsQueryTest {
    /** Index sort keys of partition K, unique, chosen so that prefixes and byte order matter. */
    private static final List<String> SORT_KEYS =
            List.of("a", "ab", "abc", "abd", "b", "ba", "bb", "c#1", "c#10", "c#2", "d");

    private Database db;
    private Table t;

    @BeforeEach
    void open() {
        db = Database.open(Path.of("/db"), DatabaseOptions.builder().vfs(new MemVfs()).build());
        db.createTable(TableSpec.builder("Things").partitionKey("pk", AttributeValue.Type.S)
                .sortKey("sk", AttributeValue.Type.S)
                .index(GSI1)
                .index(IndexSpec.global("ByScore", KeyAttribute.s("team"), KeyAttribute.n("score")))
                .index(IndexSpec.global("ByColor", KeyAttribute.s("color"), null))
                .build());
        t = db.table("Things");
        for (int i = 0; i < SORT_KEYS.size(); i++) {
            // base keys run against the index order, so an index read cannot pass by reading the table
            t.putItem(Item.builder().s("pk", "k-" + (SORT_KEYS.size() - i)).s("sk", "x").s("GSI1PK", "K")
                    .s("GSI1SK", SORT_KEYS.get(i)).s("color", i % 3 == 0 ? "red" : "blue").n("n", i).build());
        }
        t.putItem(Item.builder().s("pk", "other").s("sk", "x").s("GSI1PK", "L").s("GSI1SK", "b").build());
        t.putItem(Item.builder().s("pk", "unindexed").s("sk", "x").s("GSI1SK", "b").build());
    }

    @AfterEach
    void close() {
        db.close();
    }

    private List<String> expected(Predicate<String> matches, boolean forward) {
        List<String> out = new ArrayList<>(SORT_KEYS.stream().filter(matches).sorted().toList());
        if (!forward) {
            Collections.reverse(out);
        }
        return out;
    }

    private Query keyCondition(String sortCondition) {
        return new Query("GSI1PK = :p AND " + sortCondition).index("GSI1").value(":p", s("K")).readYourWrites(WAIT);
    }

    @Test
    void shouldApplyEveryKeyConditionOnTheIndexSortKeyInBothDirections() {
        for (boolean forward : List.of(true, false)) {
            assertThat(column(t.query(gsi("K").scanIndexForward(forward)), "GSI1SK"))
                    .containsExactlyElementsOf(expected(x -> true, forward));
            check("GSI1SK = :v", x -> x.equals("abc"), forward, "abc", null);
            check("GSI1SK = :v", x -> false, forward, "ac", null);
            check("GSI1SK < :v", x -> x.compareTo("b") < 0, forward, "b", null);
            check("GSI1SK <= :v", x -> x.compareTo("b") <= 0, forward, "b", null);
            check("GSI1SK > :v", x -> x.compareTo("ab") > 0, forward, "ab", null);
            check("GSI1SK >= :v", x -> x.compareTo("ab") >= 0, forward, "ab", null);
            check("GSI1SK > :v", x -> x.compareTo("aa") > 0, forward, "aa", null); // a bound between two keys
            check("GSI1SK BETWEEN :v AND :w", x -> x.compareTo("ab") >= 0 && x.compareTo("c#1") <= 0, forward, "ab", "c#1");
            check("GSI1SK BETWEEN :v AND :w", x -> x.equals("b"), forward, "b", "b");
            check("begins_with(GSI1SK, :v)", x -> x.startsWith("ab"), forward, "ab", null);
            check("begins_with(GSI1SK, :v)", x -> x.startsWith("c#"), forward, "c#", null); // c#1, c#10, c#2: byte order
            check("begins_with(GSI1SK, :v)", x -> x.startsWith("e"), forward, "e", null);
        }
        // the key condition's terms in the other order, and through name placeholders
        assertThat(column(t.query(new Query("#sk < :v AND #pk = :p").index("GSI1")
                .name("#sk", "GSI1SK").name("#pk", "GSI1PK")
                .value(":v", s("ab")).value(":p", s("K")).readYourWrites(WAIT)), "GSI1SK")).containsExactly("a");
        // the other index partition and the item without GSI1PK are never in K's results
        assertThat(column(t.query(gsi("L")), "pk")).containsExactly("other");
    }

    private void check(String condition, Predicate<String> matches, boolean forward, String v, String w) {
        Query q = keyCondition(condition).value(":v", s(v)).scanIndexForward(forward);
        if (w != null) {
            q.value(":w", s(w));
        }
        assertThat(column(t.query(q), "GSI1SK")).as("%s with :v=%s :w=%s, forward=%s", condition, v, w, forward)
                .containsExactlyElementsOf(expected(matches, forward));
    }

    @Test
    void shouldOrderANumericIndexSortKeyByValue() {
        double[] scores = {10, 2, -1, 2.5, 33, 100};
        for (int i = 0; i < scores.length; i++) {
            t.putItem(Item.builder().s("pk", "s-" + i).s("sk", "x").s("team", "blue")
                    .n("score", BigDecimal.valueOf(scores[i])).build());
        }
        Query byScore = new Query("team = :t").index("ByScore").value(":t", s("blue")).readYourWrites(WAIT);
        assertThat(t.query(byScore).items()).extracting(i -> i.get("score"))
                .containsExactly(n(-1), n(2), n("2.5"), n(10), n(33), n(100));
        Query range = new Query("team = :t AND score BETWEEN :lo AND :hi").index("ByScore").value(":t", s("blue"))
                .value(":lo", n(2)).value(":hi", n(33)).scanIndexForward(false).readYourWrites(WAIT);
        assertThat(t.query(range).items()).extracting(i -> i.get("score")).containsExactly(n(33), n(10), n("2.5"), n(2));
        // begins_with is for strings and binaries only, and the condition's type must be the index key's
        assertThatThrownBy(() -> t.query(new Query("team = :t AND begins_with(score, :p)").index("ByScore")
                .value(":t", s("blue")).value(":p", n(1)))).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> t.query(new Query("team = :t AND score > :p").index("ByScore")
                .value(":t", s("blue")).value(":p", s("1")))).isInstanceOf(ValidationException.class);
    }

    @Test
    void shouldFilterProjectAndCountAnIndexQuery() {
        Page red = t.query(gsi("K").filter("color = :c").value(":c", s("red")));
        assertThat(column(red, "GSI1SK")).containsExactly("a", "abd", "bb", "c#2");
        assertThat(red.count()).isEqualTo(4);
        assertThat(red.scannedCount()).isEqualTo(SORT_KEYS.size()); // the filter runs after the read

        Page projected = t.query(gsi("K").projection("#n, color").name("#n", "n").limit(2));
        assertThat(projected.items()).containsExactly(Item.builder().n("n", 0).s("color", "red").build(),
                Item.builder().n("n", 1).s("color", "blue").build());
        assertThat(projected.lastEvaluatedKey()).isEqualTo(Map.of("pk", s("k-10"), "sk", s("x"), "GSI1PK", s("K"),
                "GSI1SK", s("ab"))); // the start key is whole even when the projection leaves the keys out

        Page count = t.query(gsi("K").count());
        assertThat(count.items()).isEmpty();
        assertThat(count.count()).isEqualTo(SORT_KEYS.size());
        Page countRed = t.query(gsi("K").count().filter("color = :c").value(":c", s("red")));
        assertThat(countRed.count()).isEqualTo(4);
        assertThat(countRed.scannedCount()).isEqualTo(SORT_KEYS.size());
        Page countPage = t.query(keyCondition("begins_with(GSI1SK, :v)").value(":v", s("a")).count().limit(3));
        assertThat(countPage.count()).isEqualTo(3);
        assertThat(countPage.hasMore()).isTrue();

        // the index's own keys belong in the key condition, not the filter
        assertThatThrownBy(() -> t.query(gsi("K").filter("GSI1SK = :c").value(":c", s("a"))))
                .isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> t.query(gsi("K").filter("GSI1PK = :c").value(":c", s("K"))))
                .isInstanceOf(ValidationException.class);
    }

    @Test
    void shouldPageAnIndexToTheEndInBothDirectionsWithTheTableKeyInTheStartKey() {
        // 13 items in groups of three equal index keys: page boundaries fall inside groups
        for (int i = 0; i < 13; i++) {
            t.putItem(Item.builder().s("pk", "p-" + (i * 7 % 13)).s("sk", "y" + (i % 2)).s("GSI1PK", "P")
                    .s("GSI1SK", "g" + i / 3).n("i", i).build());
        }
        for (boolean forward : List.of(true, false)) {
            for (String condition : List.of("GSI1PK = :p", "GSI1PK = :p AND GSI1SK >= :from")) {
                Query whole = query(condition, forward);
                List<Item> all = t.query(whole).items();
                assertThat(all).hasSize(condition.contains(">=") ? 10 : 13);
                for (int limit : List.of(1, 2, 3, 5)) {
                    List<Page> pages = allPages(
                            k -> t.query(query(condition, forward).limit(limit).exclusiveStartKey(k)), 20);
                    assertThat(items(pages)).as("%s, forward=%s, limit %d", condition, forward, limit)
                            .containsExactlyElementsOf(all);
                    for (Page p : pages) {
                        assertThat(p.items()).hasSizeLessThanOrEqualTo(limit);
                        if (p.hasMore()) {
                            Item last = p.items().get(p.items().size() - 1);
                            assertThat(p.lastEvaluatedKey()).isEqualTo(Map.of("pk", last.get("pk"), "sk", last.get("sk"),
                                    "GSI1PK", last.get("GSI1PK"), "GSI1SK", last.get("GSI1SK")));
                        }
                    }
                }
            }
        }
        // a start key without the table's key cannot say where a group of equal index keys was left
        assertThatThrownBy(() -> t.query(gsi("P").exclusiveStartKey(Map.of("GSI1PK", s("P"), "GSI1SK", s("g1")))))
                .isInstanceOf(ValidationException.class);
    }

    private static Query query(String condition, boolean forward) {
        return new Query(condition).index("GSI1").value(":p", s("P")).scanIndexForward(forward).readYourWrites(WAIT)
                .values(condition.contains(":from") ? Map.of(":from", s("g1")) : Map.of());
    }

    @Test
    void shouldQueryAnIndexWithoutASortKey() {
        Query red = new Query("color = :c").index("ByColor").value(":c", s("red")).readYourWrites(WAIT);
        assertThat(column(t.query(red), "GSI1SK")).containsExactlyInAnyOrder("a", "abd", "bb", "c#2");
        List<Page> pages = allPages(k -> t.query(new Query("color = :c").index("ByColor").value(":c", s("red"))
                .readYourWrites(WAIT).limit(3).exclusiveStartKey(k)), 5);
        assertThat(items(pages)).containsExactlyElementsOf(t.query(red).items());
        assertThat(pages.get(0).lastEvaluatedKey()).containsOnlyKeys("color", "pk", "sk");
    }

    @Test
    void shouldScanAnIndexInSegmentsThatTogetherHoldEveryEntryOnce() {
        for (int i = 0; i < 60; i++) {
            t.putItem(Item.builder().s("pk", "scan-" + i).s("sk", "z").s("GSI1PK", "S#" + (i % 17))
                    .s("GSI1SK", "v" + i).build());
            if (i % 4 == 0) {
                t.putItem(Item.builder().s("pk", "scan-" + i).s("sk", "no-index").s("GSI1PK", "S#" + i).build());
            }
        }
        t.query(gsi("S#0")); // waits for the index to apply everything above
        int entries = SORT_KEYS.size() + 1 + 60;
        Set<List<String>> everything = keysOf(t.scan(new Scan().index("GSI1")).items());
        assertThat(everything).hasSize(entries);
        for (int total : List.of(1, 2, 3, 4, 7, 16)) {
            Set<List<String>> union = new HashSet<>();
            for (int segment = 0; segment < total; segment++) {
                int seg = segment;
                List<Item> found = items(allPages(k -> t.scan(new Scan().index("GSI1").segment(seg, total).limit(7)
                        .exclusiveStartKey(k)), 100));
                for (List<String> key : keysOf(found)) {
                    assertThat(union.add(key)).as("%s in two segments of %d", key, total).isTrue();
                }
            }
            assertThat(union).as("segments of %d", total).isEqualTo(everything);
        }
        Page count = t.scan(new Scan().index("GSI1").count().filter("begins_with(pk, :p)").value(":p", s("scan-")));
        assertThat(count.count()).isEqualTo(60);
        assertThat(count.scannedCount()).isEqualTo(entries);
    }

    private static Set<List<String>> keysOf(List<Item> items) {
        Set<List<String>> out = new HashSet<>();
        for (Item i : items) {
            out.add(List.of(str(i, "GSI1PK"), str(i, "GSI1SK"), str(i, "pk"), str(i, "sk")));
        }
        assertThat(out).hasSameSizeAs(items);
        return out;
    }

    private static String str(Item item, String attribute) {
        return ((AttributeValue.S) item.get(attribute)).value();
    }

    @Test
    void shouldReturnExactlyTheKeysFromAKeysOnlyIndexAndTheNamedAttributesFromAnIncludeIndex() {
        db.createTable(TableSpec.builder("Projected").partitionKey("pk", AttributeValue.Type.S)
                .sortKey("sk", AttributeValue.Type.N)
                .index(IndexSpec.global("Keys", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK"))
                        .withProjection(IndexSpec.Projection.KEYS_ONLY))
                .index(IndexSpec.global("Incl", KeyAttribute.s("GSI1PK"), KeyAttribute.n("rank"))
                        .withProjection(IndexSpec.Projection.INCLUDE, "color", "size"))
                .build());
        Table p = db.table("Projected");
        Item full = Item.builder().s("pk", "a").n("sk", 1).s("GSI1PK", "G").s("GSI1SK", "one").n("rank", 5)
                .s("color", "red").n("size", 3).s("secret", "not projected").put("tags", AttributeValue.ss("x")).build();
        Item partial = Item.builder().s("pk", "b").n("sk", 2).s("GSI1PK", "G").s("GSI1SK", "two").n("rank", 7)
                .s("color", "blue").build();
        p.putItem(full);
        p.putItem(partial);

        Query keys = new Query("GSI1PK = :g").index("Keys").value(":g", s("G")).readYourWrites(WAIT);
        assertThat(p.query(keys).items()).containsExactly(
                Item.builder().s("pk", "a").n("sk", 1).s("GSI1PK", "G").s("GSI1SK", "one").build(),
                Item.builder().s("pk", "b").n("sk", 2).s("GSI1PK", "G").s("GSI1SK", "two").build());
        Query incl = new Query("GSI1PK = :g").index("Incl").value(":g", s("G")).readYourWrites(WAIT);
        assertThat(p.query(incl).items()).containsExactly(
                Item.builder().s("pk", "a").n("sk", 1).s("GSI1PK", "G").n("rank", 5).s("color", "red").n("size", 3).build(),
                Item.builder().s("pk", "b").n("sk", 2).s("GSI1PK", "G").n("rank", 7).s("color", "blue").build());
        assertThat(p.scan(new Scan().index("Keys")).items()).allSatisfy(i ->
                assertThat(i.attributes()).containsOnlyKeys("pk", "sk", "GSI1PK", "GSI1SK"));

        // a change to a projected attribute reaches the INCLUDE index; the KEYS_ONLY entry has nothing to change
        p.updateItem(new UpdateItem(Key.of("pk", s("b"), "sk", n(2))).update("SET #s = :s, secret = :x")
                .name("#s", "size").value(":s", n(9)).value(":x", s("still hidden")));
        assertThat(p.query(incl).items().get(1))
                .isEqualTo(Item.builder().s("pk", "b").n("sk", 2).s("GSI1PK", "G").n("rank", 7).s("color", "blue")
                        .n("size", 9).build());
        assertThat(p.query(keys).items().get(1).attributes()).containsOnlyKeys("pk", "sk", "GSI1PK", "GSI1SK");
        // the base table still has everything
        assertThat(p.getItem(Key.of("pk", s("a"), "sk", n(1)))).contains(full);
    }
}
