package dev.lacuna.expr;

import static dev.lacuna.AttributeValue.bs;
import static dev.lacuna.AttributeValue.l;
import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.ns;
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

class UpdateApplyTest {
    private static final String INCORRECT_TYPE = "An operand in the update expression has an incorrect data type";
    private static final String INVALID_PATH = "The document path provided in the update expression is invalid for update";
    private static final String MISSING = "The provided expression refers to an attribute that does not exist in the item";

    private static Map<String, AttributeValue> apply(String expression, Map<String, AttributeValue> item, Object... values) {
        return update(expression, values).apply(item);
    }

    private static UpdateExpression update(String expression, Object... values) {
        Map<String, AttributeValue> map = new HashMap<>();
        for (int i = 0; i < values.length; i += 2) {
            map.put((String) values[i], (AttributeValue) values[i + 1]);
        }
        Placeholders placeholders = Placeholders.of(Map.of("#x", "a", "#counter", "counter"), map);
        return UpdateExpression.parse(expression, placeholders);
    }

    // ---- SET ----

    @Test
    void shouldSetNewAndExistingAttributesAndCreateAnItemFromNothing() {
        assertThat(apply("SET a = :v, b = :w", item("a", n(1)), ":v", s("x"), ":w", n(2)))
                .isEqualTo(item("a", s("x"), "b", n(2)));
        assertThat(apply("SET a = :v", Map.of(), ":v", s("x"))).isEqualTo(item("a", s("x")));
    }

    @Test
    void shouldSetInsideExistingMapsButNotCreateMissingParents() {
        Map<String, AttributeValue> item = item("m", map("k", n(1)), "s", s("text"));
        assertThat(apply("SET m.j = :v", item, ":v", n(2))).isEqualTo(item("m", map("k", n(1), "j", n(2)), "s", s("text")));
        assertThatThrownBy(() -> apply("SET m.x.y = :v", item, ":v", n(2))).hasMessage(INVALID_PATH);
        assertThatThrownBy(() -> apply("SET absent.y = :v", item, ":v", n(2))).hasMessage(INVALID_PATH);
        assertThatThrownBy(() -> apply("SET s.y = :v", item, ":v", n(2))).hasMessage(INVALID_PATH);
        assertThatThrownBy(() -> apply("SET m[0] = :v", item, ":v", n(2))).hasMessage(INVALID_PATH);
    }

    @Test
    void shouldReplaceListElementsAndAppendPastTheEndInIndexOrder() {
        Map<String, AttributeValue> item = item("l", l(s("a"), s("b")));
        assertThat(apply("SET l[1] = :v", item, ":v", s("B"))).isEqualTo(item("l", l(s("a"), s("B"))));
        assertThat(apply("SET l[10] = :v", item, ":v", s("z"))).isEqualTo(item("l", l(s("a"), s("b"), s("z"))));
        assertThat(apply("SET l[10] = :x, l[7] = :y", item, ":x", s("x"), ":y", s("y")))
                .isEqualTo(item("l", l(s("a"), s("b"), s("y"), s("x"))));
        assertThatThrownBy(() -> apply("SET l[5].k = :v", item, ":v", s("z"))).hasMessage(INVALID_PATH);
    }

    @Test
    void shouldReadEveryValueFromTheItemBeforeTheUpdate() {
        assertThat(apply("SET a = :v, b = a", item("a", s("old")), ":v", s("new")))
                .isEqualTo(item("a", s("new"), "b", s("old")));
        assertThat(apply("SET a = b, b = a", item("a", n(1), "b", n(2)))).isEqualTo(item("a", n(2), "b", n(1)));
    }

    @Test
    void shouldAddAndSubtractNumbersExactly() {
        assertThat(apply("SET a = a + :n", item("a", n(5)), ":n", n(3))).isEqualTo(item("a", n(8)));
        assertThat(apply("SET a = a - :n", item("a", n(5)), ":n", n(8))).isEqualTo(item("a", n(-3)));
        assertThat(apply("SET a = :x + :y", Map.of(), ":x", AttributeValue.n("0.1"), ":y", AttributeValue.n("0.2")))
                .isEqualTo(item("a", AttributeValue.n("0.3")));
        assertThat(apply("SET a = :x - :y", Map.of(), ":x", n(10), ":y", n(3))).isEqualTo(item("a", n(7)));
        assertThat(apply("SET a = (:x) - :y", Map.of(), ":x", n(10), ":y", n(-3))).isEqualTo(item("a", n(13)));
        String nines = "9".repeat(38);
        assertThat(apply("SET a = a + :one", item("a", AttributeValue.n(nines)), ":one", n(1)))
                .isEqualTo(item("a", AttributeValue.n("1E+38")));
        assertThat(apply("SET a = a + :tiny", item("a", AttributeValue.n("1234567890123456789012345678901234567.8")),
                ":tiny", AttributeValue.n("0.1")))
                .isEqualTo(item("a", AttributeValue.n("1234567890123456789012345678901234567.9")));
    }

