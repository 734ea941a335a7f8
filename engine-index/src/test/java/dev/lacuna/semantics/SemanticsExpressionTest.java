package dev.lacuna.semantics;

import dev.lacuna.AttributeValue;
import dev.lacuna.ConditionalCheckFailedException;
import dev.lacuna.Database;
import dev.lacuna.Item;
import dev.lacuna.PutItem;
import dev.lacuna.ReturnValues;
import dev.lacuna.Table;
import dev.lacuna.UpdateItem;
import dev.lacuna.ValidationException;
import static dev.lacuna.AttributeValue.l;
import static dev.lacuna.AttributeValue.m;
import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.ns;
import static dev.lacuna.AttributeValue.s;
import static dev.lacuna.AttributeValue.ss;
import static dev.lacuna.semantics.SemanticsFixtures.key;
import static dev.lacuna.semantics.SemanticsFixtures.memDb;
import static dev.lacuna.semantics.SemanticsFixtures.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The expression language end to end through the item API: every update action and function, every
 * condition operator and function on document paths, operator precedence, and the type errors DynamoDB
 * reports before reading an item (as opposed to comparisons that are merely false).
 */
class SemanticsExpressionTest {
    private static final Map<String, AttributeValue> VALUES = Map.ofEntries(
            Map.entry(":0", n(0)), Map.entry(":1", n(1)), Map.entry(":2", n(2)), Map.entry(":3", n(3)),
            Map.entry(":4", n(4)), Map.entry(":ab", s("ab")), Map.entry(":a", s("a")), Map.entry(":b", s("b")),
            Map.entry(":zz", s("zz")), Map.entry(":N", s("N")), Map.entry(":SS", s("SS")), Map.entry(":L", s("L")),
            Map.entry(":M", s("M")));

    private Database db;
    private Table t;
    private Item doc;

    @BeforeEach
    void open() {
        db = memDb();
        t = table(db, "Docs", AttributeValue.Type.S, null);
        doc = Item.builder().s("pk", "d").n("n", 3).s("s", "ab").put("l", l(n(0), n(1), n(2), n(3)))
                .put("m", m(Map.of("x", m(Map.of("y", n(1)))))).put("ss", ss("a", "b")).put("ns", ns("1", "2")).build();
        t.putItem(doc);
    }

    @AfterEach
    void close() {
        db.close();
    }

    /** Whether {@code condition} holds for the document (a put of the same item under that condition). */
    private boolean holds(String condition) {
        PutItem put = new PutItem(doc).condition(condition);
        VALUES.forEach((k, v) -> {
            if (condition.matches(".*" + k + "\\b.*")) {
                put.value(k, v);
            }
        });
        try {
            t.putItem(put);
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false;
        }
    }

    private Item update(String expression, Object... values) {
        UpdateItem u = new UpdateItem(key("d")).update(expression).returnValues(ReturnValues.ALL_NEW);
        for (int i = 0; i < values.length; i += 2) {
            u.value((String) values[i], (AttributeValue) values[i + 1]);
        }
        return t.updateItem(u).orElseThrow();
    }

    @Test
    void shouldEvaluateEveryConditionOperatorAndFunction() {
        Map<String, Boolean> cases = new LinkedHashMap<>();
        cases.put("n = :3", true);
        cases.put("n <> :3", false);
        cases.put("n < :4 AND n <= :3 AND n > :2 AND n >= :3", true);
        cases.put("n < :3", false);
        cases.put("n BETWEEN :2 AND :4", true);
        cases.put("n BETWEEN :0 AND :2", false);
        cases.put("n IN (:1, :3)", true);
        cases.put("n IN (:1, :2)", false);
        // NOT binds tighter than AND, AND tighter than OR
        cases.put("n = :1 OR n = :3 AND s = :zz", false);
        cases.put("(n = :1 OR n = :3) AND s = :ab", true);
        cases.put("NOT n = :1 AND n = :3", true);
        cases.put("NOT (n = :3 OR n = :1)", false);
        cases.put("attribute_exists(m.x.y) AND attribute_exists(l[3]) AND attribute_exists(ss)", true);
        cases.put("attribute_exists(m.x.q)", false);
        cases.put("attribute_exists(l[4])", false);
        cases.put("attribute_not_exists(m.y) AND attribute_not_exists(nothing)", true);
        cases.put("attribute_type(n, :N) AND attribute_type(ss, :SS) AND attribute_type(l, :L) AND attribute_type(m, :M)",
                true);
        cases.put("attribute_type(m, :L)", false);
        cases.put("begins_with(s, :a)", true);
        cases.put("begins_with(s, :b)", false);
        cases.put("contains(s, :b) AND contains(ss, :a) AND contains(l, :0) AND contains(ns, :2)", true);
        cases.put("contains(ss, :zz)", false);
        cases.put("size(s) = :2 AND size(l) = :4 AND size(m) = :1 AND size(ss) = :2 AND size(m.x) = :1", true);
        cases.put("size(l) > :4", false);
        cases.put("l[1] = :1 AND m.x.y = :1 AND l[0] < l[3]", true);
        cases.put("l[1] = m.x.y AND n > l[2]", true);
        cases.forEach((condition, expected) -> assertThat(holds(condition)).as(condition).isEqualTo(expected));
        assertThat(t.getItem(key("d"))).contains(doc);
    }

