package dev.lacuna.item;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.Item;
import dev.lacuna.ValidationException;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The public {@link Item} type, and the two {@link AttributeValue} fixes its codec relies on. */
class ItemTest {
    @Test
    void shouldBuildAnItemInOrderAndReadItBack() {
        Item item = Item.builder().s("pk", "TICKET#1").n("openedAt", 17).bool("open", true)
                .put("tags", AttributeValue.ss("a", "b")).build();
        assertThat(item.get("pk")).isEqualTo(AttributeValue.s("TICKET#1"));
        assertThat(item.get("openedAt")).isEqualTo(AttributeValue.n("17.0"));
        assertThat(item.get("missing")).isNull();
        assertThat(item.has("open")).isTrue();
        assertThat(List.copyOf(item.attributes().keySet())).containsExactly("pk", "openedAt", "open", "tags");
        assertThat(item.size()).isEqualTo(4);
        assertThatThrownBy(() -> item.attributes().put("x", AttributeValue.nul()))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void shouldCompareByContentIgnoringOrder() {
        Map<String, AttributeValue> forward = new LinkedHashMap<>();
        forward.put("a", AttributeValue.n(1));
        forward.put("b", AttributeValue.s("x"));
        Map<String, AttributeValue> backward = new LinkedHashMap<>();
        backward.put("b", AttributeValue.s("x"));
        backward.put("a", AttributeValue.n(new BigDecimal("1.00")));
        assertThat(Item.of(forward)).isEqualTo(Item.of(backward)).hasSameHashCodeAs(Item.of(backward));
        assertThat(Item.of(forward)).isNotEqualTo(Item.of(forward).with("a", AttributeValue.n(2)));
    }

    @Test
    void shouldCopyOnWithAndWithout() {
        Item item = Item.builder().s("a", "1").s("b", "2").build();
        Item replaced = item.with("a", AttributeValue.s("9"));
        assertThat(List.copyOf(replaced.attributes().keySet())).containsExactly("a", "b");
        assertThat(replaced.get("a")).isEqualTo(AttributeValue.s("9"));
        assertThat(item.get("a")).isEqualTo(AttributeValue.s("1"));
        assertThat(item.without("b").attributes()).containsOnlyKeys("a");
        assertThat(item.without("zzz")).isSameAs(item);
    }

    @Test
    void shouldPrintDynamoDbJson() {
        Item item = Item.builder().s("pk", "T\"1").n("n", 17).b("b", new byte[] {1, 2, 3}).bool("t", false).nul("z")
                .put("l", AttributeValue.l(AttributeValue.s("x"))).put("m", AttributeValue.m(Map.of("k", AttributeValue.n(1))))
                .put("ns", AttributeValue.ns("1.5")).build();
        assertThat(item.toString()).isEqualTo("{\"pk\": {\"S\": \"T\\\"1\"}, \"n\": {\"N\": \"17\"}, \"b\": {\"B\": \"AQID\"}, "
                + "\"t\": {\"BOOL\": false}, \"z\": {\"NULL\": true}, \"l\": {\"L\": [{\"S\": \"x\"}]}, "
                + "\"m\": {\"M\": {\"k\": {\"N\": \"1\"}}}, \"ns\": {\"NS\": [\"1.5\"]}}");
    }

    @Test
    void shouldRefuseEmptyOrMalformedNamesAndNullValues() {
        assertThatThrownBy(() -> Item.builder().s("", "x")).isInstanceOf(ValidationException.class)
                .hasMessageContaining("must not be empty");
        assertThatThrownBy(() -> Item.builder().s("\ud800", "x")).isInstanceOf(ValidationException.class)
                .hasMessageContaining("unpaired surrogate");
        Map<String, AttributeValue> withNull = new LinkedHashMap<>();
        withNull.put("a", null);
        assertThatThrownBy(() -> Item.of(withNull)).isInstanceOf(ValidationException.class);
    }

    @Test
    void shouldRefuseStringsThatAreNotUnicode() {
        // AttributeValue fix: "\ud800" would be written as "?" in UTF-8
        assertThatThrownBy(() -> AttributeValue.s("a\ud800")).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> AttributeValue.s("\udc00a")).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> AttributeValue.ss("ok", "\ud800")).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> AttributeValue.m(Map.of("\udfff", AttributeValue.nul())))
                .isInstanceOf(ValidationException.class);
        assertThat(AttributeValue.s("\ud83d\ude00")).isEqualTo(AttributeValue.s("😀"));
    }

    @Test
    void shouldRefuseOutlandishNumbersWithValidationExceptionQuickly() {
        // AttributeValue fix: these threw ArithmeticException, and built a billion-character message
        assertThatThrownBy(() -> AttributeValue.n("100E+2147483647")).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> AttributeValue.n("100E-2147483647")).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> AttributeValue.n("1".repeat(39) + "E+999999999")).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> AttributeValue.n("1".repeat(39))).isInstanceOf(ValidationException.class)
                .hasMessageContaining("more than 38 significant digits");
    }
}