    @Test
    void shouldRejectAResultBeyondThirtyEightDigitsOrTheRange() {
        assertThatThrownBy(() -> apply("SET a = a + :one", item("a", AttributeValue.n("1E+38")), ":one", n(1)))
                .isInstanceOf(ValidationException.class)
                .hasMessage("Attempting to store more than 38 significant digits in a Number");
        AttributeValue max = AttributeValue.n("9.9999999999999999999999999999999999999E+125");
        assertThatThrownBy(() -> apply("SET a = a + a", item("a", max))).hasMessageStartingWith("Number overflow.");
    }

    @Test
    void shouldRejectArithmeticOnWhatIsNotANumber() {
        assertThatThrownBy(() -> apply("SET a = a + :n", item("a", s("5")), ":n", n(1))).hasMessage(INCORRECT_TYPE);
        assertThatThrownBy(() -> apply("SET a = absent + :n", item(), ":n", n(1))).hasMessage(MISSING);
        assertThatThrownBy(() -> update("SET a = a + :s", ":s", s("1")))
                .hasMessage("Invalid UpdateExpression: Incorrect operand type for operator or function; operator or"
                        + " function: +, operand type: S");
    }

    @Test
    void shouldSetOnlyIfNotExists() {
        assertThat(apply("SET d = if_not_exists(d, :z)", item(), ":z", n(0))).isEqualTo(item("d", n(0)));
        assertThat(apply("SET d = if_not_exists(d, :z)", item("d", n(7)), ":z", n(0))).isEqualTo(item("d", n(7)));
        assertThat(apply("SET c = if_not_exists(m.k, :z) + :one", item("m", map("k", n(4))), ":z", n(0), ":one", n(1)))
                .isEqualTo(item("m", map("k", n(4)), "c", n(5)));
    }

    @Test
    void shouldAppendLists() {
        Map<String, AttributeValue> item = item("c", l(s("a")));
        assertThat(apply("SET c = list_append(c, :l)", item, ":l", l(s("b"), s("c")))).isEqualTo(item("c", l(s("a"), s("b"), s("c"))));
        assertThat(apply("SET c = list_append(:l, c)", item, ":l", l(s("z")))).isEqualTo(item("c", l(s("z"), s("a"))));
        assertThat(apply("SET c = list_append(if_not_exists(c, :empty), :l)", item(), ":empty", l(), ":l", l(n(1))))
                .isEqualTo(item("c", l(n(1))));
        assertThatThrownBy(() -> apply("SET c = list_append(c, :l)", item(), ":l", l(n(1)))).hasMessage(MISSING);
        assertThatThrownBy(() -> apply("SET c = list_append(c, :l)", item("c", s("x")), ":l", l(n(1))))
                .hasMessage(INCORRECT_TYPE);
        assertThatThrownBy(() -> update("SET c = list_append(c, :m)", ":m", map("k", n(1))))
                .hasMessage("Invalid UpdateExpression: Incorrect operand type for operator or function; operator or"
                        + " function: list_append, operand type: M");
    }

    // ---- REMOVE ----

    @Test
    void shouldRemoveAttributesAndMapKeysAndIgnoreWhatIsAbsent() {
        Map<String, AttributeValue> item = item("a", n(1), "b", n(2), "m", map("k", n(1), "j", n(2)));
        assertThat(apply("REMOVE a, m.k, absent, m.nope", item)).isEqualTo(item("b", n(2), "m", map("j", n(2))));
    }

