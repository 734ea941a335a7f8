package dev.lacuna.expr;

import static dev.lacuna.AttributeValue.n;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.ValidationException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Nesting is bounded only by DynamoDB's own limits, 4 KB per expression and 300 operators and functions: it
 * accepts parentheses, {@code NOT} and {@code if_not_exists} nested far past 32 levels. Whatever the nesting, up
 * to the ~2000 parentheses that fit in 4 KB, the parsers answer with a {@link ValidationException}, never a
 * {@link StackOverflowError}, even on a thread with a small stack.
 */
class DeepNestingTest {
    private static final Map<String, AttributeValue> VALUES = Map.of(":v", n(1));

    private static ConditionExpression condition(String expression) {
        return ConditionExpression.parseCondition(expression, Placeholders.of(Map.of(), VALUES));
    }

    @Test
    void shouldAcceptParenthesesAndNotNestedAHundredAndFiftyDeep() {
        String deep = "NOT (".repeat(150) + "a = :v" + ")".repeat(150);
        assertThat(condition(deep).test(Map.of("a", n(1)))).isTrue();
        assertThat(condition("NOT " + deep).test(Map.of("a", n(1)))).isFalse();
    }

    @Test
    void shouldAcceptParenthesesNestedToTheLeftAHundredAndFortyNineDeep() {
        String deep = "(".repeat(149) + "a = :v" + ") AND attribute_exists(b)".repeat(149);
        assertThat(deep.length()).isLessThan(4096);
        assertThat(condition(deep).test(Map.of("a", n(1), "b", n(2)))).isTrue();
        assertThat(condition(deep).test(Map.of("a", n(1)))).isFalse();
    }

    @Test
    void shouldAcceptIfNotExistsNestedAHundredDeep() {
        String deep = "SET a = " + "if_not_exists(b, ".repeat(100) + ":v" + ")".repeat(100);
        UpdateExpression update = UpdateExpression.parse(deep, Placeholders.of(Map.of(), VALUES));
        assertThat(update.apply(Map.of())).isEqualTo(Map.of("a", n(1)));
    }

    @Test
    void shouldRejectFourKilobytesOfNestingWithoutOverflowingASmallStack() throws InterruptedException {
        List<String> conditions = List.of("(".repeat(4000), "(".repeat(2045) + "a = :v" + ")".repeat(2045),
                "(".repeat(1000) + "a = :v" + ") x".repeat(1000), "NOT ".repeat(1020) + "a = :v",
                "NOT (".repeat(800), "size(".repeat(800), "(a = :v AND ".repeat(400));
        List<String> updates = List.of("SET a = " + "(".repeat(4000), "SET a = " + "if_not_exists(a, ".repeat(240),
                "SET a = " + "list_append(".repeat(340), "SET a = " + "(:v + ".repeat(600));
        List<Throwable> thrown = new ArrayList<>();
        AtomicReference<Throwable> unexpected = new AtomicReference<>();
        Thread small = new Thread(null, () -> {
            try {
                for (String c : conditions) {
                    thrown.add(catchThrowable(() -> ConditionParser.parse(c, ExpressionKind.CONDITION)));
                }
                for (String u : updates) {
                    thrown.add(catchThrowable(() -> UpdateParser.parse(u)));
                }
            } catch (Throwable t) {
                unexpected.set(t);
            }
        }, "small-stack", 512 * 1024);
        small.start();
        small.join();
        assertThat(unexpected.get()).isNull();
        assertThat(thrown).hasSize(conditions.size() + updates.size()).allSatisfy(t -> assertThat(t)
                .isInstanceOf(ValidationException.class));
    }

    private static Throwable catchThrowable(Runnable parse) {
        try {
            parse.run();
            return null;
        } catch (ValidationException | StackOverflowError e) {
            return e;
        }
    }
}
