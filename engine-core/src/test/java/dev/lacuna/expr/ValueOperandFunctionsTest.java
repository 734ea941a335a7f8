package dev.lacuna.expr;

import static dev.lacuna.AttributeValue.b;
import static dev.lacuna.AttributeValue.bool;
import static dev.lacuna.AttributeValue.l;
import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.nul;
import static dev.lacuna.AttributeValue.s;
import static dev.lacuna.AttributeValue.ss;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.ValidationException;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code size} and {@code attribute_type} take a value ({@code :v}) as their first operand as well as a document
 * path: DynamoDB accepts {@code size(:v)} and {@code attribute_type(:v, :t)} and evaluates them on the value. It
 * refuses, before reading any item, {@code size} of a value that has no size (a number, boolean or null).
 */
class ValueOperandFunctionsTest {
    private static ConditionExpression condition(String expression, Object... values) {
        Map<String, AttributeValue> map = new HashMap<>();
        for (int i = 0; i < values.length; i += 2) {
            map.put((String) values[i], (AttributeValue) values[i + 1]);
        }
        return ConditionExpression.parseCondition(expression, Placeholders.of(Map.of(), map));
    }

    @Test
    void shouldTakeTheSizeOfAValue() {
        assertThat(condition("size(:v) = :n", ":v", s("abcd"), ":n", n(4)).test(Map.of())).isTrue();
        assertThat(condition("size(:v) = :n", ":v", b(new byte[] {1, 2}), ":n", n(2)).test(Map.of())).isTrue();
        assertThat(condition("size(:v) = :n", ":v", ss("a", "b", "c"), ":n", n(3)).test(Map.of())).isTrue();
        assertThat(condition("size(:v) > :n", ":v", l(n(1)), ":n", n(1)).test(Map.of())).isFalse();
        assertThat(condition("size(:v) < size(a)", ":v", s("x")).test(Map.of("a", s("xy")))).isTrue();
    }

    @Test
    void shouldRefuseTheSizeOfANumberBooleanOrNullValue() {
        for (AttributeValue sizeless : new AttributeValue[] {n(5), bool(true), nul()}) {
            assertThatThrownBy(() -> condition("size(:v) = :n", ":v", sizeless, ":n", n(1)))
                    .isInstanceOf(ValidationException.class)
                    .hasMessage("Invalid ConditionExpression: Incorrect operand type for operator or function;"
                            + " operator or function: size, operand type: " + sizeless.type());
        }
    }

    @Test
    void shouldTestTheTypeOfAValue() {
        assertThat(condition("attribute_type(:v, :t)", ":v", n(0), ":t", s("N")).test(Map.of())).isTrue();
        assertThat(condition("attribute_type(:v, :t)", ":v", n(0), ":t", s("S")).test(Map.of())).isFalse();
        assertThat(condition("NOT attribute_type(:v, :t)", ":v", l(), ":t", s("M")).test(Map.of())).isTrue();
    }

    @Test
    void shouldStillRequireAPathInAttributeExistsAndNotExists() {
        assertThatThrownBy(() -> condition("attribute_exists(:v)", ":v", n(1)))
                .hasMessageStartingWith("Invalid ConditionExpression: Operator or function requires a document path;"
                        + " operator or function: attribute_exists");
        assertThatThrownBy(() -> condition("attribute_not_exists(:v)", ":v", n(1)))
                .hasMessageContaining("operator or function: attribute_not_exists");
    }
}
