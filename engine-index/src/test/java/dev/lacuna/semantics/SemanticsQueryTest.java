package dev.lacuna.semantics;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.GetItem;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.Page;
import dev.lacuna.Query;
import dev.lacuna.Table;
import dev.lacuna.ValidationException;
import static dev.lacuna.AttributeValue.b;
import static dev.lacuna.AttributeValue.bool;
import static dev.lacuna.AttributeValue.l;
import static dev.lacuna.AttributeValue.m;
import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.s;
import static dev.lacuna.semantics.SemanticsFixtures.allPages;
import static dev.lacuna.semantics.SemanticsFixtures.column;
import static dev.lacuna.semantics.SemanticsFixtures.filler;
import static dev.lacuna.semantics.SemanticsFixtures.items;
import static dev.lacuna.semantics.SemanticsFixtures.memDb;
import static dev.lacuna.semantics.SemanticsFixtures.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.item.ItemSize;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Query as DynamoDB defines it: every key condition on S, N and B sort keys in both directions, sort
 * orders (S by UTF-8 bytes, N by value, B unsigned), filters applied after the limit, projections of nested
 * paths, paging to the end, COUNT, the 1 MB page cap, and comparisons across types being false.
 */
class SemanticsQueryTest {
    /** Sort keys in the order DynamoDB returns them: by numeric value. */
    static final List<AttributeValue> NUMBERS = List.of(n("-1E+10"), n("-100"), n("-2.5"), n("-1"), n("-0.001"),
            n("0"), n("0.001"), n("0.5"), n("1"), n("2"), n("10"), n("100.25"), n("1E+100"));
    /** By unsigned bytes: 0x7F before 0x80, a prefix before its extensions. */
    static final List<AttributeValue> BINARIES = List.of(b(bytes(0x00)), b(bytes(0x00, 0x00)), b(bytes(0x00, 0xFF)),
            b(bytes(0x01)), b(bytes(0x01, 0x00)), b(bytes(0x01, 0xFF)), b(bytes(0x7F)), b(bytes(0x80)),
            b(bytes(0xC0, 0x01)), b(bytes(0xFF)), b(bytes(0xFF, 0x00)), b(bytes(0xFF, 0xFF)));
    /** By UTF-8 bytes: U+FFFF (EF BF BF) before U+1F600 (F0 …), though UTF-16 order would reverse them. */
    static final List<AttributeValue> STRINGS = List.of(s("A"), s("Z"), s("a"), s("ab"), s("abc"), s("abd"), s("ac"),
            s("b"), s("é"), s("\uFFFF"), s("\uD83D\uDE00"));

    private Database db;

    @BeforeEach
    void open() {
        db = memDb();
    }

    @AfterEach
    void close() {
        db.close();
    }

