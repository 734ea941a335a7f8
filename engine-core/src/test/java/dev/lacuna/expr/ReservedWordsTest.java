package dev.lacuna.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ReservedWordsTest {

    @Test
    void shouldHoldDynamoDbsWholeList() {
        assertThat(ReservedWords.size()).isEqualTo(573);
        assertThat(ReservedWords.contains("ABORT")).isTrue();
        assertThat(ReservedWords.contains("ZONE")).isTrue();
        // the published list's own misspellings are reserved too
        assertThat(ReservedWords.contains("FLATTERN")).isTrue();
        assertThat(ReservedWords.contains("INNTER")).isTrue();
        assertThat(ReservedWords.contains("LOGED")).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"name", "Name", "NAME", "status", "data", "date", "size", "count", "key", "value", "type",
            "timestamp", "year", "user", "comment", "order", "connection", "ttl", "uuid"})
    void shouldReserveCommonWordsIgnoringCase(String word) {
        assertThat(ReservedWords.contains(word)).isTrue();
        assertThatThrownBy(() -> ProjectionParser.parse("a, " + word))
                .hasMessage("Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: " + word);
    }

    @ParameterizedTest
    @ValueSource(strings = {"pk", "sk", "title", "price", "tags", "customer", "orders", "label", "x_name", "status2"})
    void shouldNotReserveOtherWords(String word) {
        assertThat(ReservedWords.contains(word)).isFalse();
        assertThat(ProjectionParser.parse(word).paths()).hasSize(1);
    }
}
