package dev.lacuna.expr;

import static dev.lacuna.AttributeValue.b;
import static dev.lacuna.AttributeValue.bool;
import static dev.lacuna.AttributeValue.bs;
import static dev.lacuna.AttributeValue.l;
import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.ns;
import static dev.lacuna.AttributeValue.nul;
import static dev.lacuna.AttributeValue.s;
import static dev.lacuna.AttributeValue.ss;
import static dev.lacuna.expr.Trees.item;
import static dev.lacuna.expr.Trees.map;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.ValidationException;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ConditionEvaluationTest {
    private static final Map<String, AttributeValue> ITEM = item(
            "str", s("hello world"),
            "num", n(10),
            "frac", AttributeValue.n("1.50"),
            "bin", b(new byte[] {1, 2, (byte) 0x80}),
            "yes", bool(true),
            "nothing", nul(),
            "strs", ss("red", "green"),
            "nums", ns("1", "2.5"),
            "bins", bs(new byte[] {1}, new byte[] {2}),
            "lst", l(s("a"), n(1), map("k", s("v"))),
            "doc", map("nested", map("deep", n(3)), "arr", l(n(7), n(8))),
            "blank", s(""),
            "unicode", s("\u00e9\uD834\uDD1E"),
            // twins: DynamoDB refuses a path compared with itself ("a = a"), so equal values live under two names
            "bin2", b(new byte[] {1, 2, (byte) 0x80}), "num2", n(10), "yes2", bool(true), "nothing2", nul(),
            "strs2", ss("red", "green"), "lst2", l(s("a"), n(1), map("k", s("v"))), "blank2", s(""),
            "doc2", map("nested", map("deep", n(3)), "arr", l(n(7), n(8))));

    private static final Map<String, AttributeValue> VALUES = values(
            ":hello", s("hello world"), ":he", s("he"), ":wor", s("wor"), ":s9", s("9"),
            ":n0", n(0), ":n1", n(1), ":n2", n(2), ":n3", n(3), ":n5", n(5), ":n9", n(9), ":n10", n(10), ":n11", n(11),
            ":n1_5", AttributeValue.n("1.5"), ":n2_5", AttributeValue.n("2.5"), ":n7", n(7),
            ":b1", b(new byte[] {1}), ":b12", b(new byte[] {1, 2}), ":b7f", b(new byte[] {0x7f}), ":b80", b(new byte[] {(byte) 0x80}),
            ":true", bool(true), ":false", bool(false), ":null", nul(),
            ":red", s("red"), ":blue", s("blue"), ":strs", ss("green", "red"), ":nums", ns("2.50", "1"),
            ":bin2", b(new byte[] {2}), ":bin3", b(new byte[] {3}),
            ":a", s("a"), ":kv", map("k", s("v")), ":list", l(s("a"), n(1), map("k", s("v"))),
            ":listReordered", l(n(1), s("a"), map("k", s("v"))), ":doc", map("arr", l(n(7), n(8)), "nested", map("deep", n(3))),
            ":S", s("S"), ":N", s("N"), ":B", s("B"), ":BOOL", s("BOOL"), ":NULL", s("NULL"), ":SS", s("SS"), ":NS", s("NS"),
            ":BS", s("BS"), ":L", s("L"), ":M", s("M"), ":low", s("\uFFFF"), ":high", s("\uD83D\uDE00"));

    private static Map<String, AttributeValue> values(Object... pairs) {
        Map<String, AttributeValue> values = new HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            values.put((String) pairs[i], (AttributeValue) pairs[i + 1]);
        }
        return values;
    }

    private static boolean test(String expression, Map<String, AttributeValue> item) {
        return ConditionExpression.parseCondition(expression, Placeholders.of(null, VALUES)).test(item);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            // equality, per type; numbers by value, sets in any order, documents deeply
            "str = :hello", "num = :n10", "frac = :n1_5", "bin = bin2", "yes = :true", "nothing = :null",
            "strs = :strs", "nums = :nums", "lst = :list", "doc = :doc", "lst[2] = :kv", "doc.nested.deep = :n3",
            "doc.arr[1] > :n7", ":n1 = :n1",
            // inequality: different values, different types, absent attributes
            "num <> :n9", "num <> :s9", "lst <> :listReordered", "absent <> :n1", "absent <> absent2",
            // ordering: numbers by value, strings by UTF-8 bytes, binaries unsigned
            "num > :n9", "num >= :n10", "num < :n11", "num <= :n10", "frac < :n2", ":n2 > frac",
            ":low < :high", ":b80 > :b7f", "bin > :b12", "str > :he",
            "num BETWEEN :n9 AND :n11", "num BETWEEN :n10 AND :n10", "str BETWEEN :he AND :hello",
            "num IN (:n1, :n10)", "str IN (:a, :hello)", "lst IN (:a, :list)",
            // functions
            "attribute_exists(str)", "attribute_exists(doc.nested.deep)", "attribute_exists(lst[2].k)",
            "attribute_exists(nothing)", "attribute_not_exists(absent)", "attribute_not_exists(doc.nested.nope)",
            "attribute_not_exists(lst[3])", "attribute_not_exists(str.x)",
            "attribute_type(str, :S)", "attribute_type(num, :N)", "attribute_type(bin, :B)", "attribute_type(yes, :BOOL)",
            "attribute_type(nothing, :NULL)", "attribute_type(strs, :SS)", "attribute_type(nums, :NS)",
            "attribute_type(bins, :BS)", "attribute_type(lst, :L)", "attribute_type(doc, :M)",
            "begins_with(str, :he)", "begins_with(str, :hello)", "begins_with(bin, :b12)", "begins_with(blank, blank2)",
            "contains(str, :wor)", "contains(strs, :red)", "contains(nums, :n2_5)", "contains(bins, :bin2)", "contains(bin, :b1)",
            "contains(lst, :a)", "contains(lst, :n1)", "contains(lst, :kv)", "contains(doc.arr, :n7)",
            "size(str) = :n11", "size(unicode) = :n3", "size(bin) = :n3", "size(strs) = :n2", "size(nums) = :n2",
            "size(bins) = :n2", "size(lst) = :n3", "size(doc) = :n2", "size(blank) = :n0", "size(doc.arr) < size(lst)",
            // logic
            "NOT absent = :n1", "num = :n10 AND str = :hello", "num = :n1 OR str = :hello", "NOT (num = :n1 AND yes = :true)"})
    void shouldHold(String expression) {
        assertThat(test(expression, ITEM)).as(expression).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "str = :he", "num = :s9", "num = :n9", "yes = :false", "lst = :listReordered", "strs = :red",
            // absent attributes: every comparison but <> is false
            "absent = :n1", "absent < :n1", "absent <= :n1", "absent > :n1", "absent >= :n1", "absent = absent2",
            "absent BETWEEN :n1 AND :n2", "absent IN (:n1)", "begins_with(absent, :he)", "contains(absent, :a)",
            "size(absent) >= :n0", "num BETWEEN absent AND :n11", "attribute_exists(absent)",
            "attribute_not_exists(str)", "attribute_exists(lst[3])", "attribute_exists(str.x)",
            // different types are unordered: never an error, always false
            "num < :s9", "num > :s9", "str > :n1", "num BETWEEN num2 AND :s9",
            // only N, S and B are ordered, even between equal values: attributes of other types compare false
            // (a value placeholder of such a type is refused when the expression is parsed)
            "yes <= yes2", "yes >= yes2", "nothing <= nothing2", "strs <= strs2", "lst >= lst2", "doc <= doc2",
            "yes BETWEEN yes2 AND yes2",
            "num > :n10", "num < :n10", "num BETWEEN :n11 AND :n11", ":high < :low", "num IN (:n1, :n2)",
            // begins_with: S and B only, of their own type
            "begins_with(num, num2)", "begins_with(strs, :red)", "begins_with(lst, :a)", "begins_with(str, :wor)",
            "begins_with(bin, :b7f)", "begins_with(str, :b1)",
            // contains: a substring, a set element, a lst element
            "contains(str, :n1)", "contains(strs, :blue)", "contains(nums, :red)", "contains(num, :n1)",
            "contains(doc, :kv)", "contains(strs, :strs)", "contains(lst, :listReordered)",
            // size: not for N, BOOL or NULL
            "size(num) >= :n0", "size(yes) >= :n0", "size(nothing) >= :n0", "size(unicode) = :n2",
            "attribute_type(str, :N)", "attribute_type(absent, :S)", "attribute_type(strs, :S)", "attribute_type(lst, :M)",
            "NOT str = :hello", "num = :n1 AND str = :hello", "num = :n1 OR str = :he"})
    void shouldNotHold(String expression) {
        assertThat(test(expression, ITEM)).as(expression).isFalse();
    }

    @Test
    void shouldApplyAndBeforeOr() {
        // the Developer Guide's example: a and b true, c false
        Map<String, AttributeValue> item = item("a", n(1), "b", n(1), "c", n(0));
        assertThat(test("a = :n1 OR b = :n1 AND c = :n1", item)).isTrue();
        assertThat(test("(a = :n1 OR b = :n1) AND c = :n1", item)).isFalse();
    }

    @Test
    void shouldTreatAnAbsentItemAsHavingNoAttributes() {
        assertThat(test("attribute_not_exists(pk)", Map.of())).isTrue();
        assertThat(test("attribute_exists(pk)", Map.of())).isFalse();
        assertThat(test("version <> :n1", Map.of())).isTrue();
        assertThat(test("version = :n1", Map.of())).isFalse();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "contains(str, str)             | The first operand must be distinct from the remaining operands for this"
                    + " operator or function; operator: contains, first operand: [str]",
            "begins_with(str, :n1)          | Incorrect operand type for operator or function; operator or function:"
                    + " begins_with, operand type: N",
            "num BETWEEN :n11 AND :n9       | The BETWEEN operator requires upper bound to be greater than or equal to"
                    + " lower bound; lower bound operand: AttributeValue: {N:11}, upper bound operand: AttributeValue: {N:9}",
            "num BETWEEN :n1 AND :a         | The BETWEEN operator requires same data type for lower and upper bounds",
            "attribute_type(str, :he)       | Invalid attribute type name found; type: he, valid types:"
                    + " { B,NULL,SS,BOOL,L,BS,N,NS,S,M }",
            "attribute_type(str, :n1)       | Incorrect operand type for operator or function; operator or function:"
                    + " attribute_type, operand type: N"})
    void shouldRejectOperandsTheOperatorNeverAccepts(String expression, String message) {
        assertThatThrownBy(() -> test(expression, ITEM))
                .isInstanceOf(ValidationException.class)
                .hasMessageStartingWith("Invalid ConditionExpression: " + message);
    }

    @Test
    void shouldListTheTopLevelAttributesItNames() {
        ConditionExpression condition = ConditionExpression.parseCondition(
                "a.b = :n1 AND (size(c) > :n2 OR attribute_exists(d[1]) OR contains(e, f.g)) AND NOT h IN (:n1, i)",
                Placeholders.of(null, VALUES));
        assertThat(condition.attributeNames()).containsExactly("a", "c", "d", "e", "f", "h", "i");
    }
}
