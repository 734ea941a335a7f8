package dev.lacuna.expr;

import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.s;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.ValidationException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The per-database cache of parsed expressions: the parse is shared, the placeholders bound each time. */
class ParseCacheTest {

    @Test
    void shouldParseAnExpressionOnceAndBindItsPlaceholdersOnEveryUse() {
        ParseCache cache = new ParseCache();
        String update = "SET #c = #c + :one, #s = :s";
        UpdateExpression first = UpdateExpression.parse(update,
                Placeholders.of(Map.of("#c", "count", "#s", "status"), Map.of(":one", n(1), ":s", s("OPEN"))), cache);
        UpdateExpression second = UpdateExpression.parse(update,
                Placeholders.of(Map.of("#c", "hits", "#s", "state"), Map.of(":one", n(5), ":s", s("CLOSED"))), cache);
        assertThat(cache.update(update)).isSameAs(cache.update(update));
        assertThat(cache.size()).isEqualTo(1);
        Map<String, AttributeValue> item = Map.of("count", n(1), "hits", n(10));
        assertThat(first.apply(item)).containsEntry("count", n(2)).containsEntry("status", s("OPEN"));
        assertThat(second.apply(item)).containsEntry("hits", n(15)).containsEntry("state", s("CLOSED"))
                .containsEntry("count", n(1));

        String condition = "#s = :open";
        ConditionExpression c1 = ConditionExpression.parseCondition(condition,
                Placeholders.of(Map.of("#s", "status"), Map.of(":open", s("OPEN"))), cache);
        ConditionExpression c2 = ConditionExpression.parseCondition(condition,
                Placeholders.of(Map.of("#s", "state"), Map.of(":open", s("CLOSED"))), cache);
        assertThat(c1.test(Map.of("status", s("OPEN")))).isTrue();
        assertThat(c2.test(Map.of("status", s("OPEN")))).isFalse();
        assertThat(c2.test(Map.of("state", s("CLOSED")))).isTrue();
        assertThat(cache.size()).isEqualTo(2);
    }

    @Test
    void shouldCheckPlaceholdersOnEveryUseAndKeepNoFailedParse() {
        ParseCache cache = new ParseCache();
        UpdateExpression.parse("SET a = :v", Placeholders.of(Map.of(), Map.of(":v", n(1))), cache);
        assertThatThrownBy(() -> UpdateExpression.parse("SET a = :v", Placeholders.of(Map.of(), Map.of()), cache))
                .isInstanceOf(ValidationException.class).hasMessageContaining(":v");
        assertThatThrownBy(() -> UpdateExpression.parse("SET a = = :v", Placeholders.of(Map.of(), Map.of(":v", n(1))),
                cache)).isInstanceOf(ValidationException.class);
        assertThat(cache.size()).isEqualTo(1);
    }

    @Test
    void shouldStayWithinItsCapacity() {
        ParseCache cache = new ParseCache(8);
        for (int i = 0; i < 100; i++) {
            UpdateExpression.parse("SET a" + i + " = :v", Placeholders.of(Map.of(), Map.of(":v", n(i))), cache);
            assertThat(cache.size()).isLessThanOrEqualTo(8);
        }
    }
}
