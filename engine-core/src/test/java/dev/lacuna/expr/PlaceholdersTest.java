package dev.lacuna.expr;

import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.s;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.ValidationException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PlaceholdersTest {

    @Test
    void shouldRejectAnUndefinedName() {
        assertThatThrownBy(() -> ConditionExpression.parseCondition("#x = :v", Placeholders.of(null, Map.of(":v", n(1)))))
                .isInstanceOf(ValidationException.class)
                .hasMessage("Invalid ConditionExpression: An expression attribute name used in the document path is not"
                        + " defined; attribute name: #x");
    }

    @Test
    void shouldRejectAnUndefinedValue() {
        assertThatThrownBy(() -> UpdateExpression.parse("SET a = :missing", Placeholders.none()))
                .hasMessage("Invalid UpdateExpression: An expression attribute value used in expression is not defined;"
                        + " attribute value: :missing");
    }

    @Test
    void shouldRejectUnusedNamesAndValuesListingThem() {
        Placeholders names = Placeholders.of(Map.of("#a", "a", "#c", "c", "#b", "b"), Map.of(":v", n(1)));
        ConditionExpression.parseCondition("#b = :v", names);
        assertThatThrownBy(names::requireAllUsed)
                .hasMessage("Value provided in ExpressionAttributeNames unused in expressions: keys: {#a, #c}");

        Placeholders values = Placeholders.of(Map.of(), Map.of(":v", n(1), ":w", n(2)));
        ProjectionExpression.parse("a", values);
        assertThatThrownBy(values::requireAllUsed)
                .hasMessage("Value provided in ExpressionAttributeValues unused in expressions: keys: {:v, :w}");
    }

    @Test
    void shouldCountUsageAcrossAllExpressionsOfARequest() {
        Placeholders placeholders = Placeholders.of(
                Map.of("#s", "status", "#c", "count", "#p", "payload"),
                Map.of(":open", s("OPEN"), ":one", n(1)));
        ConditionExpression.parseCondition("#s = :open", placeholders);
        UpdateExpression.parse("ADD #c :one", placeholders);
        assertThatThrownBy(placeholders::requireAllUsed).hasMessageContaining("keys: {#p}");
        ProjectionExpression.parse("#p", placeholders);
        assertThatCode(placeholders::requireAllUsed).doesNotThrowAnyException();
    }

    @Test
    void shouldAcceptAbsentMaps() {
        assertThatCode(() -> Placeholders.of(null, null).requireAllUsed()).doesNotThrowAnyException();
        assertThatCode(() -> Placeholders.none().requireAllUsed()).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {"x", "#", "#a-b", "#a b", "##a", ":a", "#ä"})
    void shouldRejectMalformedNameKeys(String key) {
        assertThatThrownBy(() -> Placeholders.of(Map.of(key, "x"), null))
                .isInstanceOf(ValidationException.class)
                .hasMessage("ExpressionAttributeNames contains invalid key: Syntax error; key: \"" + key + "\"");
    }

    @ParameterizedTest
    @ValueSource(strings = {"v", ":", ":a.b", "#a", ": a"})
    void shouldRejectMalformedValueKeys(String key) {
        assertThatThrownBy(() -> Placeholders.of(null, Map.of(key, n(1))))
                .hasMessage("ExpressionAttributeValues contains invalid key: Syntax error; key: \"" + key + "\"");
    }

    @Test
    void shouldRejectKeysOverTheLengthLimit() {
        String ok = "#" + "a".repeat(254);
        assertThatCode(() -> Placeholders.of(Map.of(ok, "x"), null)).doesNotThrowAnyException();
        assertThatThrownBy(() -> Placeholders.of(Map.of(ok + "a", "x"), null))
                .hasMessageStartingWith("ExpressionAttributeNames contains invalid key: The key is longer than 255 bytes");
    }

    @Test
    void shouldRejectEmptyOrMalformedNames() {
        assertThatThrownBy(() -> Placeholders.of(Map.of("#a", ""), null))
                .hasMessage("ExpressionAttributeNames contains invalid value: Empty attribute name for key #a");
        assertThatThrownBy(() -> Placeholders.of(Map.of("#a", "x\uD800"), null))
                .hasMessageContaining("not valid Unicode");
    }

    @Test
    void shouldResolveEveryPlaceholderKind() {
        Map<String, AttributeValue> values = Map.of(":v", s("x"));
        Placeholders placeholders = Placeholders.of(Map.of("#n", "name"), values);
        ConditionExpression condition = ConditionExpression.parseFilter("#n = :v", placeholders);
        placeholders.requireAllUsed();
        org.assertj.core.api.Assertions.assertThat(condition.test(Map.of("name", s("x")))).isTrue();
        org.assertj.core.api.Assertions.assertThat(condition.attributeNames()).containsExactly("name");
    }
}
