package dev.lacuna.semantics;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DeleteItem;
import dev.lacuna.GetItem;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.KeyAttribute;
import dev.lacuna.Page;
import dev.lacuna.PutItem;
import dev.lacuna.Query;
import dev.lacuna.ResourceNotFoundException;
import dev.lacuna.Scan;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.TransactWrite;
import dev.lacuna.UpdateItem;
import dev.lacuna.ValidationException;
import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.s;
import static dev.lacuna.semantics.SemanticsFixtures.allPages;
import static dev.lacuna.semantics.SemanticsFixtures.filler;
import static dev.lacuna.semantics.SemanticsFixtures.key;
import static dev.lacuna.semantics.SemanticsFixtures.memDb;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.item.ItemSize;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * SEMANTICS.md's limits and validation rules through the item API: each violation is a
 * {@link ValidationException} and writes nothing — item size, key values, numbers, sets, index key types,
 * expression size and complexity, placeholders, reserved words, overlapping paths, transaction size.
 */
class SemanticsValidationTest {
    private Database db;
    private Table t;
    private Item kept;

    @BeforeEach
    void open() {
        db = memDb();
        db.createTable(TableSpec.builder("Items").partitionKey("pk", AttributeValue.Type.S)
                .sortKey("sk", AttributeValue.Type.S)
                .index(IndexSpec.global("ByOwner", KeyAttribute.s("owner"), KeyAttribute.n("rank"))).build());
        t = db.table("Items");
        kept = Item.builder().s("pk", "p").s("sk", "s").n("v", 1).s("name", "x").build();
        t.putItem(kept);
    }

    @AfterEach
    void close() {
        db.close();
    }

    /** {@code write} is refused with a ValidationException, and the table still holds only {@link #kept}. */
    private void refused(ThrowingCallable write) {
        refused(write, "");
    }

    /** As {@link #refused(ThrowingCallable)}, the message naming the reason ({@code because}). */
    private void refused(ThrowingCallable write, String because) {
        assertThatThrownBy(write).isInstanceOf(ValidationException.class).hasMessageContaining(because);
        assertThat(t.scan(new Scan()).items()).containsExactly(kept);
    }

    private static Item.Builder row(String pk, String sk) {
        return Item.builder().s("pk", pk).s("sk", sk);
    }

    @Test
    void shouldAcceptItemsUpToFourHundredKilobytesAndRefuseLarger() {
        long base = ItemSize.of(row("big", "1").s("d", "").build());
        Item exactly = row("big", "1").s("d", filler((int) (ItemSize.MAX_ITEM_BYTES - base))).build();
        assertThat(ItemSize.of(exactly)).isEqualTo(400 * 1024);
        t.putItem(exactly);
        t.deleteItem(key("big", "1"));
        refused(() -> t.putItem(row("big", "2").s("d", filler((int) (ItemSize.MAX_ITEM_BYTES - base + 1))).build()));
        // an update that would grow the item past the limit is refused too
        refused(() -> t.updateItem(new UpdateItem(key("p", "s")).update("SET d = :d")
                .value(":d", s(filler(ItemSize.MAX_ITEM_BYTES)))));
    }

    @Test
    void shouldRefuseEmptyOrOversizedKeyValues() {
        refused(() -> t.putItem(row("", "s2").build()));
        refused(() -> t.putItem(row("p", "").build()));
        // S partition keys up to 2048 UTF-8 bytes, sort keys up to 1024: "é" is two bytes
        refused(() -> t.putItem(row("é".repeat(1024) + "a", "s").build()));
        refused(() -> t.putItem(row("p", "é".repeat(512) + "a").build()));
        refused(() -> t.putItem(Item.builder().s("pk", "p").b("sk", new byte[0]).build()));
        refused(() -> t.putItem(Item.builder().s("pk", "p").build()));
        refused(() -> t.putItem(Item.builder().s("pk", "p").n("sk", 1).build()));
        refused(() -> t.getItem(key("p")));
        refused(() -> t.getItem(Key.of("pk", s("p"), "other", s("s"))));
        Item longest = row("é".repeat(1024), "é".repeat(512)).build();
        t.putItem(longest);
        assertThat(t.getItem(key("é".repeat(1024), "é".repeat(512)))).contains(longest);
    }

