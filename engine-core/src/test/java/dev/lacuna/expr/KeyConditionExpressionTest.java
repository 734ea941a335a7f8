package dev.lacuna.expr;

import static dev.lacuna.AttributeValue.b;
import static dev.lacuna.AttributeValue.bool;
import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.s;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.ValidationException;
import dev.lacuna.expr.KeyConditionExpression.KeyRange;
import dev.lacuna.expr.KeyTerm.Bound;
import dev.lacuna.expr.KeyTerm.Operator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KeyConditionExpressionTest {
    private static final Map<String, String> NAMES = Map.of("#pk", "pk", "#sk", "sk");
    private static final Map<String, AttributeValue> VALUES = Map.of(
            ":p", s("USER#1"), ":s", s("ORDER#5"), ":a", s("a"), ":b", s("b"), ":n", n(7), ":t", bool(true),
            ":bin", b(new byte[] {1, 2}));

    private static KeyConditionExpression parse(String expression) {
        return KeyConditionExpression.parse(expression, Placeholders.of(NAMES, VALUES));
    }

    private static KeyRange range(String expression) {
        return parse(expression).resolve("pk", "sk");
    }

    @Test
    void shouldParsePartitionKeyEquality() {
        KeyRange range = range("pk = :p");
        assertThat(range.partitionKey()).isEqualTo("pk");
        assertThat(range.partitionValue()).isEqualTo(s("USER#1"));
        assertThat(range.sortKeyCondition()).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "pk = :p AND sk = :s            | EQ",
            "sk = :s AND pk = :p            | EQ",
            "#pk = :p and #sk < :s          | LT",
            "pk = :p AND sk <= :s           | LE",
            "pk = :p AND sk > :s            | GT",
            "pk = :p AND sk >= :s           | GE",
            "(pk = :p) AND (sk >= :s)       | GE",
            "(pk = :p AND sk >= :s)         | GE",
            ":p = pk AND :s < sk            | GT",
            ":s >= #sk AND :p = #pk         | LE",
            "pk = :p AND begins_with(sk, :s) | BEGINS_WITH",
            "begins_with(#sk, :s) AND #pk = :p | BEGINS_WITH"})
    void shouldParseEitherOrderOfPartitionAndSortKeyConditions(String expression, Operator operator) {
        KeyRange range = range(expression);
        assertThat(range.partitionValue()).isEqualTo(s("USER#1"));
        assertThat(range.sortKeyCondition()).contains(new KeyTerm("sk", operator, s("ORDER#5"), null));
    }

    @Test
    void shouldParseBetweenAndExposeItsBounds() {
        KeyTerm term = range("pk = :p AND sk BETWEEN :a AND :b").sortKeyCondition().orElseThrow();
        assertThat(term).isEqualTo(new KeyTerm("sk", Operator.BETWEEN, s("a"), s("b")));
        assertThat(term.lower()).contains(new Bound(s("a"), true));
        assertThat(term.upper()).contains(new Bound(s("b"), true));
    }

    @Test
    void shouldSelectTheLastDayOfOrdersWithTheSeedsRangeCondition() {
        Placeholders placeholders = Placeholders.of(Map.of(), Map.of(
                ":pk", s("CUSTOMER#42"),
                ":from", s("STATUS#OPEN#2024-01-01"),
                ":to", s("STATUS#OPEN#2024-01-31#\uFFFF")));
        KeyConditionExpression expression = KeyConditionExpression.parse("pk = :pk AND sk BETWEEN :from AND :to", placeholders);
        placeholders.requireAllUsed();
        KeyTerm sk = expression.resolve("pk", "sk").sortKeyCondition().orElseThrow();

        assertThat(sk.lower()).contains(new Bound(s("STATUS#OPEN#2024-01-01"), true));
        assertThat(sk.upper()).contains(new Bound(s("STATUS#OPEN#2024-01-31#\uFFFF"), true));
        List<String> keys = List.of("STATUS#OPEN#2023-12-31#o1", "STATUS#OPEN#2024-01-01", "STATUS#OPEN#2024-01-15#o2",
                "STATUS#OPEN#2024-01-31", "STATUS#OPEN#2024-01-31#o3", "STATUS#OPEN#2024-01-31#\u00e9t\u00e9",
                "STATUS#OPEN#2024-02-01#o4", "STATUS#SHIPPED#2024-01-31#o5");
        assertThat(keys.stream().filter(k -> sk.matches(s(k))))
                .containsExactly("STATUS#OPEN#2024-01-01", "STATUS#OPEN#2024-01-15#o2", "STATUS#OPEN#2024-01-31",
                        "STATUS#OPEN#2024-01-31#o3", "STATUS#OPEN#2024-01-31#\u00e9t\u00e9");
        // UTF-8 byte order: a character beyond U+FFFF sorts after U+FFFF, so it falls outside the range
        assertThat(sk.matches(s("STATUS#OPEN#2024-01-31#\uD83D\uDE00"))).isFalse();
    }

    @Test
    void shouldMatchBeginsWithOnStringsAndBinaries() {
        KeyTerm term = range("pk = :p AND begins_with(sk, :s)").sortKeyCondition().orElseThrow();
        assertThat(term.matches(s("ORDER#5"))).isTrue();
        assertThat(term.matches(s("ORDER#55"))).isTrue();
        assertThat(term.matches(s("ORDER#4"))).isFalse();
        assertThat(term.matches(n(5))).isFalse();
        assertThat(term.lower()).contains(new Bound(s("ORDER#5"), true));
        assertThat(term.upper()).isEmpty();
        KeyTerm binary = range("pk = :p AND begins_with(sk, :bin)").sortKeyCondition().orElseThrow();
        assertThat(binary.matches(b(new byte[] {1, 2, 3}))).isTrue();
        assertThat(binary.matches(b(new byte[] {1}))).isFalse();
    }

    @Test
    void shouldOrderNumbersByValueAndBinariesUnsigned() {
        KeyTerm numbers = new KeyTerm("sk", Operator.LT, n(10), null);
        assertThat(numbers.matches(n(9))).isTrue();
        assertThat(numbers.matches(AttributeValue.n("1E+1"))).isFalse();
        assertThat(numbers.matches(s("1"))).isFalse();
        KeyTerm binaries = new KeyTerm("sk", Operator.GT, b(new byte[] {0x7f}), null);
        assertThat(binaries.matches(b(new byte[] {(byte) 0x80}))).isTrue();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "pk = :p OR sk = :s                      | Invalid operator used in KeyConditionExpression: OR",
            "NOT pk = :p                             | Invalid operator used in KeyConditionExpression: NOT",
            "pk IN (:p)                              | Invalid operator used in KeyConditionExpression: IN",
            "pk <> :p                                | Invalid operator used in KeyConditionExpression: <>",
            "pk = :p AND attribute_exists(sk)        | Invalid operator used in KeyConditionExpression: attribute_exists",
            "pk = :p AND contains(sk, :s)            | Invalid operator used in KeyConditionExpression: contains",
            "pk = :p AND size(sk) > :n               | Invalid operator used in KeyConditionExpression: size",
            "pk = :p AND (sk = :s OR sk = :a)        | Invalid operator used in KeyConditionExpression: OR",
            "pk = :p AND sk = :s AND x = :a          | KeyConditionExpressions must only contain one condition per key",
            "pk = :p AND pk = :s                     | KeyConditionExpressions must only contain one condition per key; key: pk",
            "#pk = :p AND pk = :s                    | one condition per key; key: pk",
            "pk.a = :p                               | KeyConditionExpressions cannot have conditions on nested attributes",
            "pk[0] = :p                              | cannot have conditions on nested attributes",
            "pk = sk                                 | found the path sk where the value belongs",
            ":p = :s                                 | found a value (:p) where the key attribute belongs",
            "pk = :p AND ((sk = :s))                 | The expression has redundant parentheses;",
            "pk = :p AND sk BETWEEN :b AND :a        | The BETWEEN operator requires upper bound to be greater than or equal"
                    + " to lower bound; lower bound operand: AttributeValue: {S:b}, upper bound operand: AttributeValue: {S:a}",
            "pk = :p AND sk BETWEEN :a AND :n        | The BETWEEN operator requires same data type for lower and upper bounds",
            "pk = :p AND begins_with(sk, :n)         | Incorrect operand type for operator or function; operator or function:"
                    + " begins_with, operand type: N",
            "pk = :p AND sk =                        | Syntax error; token: \"<EOF>\"",
            "pk = :undefined                         | An expression attribute value used in expression is not defined;"
                    + " attribute value: :undefined",
            "#undefined = :p                         | An expression attribute name used in the document path is not defined;"
                    + " attribute name: #undefined",
            "name = :p                               | Attribute name is a reserved keyword; reserved keyword: name"})
    void shouldRejectWhatIsNotAKeyCondition(String expression, String message) {
        assertThatThrownBy(() -> parse(expression))
                .isInstanceOf(ValidationException.class)
                .hasMessageStartingWith("Invalid KeyConditionExpression: ")
                .hasMessageContaining(message);
    }

    @Test
    void shouldRejectValuesNoKeyCanHave() {
        assertThatThrownBy(() -> parse("pk = :t"))
                .hasMessageContaining("Condition parameter type does not match schema type");
    }

    @Test
    void shouldResolveAgainstTheKeySchema() {
        assertThatThrownBy(() -> range("sk = :s"))
                .hasMessage("Query condition missed key schema element: pk");
        assertThatThrownBy(() -> range("pk > :p"))
                .hasMessageStartingWith("Query key condition not supported");
        assertThatThrownBy(() -> range("pk = :p AND extra = :s"))
                .hasMessage("Query condition missed key schema element: sk");
        assertThatThrownBy(() -> parse("pk = :p AND sk = :s").resolve("pk", null))
                .hasMessageStartingWith("Query key condition not supported");
        // on an index keyed by sk then pk, the same expression reads the other way round
        KeyRange inverted = parse("pk = :p AND sk = :s").resolve("sk", "pk");
        assertThat(inverted.partitionValue()).isEqualTo(s("ORDER#5"));
        assertThat(inverted.sortKeyCondition()).map(KeyTerm::attribute).isEqualTo(Optional.of("pk"));
    }

    @Test
    void shouldMarkItsPlaceholdersUsed() {
        Placeholders placeholders = Placeholders.of(Map.of("#pk", "pk"), Map.of(":p", s("x"), ":extra", s("y")));
        KeyConditionExpression.parse("#pk = :p", placeholders);
        assertThatThrownBy(placeholders::requireAllUsed)
                .hasMessage("Value provided in ExpressionAttributeValues unused in expressions: keys: {:extra}");
    }
}
