package dev.lacuna.semantics;

import dev.lacuna.AttributeValue;
import dev.lacuna.ConditionalCheckFailedException;
import dev.lacuna.Database;
import dev.lacuna.DeleteItem;
import dev.lacuna.Item;
import dev.lacuna.PutItem;
import dev.lacuna.ReturnValues;
import dev.lacuna.Table;
import dev.lacuna.UpdateItem;
import dev.lacuna.ValidationException;
import static dev.lacuna.AttributeValue.l;
import static dev.lacuna.AttributeValue.m;
import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.s;
import static dev.lacuna.AttributeValue.ss;
import static dev.lacuna.semantics.SemanticsFixtures.key;
import static dev.lacuna.semantics.SemanticsFixtures.memDb;
import static dev.lacuna.semantics.SemanticsFixtures.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * putItem, updateItem and deleteItem as DynamoDB defines them: conditions, every ReturnValues mode (with
 * the UPDATED_* modes returning only what the update touched, down to nested paths), updates creating
 * absent items, deletes of absent items, and the item reported on a failed condition only when asked.
 */
class SemanticsWriteTest {
    private Database db;
    private Table t;

    @BeforeEach
    void open() {
        db = memDb();
        t = table(db, "Things", AttributeValue.Type.S, null);
    }

    @AfterEach
    void close() {
        db.close();
    }

    private static Item item(String pk, Object... nameValues) {
        Item.Builder b = Item.builder().s("pk", pk);
        for (int i = 0; i < nameValues.length; i += 2) {
            b.put((String) nameValues[i], (AttributeValue) nameValues[i + 1]);
        }
        return b.build();
    }

    private Optional<Item> update(String pk, ReturnValues rv, String expression, Object... values) {
        UpdateItem u = new UpdateItem(key(pk)).update(expression).returnValues(rv);
        for (int i = 0; i < values.length; i += 2) {
            u.value((String) values[i], (AttributeValue) values[i + 1]);
        }
        return t.updateItem(u);
    }

    @Test
    void shouldReplaceTheWholeItemOnPutAndReturnTheOldOneOnlyForAllOld() {
        assertThat(t.putItem(new PutItem(item("a", "x", s("1"))).returnValues(ReturnValues.ALL_OLD))).isEmpty();
        assertThat(t.putItem(new PutItem(item("a", "y", s("2"))))).isEmpty(); // NONE returns nothing
        assertThat(t.putItem(new PutItem(item("a", "z", s("3"))).returnValues(ReturnValues.ALL_OLD)))
                .contains(item("a", "y", s("2")));
        // a put replaces: the attributes of the old item do not survive
        assertThat(t.getItem(key("a"))).contains(item("a", "z", s("3")));
        for (ReturnValues rv : List.of(ReturnValues.ALL_NEW, ReturnValues.UPDATED_OLD, ReturnValues.UPDATED_NEW)) {
            assertThatThrownBy(() -> t.putItem(new PutItem(item("a", "w", s("4"))).returnValues(rv)))
                    .isInstanceOf(ValidationException.class);
        }
        assertThat(t.getItem(key("a"))).contains(item("a", "z", s("3")));
    }

    @Test
    void shouldPutOnlyWhenTheConditionHolds() {
        t.putItem(new PutItem(item("a", "v", n(1))).condition("attribute_not_exists(pk)"));
        assertThatThrownBy(() -> t.putItem(new PutItem(item("a", "v", n(2))).condition("attribute_not_exists(pk)")))
                .isInstanceOf(ConditionalCheckFailedException.class);
        t.putItem(new PutItem(item("a", "v", n(3))).condition("v = :one").value(":one", n(1)));
        assertThatThrownBy(() -> t.putItem(new PutItem(item("a", "v", n(4))).condition("v = :one").value(":one", n(1))))
                .isInstanceOf(ConditionalCheckFailedException.class);
        assertThat(t.getItem(key("a"))).contains(item("a", "v", n(3)));
    }

    @Test
    void shouldDeleteAbsentItemsQuietlyAndReturnTheDeletedItemForAllOld() {
        assertThat(t.deleteItem(new DeleteItem(key("nobody")).returnValues(ReturnValues.ALL_OLD))).isEmpty();
        assertThat(t.getItem(key("nobody"))).isEmpty();
        // a condition on an absent item sees no attributes at all
        assertThatThrownBy(() -> t.deleteItem(new DeleteItem(key("nobody")).condition("attribute_exists(pk)")))
                .isInstanceOf(ConditionalCheckFailedException.class);
        t.putItem(item("a", "v", n(1)));
        assertThatThrownBy(() -> t.deleteItem(new DeleteItem(key("a")).condition("v > :one").value(":one", n(1))))
                .isInstanceOf(ConditionalCheckFailedException.class);
        assertThat(t.getItem(key("a"))).isPresent();
        assertThat(t.deleteItem(new DeleteItem(key("a")).condition("v = :one").value(":one", n(1))
                .returnValues(ReturnValues.ALL_OLD))).contains(item("a", "v", n(1)));
        assertThat(t.getItem(key("a"))).isEmpty();
        for (ReturnValues rv : List.of(ReturnValues.ALL_NEW, ReturnValues.UPDATED_OLD, ReturnValues.UPDATED_NEW)) {
            assertThatThrownBy(() -> t.deleteItem(new DeleteItem(key("a")).returnValues(rv)))
                    .isInstanceOf(ValidationException.class);
        }
    }