    @Test
    void shouldHoldNumbersToThirtyEightDigitsAndDynamoDbsRange() {
        assertThatCode(() -> n("12345678901234567890123456789012345678")).doesNotThrowAnyException();
        assertThatCode(() -> n("1E-130")).doesNotThrowAnyException();
        assertThatCode(() -> n("-9.9999999999999999999999999999999999999E+125")).doesNotThrowAnyException();
        for (String bad : List.of("123456789012345678901234567890123456789", "1E-131", "1E+126", "-1E+126", "abc")) {
            assertThatThrownBy(() -> n(bad)).as(bad).isInstanceOf(ValidationException.class);
        }
        // arithmetic is held to the same range: the update fails and nothing changes
        Item max = row("p", "s").n("v", "9.9999999999999999999999999999999999999E+125").build();
        t.putItem(max);
        kept = max;
        refused(() -> t.updateItem(new UpdateItem(key("p", "s")).update("SET v = v + :x").value(":x", n("1E+125"))));
        refused(() -> t.updateItem(new UpdateItem(key("p", "s")).update("ADD v :x").value(":x", n("1E+125"))));
    }

    @Test
    void shouldRefuseEmptyOrDuplicatedSetsButAllowEmptyStringsOutsideKeys() {
        assertThatThrownBy(AttributeValue::ss).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> AttributeValue.ss("a", "a")).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> AttributeValue.ns("1", "1")).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> AttributeValue.bs(new byte[] {1}, new byte[] {1})).isInstanceOf(ValidationException.class);
        Item empties = row("e", "1").s("str", "").b("bin", new byte[0]).put("list", AttributeValue.l())
                .put("map", AttributeValue.m(Map.of())).build();
        t.putItem(empties);
        assertThat(t.getItem(key("e", "1"))).contains(empties);
    }

    @Test
    void shouldRefuseIndexKeyAttributesOfTheWrongTypeOrEmpty() {
        refused(() -> t.putItem(row("q", "1").s("owner", "ana").s("rank", "first").build()));
        refused(() -> t.putItem(row("q", "1").n("owner", 7).build()));
        refused(() -> t.putItem(row("q", "1").s("owner", "").build()));
        refused(() -> t.updateItem(new UpdateItem(key("p", "s")).update("SET #r = :r").name("#r", "rank")
                .value(":r", s("first"))));
        // absent index keys are fine (the item is simply not in the index)
        t.putItem(row("q", "2").s("owner", "ana").build());
        assertThat(t.getItem(key("q", "2"))).isPresent();
    }

    @Test
    void shouldRefuseExpressionsOverDynamoDbsLimits() {
        // 4 KB per expression string: a long attribute name makes the size the only thing wrong
        String name4096 = "a".repeat(4096 - "attribute_not_exists()".length());
        String name4097 = name4096 + "a";
        assertThat(("attribute_not_exists(" + name4096 + ")").length()).isEqualTo(4096);
        refused(() -> t.updateItem(new UpdateItem(key("p", "s")).update("SET w = :v").value(":v", n(1))
                .condition("attribute_not_exists(" + name4097 + ")")), "size");
        // at most 300 operators: 200 comparisons and 199 ORs are too many
        String manyOperators = "v = :v OR ".repeat(199) + "v = :v";
        refused(() -> t.updateItem(new UpdateItem(key("p", "s")).update("SET w = :v").condition(manyOperators)
                .value(":v", n(1))), "operators");
        // IN takes at most 100 candidates
        String in101 = "v IN (" + String.join(", ", Collections.nCopies(101, ":v")) + ")";
        refused(() -> t.updateItem(new UpdateItem(key("p", "s")).update("SET w = :v").condition(in101)
                .value(":v", n(1))), "");
        // deep nesting is refused (DynamoDB also refuses redundant parentheses), never a stack overflow
        for (String deep : List.of("(".repeat(1000) + "v = :v" + ")".repeat(1000),
                "NOT (".repeat(600) + "v = :v" + ")".repeat(600),
                "v = :v AND (".repeat(300) + "v = :v" + ")".repeat(300))) {
            refused(() -> t.updateItem(new UpdateItem(key("p", "s")).update("SET w = :v").condition(deep)
                    .value(":v", n(1))), "");
        }
        // within the limits, the same shapes are fine
        t.updateItem(new UpdateItem(key("p", "s")).update("SET w = :v").value(":v", n(1))
                .condition("attribute_not_exists(" + name4096 + ")"));
        String in100 = "v IN (" + String.join(", ", Collections.nCopies(100, ":v")) + ")";
        t.updateItem(new UpdateItem(key("p", "s")).update("SET w = :v").condition(in100).value(":v", n(1)));
        String fewOperators = "v = :v OR ".repeat(99) + "v = :v";
        t.updateItem(new UpdateItem(key("p", "s")).update("SET w = :w").condition(fewOperators).value(":v", n(1))
                .value(":w", n(2)));
        String nested = "v = :v AND (".repeat(10) + "v = :v" + ")".repeat(10);
        t.updateItem(new UpdateItem(key("p", "s")).update("SET w = :w").condition(nested).value(":v", n(1))
                .value(":w", n(3)));
        assertThat(t.getItem(key("p", "s")).orElseThrow().get("w")).isEqualTo(n(3));
    }

    @Test
    void shouldRefuseBadPlaceholdersReservedWordsAndOverlappingPaths() {
        List<ThrowingCallable> bad = new ArrayList<>();
        bad.add(() -> t.updateItem(new UpdateItem(key("p", "s")).update("SET v = :v").value(":v", n(2)).value(":unused", n(3))));
        bad.add(() -> t.updateItem(new UpdateItem(key("p", "s")).update("SET v = :missing")));
        bad.add(() -> t.updateItem(new UpdateItem(key("p", "s")).update("SET v = :v").value(":v", n(2)).name("#unused", "x")));
        bad.add(() -> t.updateItem(new UpdateItem(key("p", "s")).update("SET #missing = :v").value(":v", n(2))));
        bad.add(() -> t.updateItem(new UpdateItem(key("p", "s")).update("SET #n = :v").name("#n", "name").value(":v", n(2))
                .condition("name = :x").value(":x", s("x"))));
        bad.add(() -> t.updateItem(new UpdateItem(key("p", "s")).update("SET v = :v REMOVE v").value(":v", n(2))));
        bad.add(() -> t.updateItem(new UpdateItem(key("p", "s")).update("SET m = :v, m.a = :v").value(":v", n(2))));
        bad.add(() -> t.updateItem(new UpdateItem(key("p", "s")).update("SET sk = :v").value(":v", s("other"))));
        bad.add(() -> t.updateItem(new UpdateItem(key("p", "s")).update("REMOVE pk")));
        bad.add(() -> t.updateItem(new UpdateItem(key("p", "s")).update("SET v = :v").value(":v", n(2))
                .condition("v = ")));
        bad.add(() -> t.putItem(new PutItem(row("p", "s").build()).condition("attribute_exists(pk)").value(":v", n(1))));
        bad.add(() -> t.deleteItem(new DeleteItem(key("p", "s")).condition("size = :v").value(":v", n(1))));
        bad.add(() -> t.getItem(new GetItem(key("p", "s")).projection("v, v")));
        for (ThrowingCallable write : bad) {
            refused(write);
        }
        assertThatThrownBy(() -> db.table("NoSuchTable")).isInstanceOf(ResourceNotFoundException.class);
        assertThatThrownBy(() -> db.putItem("NoSuchTable", new PutItem(kept))).isInstanceOf(ResourceNotFoundException.class);
    }

    @Test
    void shouldRefuseATransactionOverFourMegabytes() {
        List<TransactWrite> writes = new ArrayList<>();
        for (int i = 0; i < 11; i++) {
            writes.add(new TransactWrite("Items", new PutItem(row("big", "k" + i).s("d", filler(390_000)).build())));
        }
        refused(() -> db.transactWriteItems(writes));
        db.transactWriteItems(writes.subList(0, 10));
        // a count is paged by the 1 MB cap like any read
        assertThat(allPages(start -> t.query(new Query("pk = :p").value(":p", s("big")).count().exclusiveStartKey(start)),
                20).stream().mapToInt(Page::count).sum()).isEqualTo(10);
        assertThat(t.getItem(key("p", "s"))).contains(kept);
    }
}