    @Test
    void shouldRemoveListElementsShiftingTheRestAsDynamoDbDoes() {
        // the Developer Guide's example: indexes refer to the list before the update
        Map<String, AttributeValue> item = item("RelatedItems",
                l(s("Chisel"), s("Hammer"), s("Nails"), s("Screwdriver"), s("Hacksaw")));
        assertThat(apply("REMOVE RelatedItems[1], RelatedItems[2]", item))
                .isEqualTo(item("RelatedItems", l(s("Chisel"), s("Screwdriver"), s("Hacksaw"))));
        assertThat(apply("REMOVE RelatedItems[2], RelatedItems[1]", item))
                .isEqualTo(item("RelatedItems", l(s("Chisel"), s("Screwdriver"), s("Hacksaw"))));
        assertThat(apply("REMOVE RelatedItems[0]", item))
                .isEqualTo(item("RelatedItems", l(s("Hammer"), s("Nails"), s("Screwdriver"), s("Hacksaw"))));
        assertThat(apply("REMOVE RelatedItems[9]", item)).isEqualTo(item);
        assertThat(apply("REMOVE l[0].k, l[1]", item("l", l(map("k", n(1), "j", n(2)), n(5), n(6)))))
                .isEqualTo(item("l", l(map("j", n(2)), n(6))));
    }

    // ---- ADD ----

    @Test
    void shouldAddToNumbersTreatingAMissingOneAsZero() {
        assertThat(apply("ADD #counter :n", item("#counter", n(0), "counter", n(5)), ":n", n(3)))
                .isEqualTo(item("#counter", n(0), "counter", n(8)));
        assertThat(apply("ADD #counter :n", item(), ":n", n(3))).isEqualTo(item("counter", n(3)));
        assertThat(apply("ADD #counter :n", item("counter", n(5)), ":n", n(-7))).isEqualTo(item("counter", n(-2)));
        assertThat(apply("ADD m.k :n", item("m", map()), ":n", n(1))).isEqualTo(item("m", map("k", n(1))));
        assertThatThrownBy(() -> apply("ADD m.k :n", item(), ":n", n(1))).hasMessage(INVALID_PATH);
    }

    @Test
    void shouldUniteSetsAndCreateMissingOnes() {
        assertThat(apply("ADD tags :t", item("tags", ss("a", "b")), ":t", ss("b", "c"))).isEqualTo(item("tags", ss("a", "b", "c")));
        assertThat(apply("ADD tags :t", item(), ":t", ss("x"))).isEqualTo(item("tags", ss("x")));
        assertThat(apply("ADD ids :t", item("ids", ns("1", "2")), ":t", ns("2.0", "3"))).isEqualTo(item("ids", ns("1", "2", "3")));
        assertThat(apply("ADD bin :t", item("bin", bs(new byte[] {1})), ":t", bs(new byte[] {1}, new byte[] {2})))
                .isEqualTo(item("bin", bs(new byte[] {1}, new byte[] {2})));
    }

    @ParameterizedTest
    @CsvSource({"ADD a :ss, N", "ADD a :n, SS", "ADD a :ns, SS", "ADD a :ss, L"})
    void shouldRejectAddingToAnAttributeOfAnotherType(String expression, String existing) {
        Map<String, AttributeValue> item = item("a", switch (existing) {
            case "N" -> n(1);
            case "SS" -> ss("x");
            default -> l(n(1));
        });
        assertThatThrownBy(() -> apply(expression, item, ":ss", ss("y"), ":n", n(1), ":ns", ns("1")))
                .hasMessage(INCORRECT_TYPE);
    }

    @Test
    void shouldRejectAddAndDeleteValuesOfTypesTheyNeverTake() {
        assertThatThrownBy(() -> update("ADD a :s", ":s", s("x")))
                .hasMessage("Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD,"
                        + " operand type: STRING, typeSet: ALLOWED_FOR_ADD_OPERAND");
        assertThatThrownBy(() -> update("ADD a :l", ":l", l(n(1)))).hasMessageContaining("operator: ADD, operand type: LIST");
        assertThatThrownBy(() -> update("DELETE a :n", ":n", n(1)))
                .hasMessage("Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE,"
                        + " operand type: NUMBER, typeSet: ALLOWED_FOR_DELETE_OPERAND");
    }

    // ---- DELETE ----