    @Test
    void shouldReportTheItemOnAFailedConditionOnlyWhenAsked() {
        Item stored = item("a", "s", s("dog"));
        t.putItem(stored);
        String cond = "s = :v";
        assertThatThrownBy(() -> t.putItem(new PutItem(item("a")).condition(cond).value(":v", s("cat"))
                .returnItemOnConditionFailure(true)))
                .isInstanceOfSatisfying(ConditionalCheckFailedException.class, e -> assertThat(e.item()).contains(stored));
        assertThatThrownBy(() -> t.updateItem(new UpdateItem(key("a")).update("SET s = :v").condition("s <> :v")
                .value(":v", s("dog")).returnItemOnConditionFailure(true)))
                .isInstanceOfSatisfying(ConditionalCheckFailedException.class, e -> assertThat(e.item()).contains(stored));
        assertThatThrownBy(() -> t.deleteItem(new DeleteItem(key("a")).condition(cond).value(":v", s("cat"))
                .returnItemOnConditionFailure(true)))
                .isInstanceOfSatisfying(ConditionalCheckFailedException.class, e -> assertThat(e.item()).contains(stored));
        // not asked: no item
        assertThatThrownBy(() -> t.deleteItem(new DeleteItem(key("a")).condition(cond).value(":v", s("cat"))))
                .isInstanceOfSatisfying(ConditionalCheckFailedException.class, e -> assertThat(e.item()).isEmpty());
        // asked, but there is no item
        assertThatThrownBy(() -> t.putItem(new PutItem(item("b")).condition(cond).value(":v", s("cat"))
                .returnItemOnConditionFailure(true)))
                .isInstanceOfSatisfying(ConditionalCheckFailedException.class, e -> assertThat(e.item()).isEmpty());
        assertThat(t.getItem(key("a"))).contains(stored);
        assertThat(t.getItem(key("b"))).isEmpty();
    }

    @Test
    void shouldCreateAnAbsentItemOnUpdate() {
        assertThat(update("a", ReturnValues.ALL_NEW, "SET v = :v", ":v", n(7))).contains(item("a", "v", n(7)));
        assertThat(t.getItem(key("a"))).contains(item("a", "v", n(7)));
        // ADD starts from zero, and an update with no expression creates the bare key
        update("b", ReturnValues.NONE, "ADD c :one", ":one", n(1));
        assertThat(t.getItem(key("b"))).contains(item("b", "c", n(1)));
        t.updateItem(new UpdateItem(key("c")));
        assertThat(t.getItem(key("c"))).contains(item("c"));
        // unless the condition demands that the item exists
        assertThatThrownBy(() -> t.updateItem(new UpdateItem(key("d")).update("SET v = :v").value(":v", n(1))
                .condition("attribute_exists(pk)"))).isInstanceOf(ConditionalCheckFailedException.class);
        assertThat(t.getItem(key("d"))).isEmpty();
    }

    @Test
    void shouldNotCreateAnAbsentItemWithAnUpdateThatOnlyRemoves() {
        // DynamoDB: an update whose only actions remove something leaves an absent item absent
        assertThat(update("gone", ReturnValues.ALL_NEW, "REMOVE a, b")).isEmpty();
        assertThat(t.getItem(key("gone"))).isEmpty();
        assertThat(update("gone", ReturnValues.ALL_NEW, "DELETE tags :t", ":t", ss("x"))).isEmpty();
        assertThat(t.getItem(key("gone"))).isEmpty();
    }

    @Test
    void shouldReturnWholeItemsForAllOldAndAllNew() {
        t.putItem(item("a", "x", s("hi"), "y", s("dog")));
        assertThat(update("a", ReturnValues.ALL_OLD, "SET y = :v", ":v", s("cat")))
                .contains(item("a", "x", s("hi"), "y", s("dog")));
        assertThat(update("a", ReturnValues.ALL_NEW, "REMOVE y SET z = :v", ":v", n(1)))
                .contains(item("a", "x", s("hi"), "z", n(1)));
        assertThat(update("new", ReturnValues.ALL_OLD, "SET y = :v", ":v", s("cat"))).isEmpty();
        assertThat(update("a", ReturnValues.NONE, "SET y = :v", ":v", s("cat"))).isEmpty();
    }