    @Test
    void shouldRefuseOrderingAgainstAValueOfATypeWithoutOrder() {
        // a value (not an attribute) of a type that has no order is an error, not a false comparison (DynamoDB)
        assertThatThrownBy(() -> t.putItem(new PutItem(doc).condition("n < :l").value(":l", l(n(1)))))
                .isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> t.putItem(new PutItem(doc).condition(":m >= n").value(":m", m(Map.of("a", n(1))))))
                .isInstanceOf(ValidationException.class);
        // while an attribute of such a type merely makes the comparison false
        assertThat(holds("l < :1")).isFalse();
        assertThat(t.getItem(key("d"))).contains(doc);
    }

    @Test
    void shouldRefuseOperandsOfTheWrongTypeGivenAsValues() {
        assertThatThrownBy(() -> t.putItem(new PutItem(doc).condition("begins_with(s, :n)").value(":n", n(1))))
                .isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> t.putItem(new PutItem(doc).condition("attribute_type(n, :t)").value(":t", s("NUMBER"))))
                .isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> t.putItem(new PutItem(doc).condition("n BETWEEN :4 AND :2").values(Map.of(":4", n(4),
                ":2", n(2))))).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> t.putItem(new PutItem(doc).condition("n BETWEEN :1 AND :b").values(Map.of(":1", n(1),
                ":b", s("b"))))).isInstanceOf(ValidationException.class);
        assertThat(t.getItem(key("d"))).contains(doc);
    }

    @Test
    void shouldApplyEveryUpdateActionAndFunction() {
        Item after = update("SET n = n - :two, c = if_not_exists(c, :zero)", ":two", n(2), ":zero", n(0));
        assertThat(after.get("n")).isEqualTo(n(1));
        assertThat(after.get("c")).isEqualTo(n(0));
        assertThat(update("SET c = if_not_exists(c, :nine)", ":nine", n(9)).get("c")).isEqualTo(n(0));
        assertThat(update("SET l = list_append(:front, l)", ":front", l(s("f"))).get("l"))
                .isEqualTo(l(s("f"), n(0), n(1), n(2), n(3)));
        assertThat(update("SET l = list_append(l, :back)", ":back", l(s("b"))).get("l"))
                .isEqualTo(l(s("f"), n(0), n(1), n(2), n(3), s("b")));
        // REMOVE of list elements names the old indexes; SET past the end appends
        assertThat(update("REMOVE l[1], l[2]").get("l")).isEqualTo(l(s("f"), n(2), n(3), s("b")));
        assertThat(update("SET l[10] = :v", ":v", s("end")).get("l")).isEqualTo(l(s("f"), n(2), n(3), s("b"), s("end")));
        assertThat(update("SET m.x.z = :v, l[0] = :w", ":v", n(7), ":w", s("g")).get("m"))
                .isEqualTo(m(Map.of("x", m(Map.of("y", n(1), "z", n(7))))));
        after = update("ADD ss :c, ns :three, n :one", ":c", ss("c"), ":three", ns("3"), ":one", n(1));
        assertThat(after.get("ss")).isEqualTo(ss("a", "b", "c"));
        assertThat(update("DELETE ss :a", ":a", ss("a", "zz")).get("ss")).isEqualTo(ss("b", "c"));
        assertThat(after.get("ns")).isEqualTo(ns("1", "2", "3"));
        assertThat(after.get("n")).isEqualTo(n(2));
        assertThat(t.getItem(key("d")).orElseThrow().get("l")).isEqualTo(l(s("g"), n(2), n(3), s("b"), s("end")));
    }

    @Test
    void shouldRefuseUpdatesThatCannotApplyAndChangeNothing() {
        // every one of these is a ValidationException, whether found before or after reading the item
        String[][] bad = {
                {"SET n = n + :s", ":s"},          // + needs numbers (the value says so up front)
                {"SET x = nothing + :one", ":one"}, // the attribute does not exist
                {"SET s = s + :one", ":one"},       // s is a string
                {"SET m.nope.z = :one", ":one"},    // the parent map does not exist
                {"ADD s :one", ":one"},             // ADD to a string
                {"DELETE ss :one", ":one"},         // DELETE needs a set
                {"SET l = list_append(l, :one)", ":one"}};
        for (String[] u : bad) {
            AttributeValue value = u[1].equals(":s") ? s("x") : n(1);
            assertThatThrownBy(() -> t.updateItem(new UpdateItem(key("d")).update(u[0]).value(u[1], value)))
                    .as(u[0]).isInstanceOf(ValidationException.class);
        }
        assertThat(t.getItem(key("d"))).contains(doc);
    }
}