    static byte[] bytes(int... values) {
        byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = (byte) values[i];
        }
        return out;
    }

    /** A table whose partition "p" holds {@code sortKeys} (written in random order), with neighbours "o" and "q". */
    private Table sorted(String name, AttributeValue.Type type, List<AttributeValue> sortKeys) {
        Table t = table(db, name, AttributeValue.Type.S, type);
        List<AttributeValue> shuffled = new ArrayList<>(sortKeys);
        Collections.shuffle(shuffled, new Random(7));
        for (String pk : List.of("o", "p", "q")) {
            for (AttributeValue sk : shuffled) {
                int rank = sortKeys.indexOf(sk);
                t.putItem(Item.builder().s("pk", pk).put("sk", sk).n("rank", rank).bool("even", rank % 2 == 0).build());
            }
        }
        return t;
    }

    private static List<AttributeValue> sks(Page page) {
        return column(page.items(), "sk");
    }

    private static Query onP(String condition) {
        return new Query("pk = :p" + (condition.isEmpty() ? "" : " AND " + condition)).value(":p", s("p"));
    }

    private static <T> List<T> reversed(List<T> values) {
        List<T> out = new ArrayList<>(values);
        Collections.reverse(out);
        return out;
    }

    /** Checks every comparison operator and BETWEEN at every stored value, both directions. */
    private static void checkEveryOperator(Table t, List<AttributeValue> sorted) {
        int size = sorted.size();
        for (int i = 0; i < size; i++) {
            AttributeValue v = sorted.get(i);
            Map<String, List<AttributeValue>> expected = Map.of(
                    "sk = :v", sorted.subList(i, i + 1),
                    "sk < :v", sorted.subList(0, i),
                    "sk <= :v", sorted.subList(0, i + 1),
                    "sk > :v", sorted.subList(i + 1, size),
                    "sk >= :v", sorted.subList(i, size));
            expected.forEach((condition, want) -> {
                assertThat(sks(t.query(onP(condition).value(":v", v)))).as(condition + " at " + v).isEqualTo(want);
                assertThat(sks(t.query(onP(condition).value(":v", v).scanIndexForward(false))))
                        .as(condition + " at " + v + " backwards").isEqualTo(reversed(want));
            });
            for (int j = i; j < size; j++) {
                Query between = onP("sk BETWEEN :lo AND :hi").value(":lo", v).value(":hi", sorted.get(j));
                assertThat(sks(t.query(between))).as("between " + v + " and " + sorted.get(j))
                        .isEqualTo(sorted.subList(i, j + 1));
                assertThat(sks(t.query(between.scanIndexForward(false)))).isEqualTo(reversed(sorted.subList(i, j + 1)));
            }
        }
        assertThat(sks(t.query(onP("")))).isEqualTo(sorted);
        assertThat(sks(t.query(onP("").scanIndexForward(false)))).isEqualTo(reversed(sorted));
    }

    @Test
    void shouldOrderAndSelectNumberSortKeysByValue() {
        Table t = sorted("Numbers", AttributeValue.Type.N, NUMBERS);
        checkEveryOperator(t, NUMBERS);
        // bounds that are not stored values, and numbers written differently but equal
        assertThat(sks(t.query(onP("sk BETWEEN :lo AND :hi").value(":lo", n("-3")).value(":hi", n("0.0010")))))
                .containsExactly(n("-2.5"), n("-1"), n("-0.001"), n("0"), n("0.001"));
        assertThat(sks(t.query(onP("sk > :v").value(":v", n("99.9")).scanIndexForward(false))))
                .containsExactly(n("1E+100"), n("100.25"));
        assertThat(sks(t.query(onP("sk = :v").value(":v", n("1.00E+1"))))).containsExactly(n("10"));
    }

    @Test
    void shouldOrderAndSelectBinarySortKeysUnsigned() {
        Table t = sorted("Binaries", AttributeValue.Type.B, BINARIES);
        checkEveryOperator(t, BINARIES);
        assertThat(sks(t.query(onP("begins_with(sk, :x)").value(":x", b(bytes(0x01))))))
                .containsExactly(b(bytes(0x01)), b(bytes(0x01, 0x00)), b(bytes(0x01, 0xFF)));
        assertThat(sks(t.query(onP("begins_with(sk, :x)").value(":x", b(bytes(0x00))).scanIndexForward(false))))
                .containsExactly(b(bytes(0x00, 0xFF)), b(bytes(0x00, 0x00)), b(bytes(0x00)));
        assertThat(sks(t.query(onP("begins_with(sk, :x)").value(":x", b(bytes(0xFF))))))
                .containsExactly(b(bytes(0xFF)), b(bytes(0xFF, 0x00)), b(bytes(0xFF, 0xFF)));
    }

    @Test
    void shouldOrderAndSelectStringSortKeysByUtf8Bytes() {
        Table t = sorted("Strings", AttributeValue.Type.S, STRINGS);
        checkEveryOperator(t, STRINGS);
        assertThat(sks(t.query(onP("begins_with(sk, :x)").value(":x", s("ab")))))
                .containsExactly(s("ab"), s("abc"), s("abd"));
        assertThat(sks(t.query(onP("begins_with(sk, :x)").value(":x", s("a")).scanIndexForward(false))))
                .containsExactly(s("ac"), s("abd"), s("abc"), s("ab"), s("a"));
        assertThat(sks(t.query(onP("begins_with(sk, :x)").value(":x", s("zz"))))).isEmpty();
    }

    @Test
    void shouldRejectKeyConditionsDynamoDbRejects() {
        Table t = sorted("Numbers", AttributeValue.Type.N, NUMBERS);
        // begins_with applies to S and B only; BETWEEN needs ordered bounds; types must match the schema
        List<Query> invalid = List.of(
                onP("begins_with(sk, :x)").value(":x", n("1")),
                onP("sk BETWEEN :lo AND :hi").value(":lo", n("2")).value(":hi", n("1")),
                onP("sk = :x").value(":x", s("1")),
                new Query("pk = :p").value(":p", n("1")),
                new Query("pk = :p OR sk = :x").value(":p", s("p")).value(":x", n("1")),
                new Query("pk > :p").value(":p", s("p")),
                new Query("sk = :x").value(":x", n("1")),
                onP("sk <> :x").value(":x", n("1")),
                onP("rank = :x").value(":x", n("1")),
                onP("sk > :x AND sk < :y").value(":x", n("1")).value(":y", n("2")),
                onP("attribute_exists(sk)"),
                onP("contains(sk, :x)").value(":x", n("1")),
                onP("sk IN (:x)").value(":x", n("1")));
        for (Query q : invalid) {
            assertThatThrownBy(() -> t.query(q)).as(q.keyCondition()).isInstanceOf(ValidationException.class);
        }
        // a filter may not name a key attribute, COUNT may not project, and a start key must be in the partition
        assertThatThrownBy(() -> t.query(onP("").filter("sk > :x").value(":x", n("1"))))
                .isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> t.query(onP("").count().projection("rank"))).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> t.query(onP("").exclusiveStartKey(Map.of("pk", s("q"), "sk", n("1")))))
                .isInstanceOf(ValidationException.class);
    }

    @Test
    void shouldApplyTheLimitBeforeTheFilter() {
        Table t = sorted("Numbers", AttributeValue.Type.N, NUMBERS);
        // ranks 0..3 are read; of them, the even ones pass the filter
        Page page = t.query(onP("").limit(4).filter("even = :yes").value(":yes", bool(true)));
        assertThat(page.scannedCount()).isEqualTo(4);
        assertThat(page.count()).isEqualTo(2);
        assertThat(column(page.items(), "rank")).containsExactly(n(0), n(2));
        assertThat(page.lastEvaluatedKey()).isEqualTo(Map.of("pk", s("p"), "sk", NUMBERS.get(3)));
        // a filter that matches nothing still returns an empty page that continues
        Page none = t.query(onP("").limit(3).filter("#r > :big").name("#r", "rank").value(":big", n(100)));
        assertThat(none.items()).isEmpty();
        assertThat(none.scannedCount()).isEqualTo(3);
        assertThat(none.lastEvaluatedKey()).isEqualTo(Map.of("pk", s("p"), "sk", NUMBERS.get(2)));
    }

    @Test
    void shouldProjectTopLevelAndNestedPaths() {
        Table t = table(db, "Docs", AttributeValue.Type.S, AttributeValue.Type.S);
        AttributeValue doc = m(Map.of("b", l(s("x"), m(Map.of("c", n(1), "d", n(2)))), "e", n(3)));
        t.putItem(Item.builder().s("pk", "p").s("sk", "1").put("a", doc).s("status", "open").s("f", "g").build());
        Page page = t.query(onP("").projection("a.b[1].c, #s, nothere, a.e").name("#s", "status"));
        assertThat(page.items()).containsExactly(Item.of(Map.of(
                "a", m(Map.of("b", l(m(Map.of("c", n(1)))), "e", n(3))), "status", s("open"))));
        assertThat(t.getItem(new GetItem(Key.of("pk", s("p"), "sk", s("1"))).projection("f, a.b[0]")))
                .contains(Item.of(Map.of("f", s("g"), "a", m(Map.of("b", l(s("x")))))));
        // "status" is a reserved word: unescaped, the projection is invalid
        assertThatThrownBy(() -> t.query(onP("").projection("status"))).isInstanceOf(ValidationException.class);
    }

    @Test
    void shouldPageWithLimitToTheEndInBothDirections() {
        Table t = table(db, "Pages", AttributeValue.Type.S, AttributeValue.Type.S);
        List<AttributeValue> all = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            all.add(s(String.format("k%02d", i)));
            t.putItem(Item.builder().s("pk", "p").put("sk", all.get(i)).build());
        }
        t.putItem(Item.builder().s("pk", "q").s("sk", "k00").build());
        for (boolean forward : List.of(true, false)) {
            List<Page> pages = allPages(start -> t.query(onP("").limit(5).scanIndexForward(forward)
                    .exclusiveStartKey(start)), 20);
            // the fifth page ends at the limit, so it has a last key; only the empty sixth page says "done"
            assertThat(pages).extracting(p -> p.items().size()).containsExactly(5, 5, 5, 5, 5, 0);
            assertThat(pages.get(4).lastEvaluatedKey()).isEqualTo(Map.of("pk", s("p"), "sk", forward
                    ? all.get(24) : all.get(0)));
            assertThat(column(items(pages), "sk")).isEqualTo(forward ? all : reversed(all));
            // 23 items: the last page is short and final
            List<Page> ranged = allPages(start -> t.query(onP("sk >= :lo").value(":lo", s("k02")).limit(5)
                    .scanIndexForward(forward).exclusiveStartKey(start)), 20);
            assertThat(ranged).extracting(p -> p.items().size()).containsExactly(5, 5, 5, 5, 3);
            assertThat(column(items(ranged), "sk")).isEqualTo(forward ? all.subList(2, 25)
                    : reversed(all.subList(2, 25)));
        }
    }

    @Test
    void shouldCountWithoutReturningItems() {
        Table t = sorted("Numbers", AttributeValue.Type.N, NUMBERS);
        Page all = t.query(onP("").count());
        assertThat(all.items()).isEmpty();
        assertThat(all.count()).isEqualTo(NUMBERS.size());
        assertThat(all.scannedCount()).isEqualTo(NUMBERS.size());
        assertThat(all.lastEvaluatedKey()).isNull();
        Page filtered = t.query(onP("sk < :zero").value(":zero", n(0)).filter("#r >= :two").name("#r", "rank")
                .value(":two", n(2)).count());
        assertThat(filtered.items()).isEmpty();
        assertThat(filtered.scannedCount()).isEqualTo(5);
        assertThat(filtered.count()).isEqualTo(3);
        Page limited = t.query(onP("").count().limit(4));
        assertThat(limited.count()).isEqualTo(4);
        assertThat(limited.lastEvaluatedKey()).isNotNull();
    }

    @Test
    void shouldEndAPageAfterOneMegabyteRead() {
        Table t = table(db, "Big", AttributeValue.Type.S, AttributeValue.Type.S);
        int total = 30;
        List<Item> written = new ArrayList<>();
        for (int i = 0; i < total; i++) {
            Item item = Item.builder().s("pk", "big").s("sk", String.format("k%02d", i)).s("data", filler(100_000)).build();
            written.add(item);
            t.putItem(item);
        }
        long mb = 1 << 20;
        for (boolean forward : List.of(true, false)) {
            for (boolean count : List.of(false, true)) {
                Query q = new Query("pk = :p").value(":p", s("big")).scanIndexForward(forward);
                Page first = t.query(count ? q.count() : q);
                assertThat(first.scannedCount()).isLessThan(total);
                assertThat(first.lastEvaluatedKey()).isNotNull();
                List<Item> read = forward ? written.subList(0, first.scannedCount())
                        : reversed(written).subList(0, first.scannedCount());
                long bytes = read.stream().mapToLong(ItemSize::of).sum();
                // it read at least 1 MB, and stopped at the item that reached it
                assertThat(bytes).isGreaterThanOrEqualTo(mb);
                assertThat(bytes - ItemSize.of(read.get(read.size() - 1))).isLessThan(mb);
                assertThat(first.count()).isEqualTo(first.scannedCount());
            }
            List<Page> pages = allPages(start -> t.query(new Query("pk = :p").value(":p", s("big"))
                    .scanIndexForward(forward).exclusiveStartKey(start)), 10);
            assertThat(pages.size()).isGreaterThanOrEqualTo(3);
            assertThat(items(pages)).isEqualTo(forward ? written : reversed(written));
        }
    }

    @Test
    void shouldTreatComparisonsBetweenDifferentTypesAsFalseInFilters() {
        Table t = table(db, "Mixed", AttributeValue.Type.S, AttributeValue.Type.S);
        Map<String, AttributeValue> values = Map.of("n", n(5), "s", s("5"), "b", b(bytes(5)), "bool", bool(true),
                "l", l(n(5)));
        values.forEach((sk, v) -> t.putItem(Item.builder().s("pk", "p").s("sk", sk).put("v", v).build()));
        t.putItem(Item.builder().s("pk", "p").s("sk", "missing").build());
        Map<String, List<String>> expected = Map.of(
                "v < :ten", List.of("n"),
                "v >= :five", List.of("n"),
                "v = :five", List.of("n"),
                "v BETWEEN :five AND :ten", List.of("n"),
                "v IN (:five, :ten)", List.of("n"),
                "v > :fourText", List.of("s"),
                "begins_with(v, :fiveText)", List.of("s"),
                "contains(v, :five)", List.of("l"),
                // "not equal" holds across types and for a missing attribute, as in DynamoDB
                "v <> :five", List.of("b", "bool", "l", "missing", "s"),
                "NOT (v < :ten)", List.of("b", "bool", "l", "missing", "s"));
        expected.forEach((filter, want) -> {
            Query q = onP("").filter(filter);
            for (String placeholder : List.of(":ten", ":five", ":fourText", ":fiveText")) {
                if (filter.matches(".*" + placeholder + "\\b.*")) {
                    q.value(placeholder, switch (placeholder) {
                        case ":ten" -> n(10);
                        case ":five" -> n(5);
                        case ":fourText" -> s("4");
                        default -> s("5");
                    });
                }
            }
            assertThat(column(t.query(q).items(), "sk")).as(filter).isEqualTo(want.stream().map(AttributeValue::s).toList());
        });
    }
}