    @Test
    void shouldDeleteFromSetsAndRemoveASetThatEmpties() {
        Map<String, AttributeValue> item = item("tags", ss("a", "b", "c"), "ids", ns("1", "2"));
        assertThat(apply("DELETE tags :t", item, ":t", ss("b", "z"))).isEqualTo(item("tags", ss("a", "c"), "ids", ns("1", "2")));
        assertThat(apply("DELETE tags :t", item, ":t", ss("a", "b", "c"))).isEqualTo(item("ids", ns("1", "2")));
        assertThat(apply("DELETE ids :t", item, ":t", ns("2.00"))).isEqualTo(item("tags", ss("a", "b", "c"), "ids", ns("1")));
        assertThat(apply("DELETE absent :t", item, ":t", ss("a"))).isEqualTo(item);
        assertThatThrownBy(() -> apply("DELETE tags :t", item, ":t", ns("1"))).hasMessage(INCORRECT_TYPE);
    }

    @Test
    void shouldShiftListElementsConsistentlyWhenDeleteEmptiesAnElement() {
        Map<String, AttributeValue> item = item("l", l(ss("x"), n(1), n(2)));
        assertThat(apply("DELETE l[0] :t REMOVE l[1]", item, ":t", ss("x"))).isEqualTo(item("l", l(n(2))));
    }

    // ---- paths in one update ----

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "SET a = :v REMOVE a          | Two document paths overlap with each other; must remove or rewrite one of"
                    + " these paths; path one: [a], path two: [a]",
            "SET a = :v, a = :v           | overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]",
            "SET a.b = :v REMOVE a        | path one: [a, b], path two: [a]",
            "REMOVE a[1] SET a[1].b = :v  | path one: [a, [1], b], path two: [a, [1]]",
            "SET #x = :v REMOVE a         | path one: [a], path two: [a]",
            "ADD a :n DELETE a :s         | overlap with each other",
            "SET a[1] = :v REMOVE a.b     | Two document paths conflict with each other; must remove or rewrite one"
                    + " of these paths; path one: [a, [1]], path two: [a, b]"})
    void shouldRejectOverlappingOrConflictingPaths(String expression, String message) {
        assertThatThrownBy(() -> update(expression, ":v", n(1), ":n", n(1), ":s", ss("x")))
                .isInstanceOf(ValidationException.class)
                .hasMessageStartingWith("Invalid UpdateExpression: ")
                .hasMessageContaining(message);
    }

    @Test
    void shouldAllowSiblingPaths() {
        Map<String, AttributeValue> item = item("m", map("a", n(1), "b", n(2)), "l", l(n(1), n(2)));
        assertThat(apply("SET m.a = :v, l[0] = :v REMOVE m.b, l[1]", item, ":v", n(9)))
                .isEqualTo(item("m", map("a", n(9)), "l", l(n(9))));
    }

    @Test
    void shouldReportTheTopLevelAttributesItTouches() {
        UpdateExpression update = update("SET a.b = :v, c = d REMOVE e[1] ADD f :n DELETE g :s, #x.z :s",
                ":v", n(1), ":n", n(1), ":s", ss("x"));
        assertThat(update.touchedAttributes()).containsExactly("a", "c", "e", "f", "g");
    }

    @Test
    void shouldLeaveTheGivenItemUnchanged() {
        Map<String, AttributeValue> item = new HashMap<>(item("a", n(1), "l", l(n(1), n(2))));
        Map<String, AttributeValue> copy = Map.copyOf(item);
        apply("SET a = :v REMOVE l[0] ADD n :v", item, ":v", n(2));
        assertThat(item).isEqualTo(copy);
    }

    @Test
    void shouldApplyTheReadmeExample() {
        Placeholders placeholders = Placeholders.of(Map.of("#counter", "counter"), Map.of(
                ":v", s("v"), ":n", n(2), ":l", l(s("new")), ":z", n(0), ":ss", ss("t2"), ":gone", ss("t1")));
        UpdateExpression update = UpdateExpression.parse(
                "SET a = :v, b = b + :n, c = list_append(c, :l), d = if_not_exists(d, :z) REMOVE x, y[1]"
                        + " ADD #counter :n DELETE tags :gone", placeholders);
        Map<String, AttributeValue> before = item("b", n(1), "c", l(s("old")), "x", s("gone"), "y", l(n(0), n(1), n(2)),
                "tags", ss("t1", "t3"));
        assertThat(update.apply(before)).isEqualTo(item("b", n(3), "c", l(s("old"), s("new")), "y", l(n(0), n(2)),
                "tags", ss("t3"), "a", s("v"), "d", n(0), "counter", n(2)));
        assertThatThrownBy(placeholders::requireAllUsed).hasMessageContaining(":ss");
    }
}
