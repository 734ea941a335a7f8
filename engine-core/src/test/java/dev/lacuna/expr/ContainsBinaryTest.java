package dev.lacuna.expr;

import static dev.lacuna.AttributeValue.b;
import static dev.lacuna.AttributeValue.bs;
import static dev.lacuna.AttributeValue.l;
import static dev.lacuna.AttributeValue.s;
import static dev.lacuna.expr.Trees.item;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code contains(path, :b)} with a Binary operand, as the DynamoDB API reference describes the CONTAINS
 * comparison: on a Binary attribute it looks for a subsequence of the bytes equal to the operand (as it looks
 * for a substring in a String); on a Binary Set it looks for an element equal to the operand.
 */
class ContainsBinaryTest {
    private static final Map<String, AttributeValue> ITEM = item(
            "bin", b(new byte[] {1, 2, 3, 4}),
            "bins", bs(new byte[] {9, 9}, new byte[] {1, 2}),
            "lst", l(b(new byte[] {5})),
            "str", s("abc"));

    private static boolean contains(String path, byte... operand) {
        Placeholders placeholders = Placeholders.of(Map.of(), Map.of(":b", b(operand)));
        return ConditionExpression.parseCondition("contains(" + path + ", :b)", placeholders).test(ITEM);
    }

    @Test
    void shouldFindAByteSubsequenceOfABinaryAttribute() {
        assertThat(contains("bin", (byte) 2, (byte) 3)).isTrue();
        assertThat(contains("bin", (byte) 1)).isTrue();
        assertThat(contains("bin", (byte) 1, (byte) 2, (byte) 3, (byte) 4)).isTrue();
        assertThat(contains("bin")).as("the empty subsequence").isTrue();
    }

    @Test
    void shouldNotFindBytesThatAreNotContiguousOrTooLong() {
        assertThat(contains("bin", (byte) 1, (byte) 3)).isFalse();
        assertThat(contains("bin", (byte) 3, (byte) 2)).isFalse();
        assertThat(contains("bin", (byte) 1, (byte) 2, (byte) 3, (byte) 4, (byte) 5)).isFalse();
    }

    @Test
    void shouldFindABinaryInABinarySetOrAList() {
        assertThat(contains("bins", (byte) 1, (byte) 2)).isTrue();
        assertThat(contains("bins", (byte) 1)).as("a set element is matched whole, not as a subsequence").isFalse();
        assertThat(contains("lst", (byte) 5)).isTrue();
    }

    @Test
    void shouldNotMatchABinaryOperandAgainstAString() {
        assertThat(contains("str", (byte) 'a')).isFalse();
    }
}
