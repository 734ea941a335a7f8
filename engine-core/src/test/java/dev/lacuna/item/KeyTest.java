package dev.lacuna.item;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.ValidationException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The public {@link Key} type: construction, DynamoDB's key value rules, equality. */
class KeyTest {
    @Test
    void shouldBuildKeysWithAndWithoutSortKey() {
        Key simple = Key.builder().s("pk", "TICKET#1").build();
        assertThat(simple.partitionKeyName()).isEqualTo("pk");
        assertThat(simple.hasSortKey()).isFalse();
        assertThat(simple.sortKey()).isNull();
        assertThat(simple.sortKeyName()).isNull();

        Key composite = Key.builder().s("pk", "TICKET#1").n("sk", 3).build();
        assertThat(composite).isEqualTo(Key.of("pk", AttributeValue.s("TICKET#1"), "sk", AttributeValue.n(3)));
        assertThat(composite.get("sk")).isEqualTo(AttributeValue.n(3));
        assertThat(composite.get("other")).isNull();
        assertThat(List.copyOf(composite.attributes().keySet())).containsExactly("pk", "sk");
        assertThat(composite.toItem()).isEqualTo(Item.builder().s("pk", "TICKET#1").n("sk", 3).build());
        assertThat(composite.toString()).isEqualTo("{\"pk\": {\"S\": \"TICKET#1\"}, \"sk\": {\"N\": \"3\"}}");
        assertThat(composite).isNotEqualTo(Key.builder().n("sk", 3).s("pk", "TICKET#1").build());
    }

    @Test
    void shouldTakeTheKeyOutOfAnItem() {
        Item item = Item.builder().s("pk", "A").s("sk", "B").n("x", 1).build();
        assertThat(Key.from(item, "pk", "sk")).isEqualTo(Key.builder().s("pk", "A").s("sk", "B").build());
        assertThat(Key.from(item, "pk", null)).isEqualTo(Key.of("pk", AttributeValue.s("A")));
        assertThatThrownBy(() -> Key.from(item, "pk", "missing")).isInstanceOf(ValidationException.class)
                .hasMessageContaining("Missing the key missing");
    }

    @Test
    void shouldApplyDynamoDbsKeyValueRules() {
        assertThatThrownBy(() -> Key.of("pk", AttributeValue.s(""))).isInstanceOf(ValidationException.class)
                .hasMessageContaining("cannot contain an empty string value. Key: pk");
        assertThatThrownBy(() -> Key.of("pk", AttributeValue.b(new byte[0]))).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> Key.of("pk", AttributeValue.bool(true))).isInstanceOf(ValidationException.class)
                .hasMessageContaining("S, N or B");
        assertThat(Key.of("pk", AttributeValue.s("é".repeat(1024))).partitionKey()).isNotNull(); // 2048 bytes
        assertThatThrownBy(() -> Key.of("pk", AttributeValue.s("x".repeat(2049))))
                .isInstanceOf(ValidationException.class).hasMessageContaining("2049 bytes");
        assertThat(Key.of("pk", AttributeValue.s("a"), "sk", AttributeValue.b(new byte[1024]))).isNotNull();
        assertThatThrownBy(() -> Key.of("pk", AttributeValue.s("a"), "sk", AttributeValue.s("x".repeat(1025))))
                .isInstanceOf(ValidationException.class).hasMessageContaining("1024");
        assertThatThrownBy(() -> Key.of("pk", AttributeValue.s("a"), "pk", AttributeValue.s("b")))
                .isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> Key.builder().s("a", "1").s("b", "2").s("c", "3"))
                .isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> Key.builder().build()).isInstanceOf(ValidationException.class);
    }
}
