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
    void shouldParseAQuerysKeyConditionAndFilterOnceAndBindThemOnEveryUse() {
        ParseCache cache = new ParseCache();
        String key = "#p = :p AND #s BETWEEN :lo AND :hi";
        KeyConditionExpression k1 = KeyConditionExpression.parse(key, Placeholders.of(Map.of("#p", "pk", "#s", "sk"),
                Map.of(":p", s("A"), ":lo", n(1), ":hi", n(5))), cache);
        KeyConditionExpression k2 = KeyConditionExpression.parse(key, Placeholders.of(Map.of("#p", "GSI1PK", "#s", "at"),
                Map.of(":p", s("B"), ":lo", s("a"), ":hi", s("b"))), cache);
        assertThat(cache.keyCondition(key)).isSameAs(cache.keyCondition(key));
        assertThat(k1.resolve("pk", "sk").partitionValue()).isEqualTo(s("A"));
        assertThat(k1.resolve("pk", "sk").sortKeyCondition().orElseThrow().upperValue()).isEqualTo(n(5));
        assertThat(k2.resolve("GSI1PK", "at").partitionValue()).isEqualTo(s("B"));
        assertThat(k2.resolve("GSI1PK", "at").sortKeyCondition().orElseThrow().value()).isEqualTo(s("a"));
        // bounds in the wrong order are refused on every use, the parse kept or not
        assertThatThrownBy(() -> KeyConditionExpression.parse(key, Placeholders.of(Map.of("#p", "pk", "#s", "sk"),
                Map.of(":p", s("A"), ":lo", n(5), ":hi", n(1))), cache)).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> KeyConditionExpression.parse("pk = :p OR sk = :s",
                Placeholders.of(Map.of(), Map.of(":p", s("A"), ":s", s("B"))), cache))
                .isInstanceOf(ValidationException.class);

        String filter = "#s = :open";
        ConditionExpression f1 = ConditionExpression.parseFilter(filter,
                Placeholders.of(Map.of("#s", "status"), Map.of(":open", s("OPEN"))), cache);
        ConditionExpression f2 = ConditionExpression.parseFilter(filter,
                Placeholders.of(Map.of("#s", "state"), Map.of(":open", s("CLOSED"))), cache);
        assertThat(f1.test(Map.of("status", s("OPEN")))).isTrue();
        assertThat(f2.test(Map.of("status", s("OPEN")))).isFalse();
        assertThat(f2.test(Map.of("state", s("CLOSED")))).isTrue();
        // a filter's errors still say it is a filter, even with the same text kept as a condition
        ConditionExpression.parseCondition("size(a) = :v", Placeholders.of(Map.of(), Map.of(":v", n(1))), cache);
        assertThatThrownBy(() -> ConditionExpression.parseFilter("a = = :v",
                Placeholders.of(Map.of(), Map.of(":v", n(1))), cache)).hasMessageContaining("FilterExpression");
        assertThat(cache.size()).isEqualTo(3);
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
