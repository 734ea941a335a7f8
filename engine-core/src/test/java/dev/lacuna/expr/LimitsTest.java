package dev.lacuna.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.ValidationException;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class LimitsTest {

    private static String repeatJoined(String part, String separator, int times) {
        return IntStream.range(0, times).mapToObj(i -> part).collect(Collectors.joining(separator));
    }

    /** {@code n} SET actions of one addition each, on distinct attributes: {@code n} operators. */
    private static String repeatedSets(int n) {
        return IntStream.range(0, n).mapToObj(i -> "a" + i + "=:v+:v").collect(Collectors.joining(","));
    }

    @Test
    void shouldAcceptFourKilobytesAndRejectOneByteMore() {
        assertThatCode(() -> ProjectionParser.parse("a" + " ".repeat(4095))).doesNotThrowAnyException();
        assertThatThrownBy(() -> ProjectionParser.parse("a" + " ".repeat(4096)))
                .isInstanceOf(ValidationException.class)
                .hasMessage("Invalid ProjectionExpression: Expression size has exceeded the maximum allowed size;");
        assertThatThrownBy(() -> ConditionParser.parse("a = :v" + " ".repeat(4091), ExpressionKind.KEY_CONDITION))
                .hasMessage("Invalid KeyConditionExpression: Expression size has exceeded the maximum allowed size;"
                        + " expression size: 4097");
    }

    @Test
    void shouldMeasureTheSizeInUtf8Bytes() {
        assertThatThrownBy(() -> UpdateParser.parse("SET a = :v " + "\u00e9".repeat(2043)))
                .hasMessageContaining("Expression size has exceeded the maximum allowed size");
        assertThatThrownBy(() -> UpdateParser.parse("SET a = :v " + "\u00e9".repeat(2042)))
                .hasMessageContaining("Syntax error; token: \"\u00e9\"");
    }

    @Test
    void shouldAllowThreeHundredOperatorsAndNoMore() {
        String twoHundredNinetyNine = repeatJoined("a = :v", " OR ", 150);
        assertThatCode(() -> ConditionParser.parse("NOT " + twoHundredNinetyNine, ExpressionKind.CONDITION))
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> ConditionParser.parse(repeatJoined("a = :v", " OR ", 151), ExpressionKind.FILTER))
                .hasMessageStartingWith("Invalid FilterExpression: The expression contains too many operators;"
                        + " operator count: 301");
        assertThatCode(() -> UpdateParser.parse("SET " + repeatedSets(300))).doesNotThrowAnyException();
        assertThatThrownBy(() -> UpdateParser.parse("SET " + repeatedSets(301)))
                .hasMessageContaining("too many operators; operator count: 301");
        assertThatThrownBy(() -> ConditionParser.parse(repeatJoined("size(a) = :v", " AND ", 101), ExpressionKind.CONDITION))
                .hasMessageContaining("too many operators");
    }

    @Test
    void shouldAllowAHundredInOperandsAndNoMore() {
        assertThatCode(() -> ConditionParser.parse("a IN (" + repeatJoined(":v", ", ", 100) + ")", ExpressionKind.CONDITION))
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> ConditionParser.parse("a IN (" + repeatJoined(":v", ", ", 101) + ")", ExpressionKind.CONDITION))
                .hasMessageStartingWith("Invalid ConditionExpression: The IN operator is provided with too many operands;");
    }

    @Test
    void shouldBoundTheNestingOfNotAndParenthesesOnlyByTheOperatorCount() {
        assertThatCode(() -> ConditionParser.parse("NOT ".repeat(299) + "a = :v", ExpressionKind.CONDITION))
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> ConditionParser.parse("NOT ".repeat(300) + "a = :v", ExpressionKind.CONDITION))
                .hasMessageStartingWith("Invalid ConditionExpression: The expression contains too many operators");
        assertThatCode(() -> ConditionParser.parse("(a = :v AND ".repeat(149) + "a = :v" + ")".repeat(149),
                ExpressionKind.CONDITION)).doesNotThrowAnyException();
        assertThatThrownBy(() -> ConditionParser.parse("(a = :v AND ".repeat(150) + "a = :v" + ")".repeat(150),
                ExpressionKind.CONDITION)).hasMessageContaining("too many operators");
    }

    @Test
    void shouldRejectDeepInputWithoutOverflowingTheStack() {
        for (String deep : new String[] {"(".repeat(4000), "(".repeat(2000) + ")".repeat(2000), "NOT ".repeat(1000),
                "size(".repeat(800), "attribute_exists(".repeat(200)}) {
            assertThatThrownBy(() -> ConditionParser.parse(deep, ExpressionKind.CONDITION))
                    .isInstanceOf(ValidationException.class);
        }
        for (String deep : new String[] {"SET a = " + "(".repeat(4000), "SET a = " + "list_append(".repeat(300),
                "SET a = " + "if_not_exists(a, ".repeat(200), "SET a = " + "(:v + ".repeat(600)}) {
            assertThatThrownBy(() -> UpdateParser.parse(deep)).isInstanceOf(ValidationException.class);
        }
        assertThatThrownBy(() -> KeyConditionParser.parse("(".repeat(100) + "pk = :v" + ")".repeat(100)))
                .hasMessageContaining("redundant parentheses");
    }

    @Test
    void shouldBoundDocumentPathsToThirtyTwoLevels() {
        assertThat(ProjectionParser.parse("a" + ".b".repeat(31)).paths().get(0).elements()).hasSize(32);
        assertThatThrownBy(() -> ProjectionParser.parse("a" + ".b".repeat(32)))
                .hasMessage("Invalid ProjectionExpression: The document path has too many nesting levels; nesting levels:"
                        + " 33 (at char 0)");
        assertThatThrownBy(() -> UpdateParser.parse("REMOVE x, a" + "[0]".repeat(32)))
                .hasMessageContaining("nesting levels: 33");
    }
}
