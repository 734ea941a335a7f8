package dev.lacuna.expr;

import static dev.lacuna.AttributeValue.b;
import static dev.lacuna.AttributeValue.bool;
import static dev.lacuna.AttributeValue.l;
import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.nul;
import static dev.lacuna.AttributeValue.s;
import static dev.lacuna.AttributeValue.ss;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.ValidationException;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Expression errors worded as DynamoDB words them (its validation messages and their details), and the
 * operand rules behind them: where a function may stand, which operands must differ, which values an operator
 * takes.
 */
class ErrorMessagesAuditTest {
    private static Placeholders values(Object... pairs) {
        Map<String, AttributeValue> map = new HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put((String) pairs[i], (AttributeValue) pairs[i + 1]);
        }
        return Placeholders.of(Map.of(), map);
    }

    private static void assertCondition(String expression, String message, Object... values) {
        assertThatThrownBy(() -> ConditionExpression.parseCondition(expression, values(values)))
                .isInstanceOf(ValidationException.class)
                .hasMessageStartingWith("Invalid ConditionExpression: " + message);
    }

    private static void assertUpdate(String expression, String message, Object... values) {
        assertThatThrownBy(() -> UpdateExpression.parse(expression, values(values)))
                .isInstanceOf(ValidationException.class)
                .hasMessageStartingWith("Invalid UpdateExpression: " + message);
    }

    @Test
    void shouldCountOperatorsInDynamoDbsWords() {
        String many = IntStream.range(0, 151).mapToObj(i -> "a = :v").collect(Collectors.joining(" OR "));
        assertCondition(many, "The expression contains too many operators; operator count: 301 (at char", ":v", n(1));
    }

    @Test
    void shouldCountTheOperandsOfInInDynamoDbsWords() {
        String list = IntStream.range(0, 101).mapToObj(i -> ":v").collect(Collectors.joining(", "));
        assertCondition("a IN (" + list + ")",
                "The IN operator is provided with too many operands; number of operands: 101", ":v", n(1));
        String more = IntStream.range(0, 120).mapToObj(i -> ":v").collect(Collectors.joining(", "));
        assertCondition("a IN (" + more + ")", "The IN operator is provided with too many operands; number of operands: 120",
                ":v", n(1));
    }

    @Test
    void shouldSayAnUpdateFunctionIsNotAllowedInAConditionExpression() {
        assertCondition("if_not_exists(a, :v) = :v", "The function is not allowed in a condition expression;"
                + " function: if_not_exists", ":v", n(1));
        assertThatThrownBy(() -> ConditionExpression.parseFilter("list_append(a, b) = :v", values(":v", l())))
                .hasMessageStartingWith("Invalid FilterExpression: The function is not allowed in a condition expression;"
                        + " function: list_append");
    }

    @Test
    void shouldRefuseSizeStandingAloneAsACondition() {
        String notThisWay = "The function is not allowed to be used this way in an expression; function: size";
        assertCondition("size(a)", notThisWay);
        assertCondition("size(a) AND b = :v", notThisWay, ":v", n(1));
        assertCondition("(size(a))", notThisWay);
        assertCondition("size(a) b", "Syntax error; token: \"b\"");
    }

    @Test
    void shouldRefuseAConditionFunctionAsAnOperandOfAComparison() {
        assertCondition("attribute_exists(a) < :v",
                "The function is not allowed to be used this way in an expression; function: attribute_exists", ":v", n(1));
        assertCondition("contains(a, :v) = :v",
                "The function is not allowed to be used this way in an expression; function: contains", ":v", n(1));
        assertCondition("begins_with(a, :v) BETWEEN :v AND :v",
                "The function is not allowed to be used this way in an expression; function: begins_with", ":v", s("x"));
    }

    @Test
    void shouldSayAListIndexBeyondThirtyTwoBitsIsOutOfRange() {
        assertCondition("a[2147483648] = :v", "List index is not within the allowable range; index: [2147483648]",
                ":v", n(1));
        assertThatCode(() -> ConditionExpression.parseCondition("a[2147483647] = :v", values(":v", n(1))))
                .doesNotThrowAnyException();
    }

    @Test
    void shouldNameTheTypeOfAWrongAddOrDeleteOperandAsDynamoDbDoes() {
        assertUpdate("ADD a :v", "Incorrect operand type for operator or function; operator: ADD, operand type: STRING,"
                + " typeSet: ALLOWED_FOR_ADD_OPERAND", ":v", s("x"));
        assertUpdate("ADD a :v", "Incorrect operand type for operator or function; operator: ADD, operand type: MAP,"
                + " typeSet: ALLOWED_FOR_ADD_OPERAND", ":v", Trees.map());
        assertUpdate("DELETE a :v", "Incorrect operand type for operator or function; operator: DELETE, operand type:"
                + " NUMBER, typeSet: ALLOWED_FOR_DELETE_OPERAND", ":v", n(1));
        assertUpdate("DELETE a :v", "Incorrect operand type for operator or function; operator: DELETE, operand type:"
                + " BOOLEAN, typeSet: ALLOWED_FOR_DELETE_OPERAND", ":v", bool(true));
        assertUpdate("ADD a :v", "Incorrect operand type for operator or function; operator: ADD, operand type: NULL,"
                + " typeSet: ALLOWED_FOR_ADD_OPERAND", ":v", nul());
        assertUpdate("ADD a :v", "Incorrect operand type for operator or function; operator: ADD, operand type: LIST,"
                + " typeSet: ALLOWED_FOR_ADD_OPERAND", ":v", l());
    }

    @Test
    void shouldRefuseBeginsWithOfAValueThatIsNeitherStringNorBinary() {
        assertCondition("begins_with(:n, a)",
                "Incorrect operand type for operator or function; operator or function: begins_with, operand type: N",
                ":n", n(1));
        assertThat(ConditionExpression.parseCondition("begins_with(:s, a)", values(":s", s("abc")))
                .test(Map.of("a", s("ab")))).isTrue();
        assertThatCode(() -> ConditionExpression.parseCondition("begins_with(:b, a)", values(":b", b(new byte[] {1}))))
                .doesNotThrowAnyException();
    }

    @Test
    void shouldRequireTheFirstOperandToDifferFromTheOthers() {
        String distinct = "The first operand must be distinct from the remaining operands for this operator or function;";
        assertCondition("a = a", distinct + " operator: =, first operand: [a]");
        assertCondition("a.b <> a.b", distinct + " operator: <>, first operand: [a, b]");
        assertCondition("a < a", distinct + " operator: <, first operand: [a]");
        assertCondition("a BETWEEN :v AND a", distinct + " operator: BETWEEN, first operand: [a]", ":v", n(1));
        assertCondition("a IN (:v, a)", distinct + " operator: IN, first operand: [a]", ":v", n(1));
        assertCondition("begins_with(a, a)", distinct + " operator: begins_with, first operand: [a]");
        assertCondition("contains(a, a)", distinct + " operator: contains, first operand: [a]");
        assertThatCode(() -> ConditionExpression.parseCondition("a = b AND :v = :v AND size(a) = size(a)",
                values(":v", ss("x")))).doesNotThrowAnyException();
    }
}