    @Test
    void shouldReturnOnlyTheTouchedAttributesThatExistedForUpdatedOld() {
        t.putItem(item("a", "x", s("hi"), "y", s("dog")));
        assertThat(update("a", ReturnValues.UPDATED_OLD, "SET y = :v, z = :w", ":v", s("cat"), ":w", s("new")))
                .contains(Item.of(Map.of("y", s("dog"))));
        // writing the same value again is still an update
        assertThat(update("a", ReturnValues.UPDATED_OLD, "SET y = :v", ":v", s("cat")))
                .contains(Item.of(Map.of("y", s("cat"))));
        assertThat(update("a", ReturnValues.UPDATED_OLD, "REMOVE y")).contains(Item.of(Map.of("y", s("cat"))));
        // a new attribute had no old value: nothing to return
        assertThat(update("a", ReturnValues.UPDATED_OLD, "SET y = :v", ":v", s("cat"))).isEmpty();
        assertThat(update("a", ReturnValues.UPDATED_OLD, "ADD c :one, tags :t", ":one", n(1), ":t", ss("p"))).isEmpty();
        assertThat(update("a", ReturnValues.UPDATED_OLD, "ADD c :one DELETE tags :t", ":one", n(1), ":t", ss("p")))
                .contains(Item.of(Map.of("c", n(1), "tags", ss("p"))));
        assertThat(update("new", ReturnValues.UPDATED_OLD, "SET y = :v", ":v", s("cat"))).isEmpty();
    }

    @Test
    void shouldReturnOnlyTheTouchedAttributesAsWrittenForUpdatedNew() {
        t.putItem(item("a", "x", s("hi"), "y", s("dog"), "n", n(1)));
        assertThat(update("a", ReturnValues.UPDATED_NEW, "SET y = :v, z = :w", ":v", s("cat"), ":w", s("new")))
                .contains(Item.of(Map.of("y", s("cat"), "z", s("new"))));
        // a removed attribute has no new value: REMOVE alone returns nothing
        assertThat(update("a", ReturnValues.UPDATED_NEW, "REMOVE y")).isEmpty();
        assertThat(update("a", ReturnValues.UPDATED_NEW, "SET n = n + :one, x = :v REMOVE z", ":one", n(1), ":v", s("yo")))
                .contains(Item.of(Map.of("n", n(2), "x", s("yo"))));
        assertThat(update("a", ReturnValues.UPDATED_NEW, "ADD tags :t", ":t", ss("p", "q")))
                .contains(Item.of(Map.of("tags", ss("p", "q"))));
        assertThat(update("a", ReturnValues.UPDATED_NEW, "DELETE tags :t", ":t", ss("p")))
                .contains(Item.of(Map.of("tags", ss("q"))));
        // deleting the last element removes the set: nothing new to return
        assertThat(update("a", ReturnValues.UPDATED_NEW, "DELETE tags :t", ":t", ss("q"))).isEmpty();
        // on a created item, only the written attributes come back, not the key
        assertThat(update("new", ReturnValues.UPDATED_NEW, "SET v = :v", ":v", n(1)))
                .contains(Item.of(Map.of("v", n(1))));
    }

    @Test
    void shouldReturnOnlyTheUpdatedNestedFragmentForUpdatedOldAndNew() {
        // DynamoDB projects UPDATED_OLD/UPDATED_NEW on the updated paths, not on whole top-level attributes
        t.putItem(item("a", "a", m(Map.of("b", s("dog"), "c", l(n(1), n(2), n(3)))), "d", s("cat")));
        assertThat(update("a", ReturnValues.UPDATED_OLD, "SET a.b = :v", ":v", s("hi")))
                .contains(Item.of(Map.of("a", m(Map.of("b", s("dog"))))));
        assertThat(update("a", ReturnValues.UPDATED_OLD, "SET a.c[1] = :v", ":v", n(7)))
                .contains(Item.of(Map.of("a", m(Map.of("c", l(n(2)))))));
        assertThat(update("a", ReturnValues.UPDATED_NEW, "SET a.b = :v", ":v", s("hello")))
                .contains(Item.of(Map.of("a", m(Map.of("b", s("hello"))))));
        assertThat(update("a", ReturnValues.UPDATED_NEW, "SET a.c[1] = :v, a.b = :w", ":v", n(4), ":w", s("x")))
                .contains(Item.of(Map.of("a", m(Map.of("b", s("x"), "c", l(n(4)))))));
        // a new sub-attribute: nothing old, the fragment new
        assertThat(update("a", ReturnValues.UPDATED_OLD, "SET a.e = :v", ":v", n(8))).isEmpty();
        assertThat(update("a", ReturnValues.UPDATED_NEW, "SET a.f = :v", ":v", n(9)))
                .contains(Item.of(Map.of("a", m(Map.of("f", n(9))))));
        assertThat(t.getItem(key("a"))).contains(item("a", "a",
                m(Map.of("b", s("x"), "c", l(n(1), n(4), n(3)), "e", n(8), "f", n(9))), "d", s("cat")));
    }
}
