package dev.lacuna.item;

import dev.lacuna.base.Utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.Item;
import java.math.BigDecimal;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link ItemSize} against the rules of the DynamoDB Developer Guide, "DynamoDB item sizes and formats"
 * (CapacityUnitCalculations.html): each expected size below is worked out from those rules by hand.
 */
class ItemSizeTest {
    @Test
    void shouldCountStringsAsNamePlusUtf8Bytes() {
        assertThat(ItemSize.attribute("pk", AttributeValue.s("TICKET#1"))).isEqualTo(2 + 8);
        assertThat(ItemSize.attribute("name", AttributeValue.s(""))).isEqualTo(4);
        // é is 2 bytes, € 3, 😀 4 (one code point, two UTF-16 chars); the name "ü" is 2
        assertThat(ItemSize.attribute("ü", AttributeValue.s("é€😀"))).isEqualTo(2 + 2 + 3 + 4);
    }

    @Test
    void shouldCountNumbersAsOneBytePerTwoSignificantDigitsPlusOne() {
        assertThat(ItemSize.number(new BigDecimal("0"))).isEqualTo(1);
        assertThat(ItemSize.number(new BigDecimal("7"))).isEqualTo(2);
        assertThat(ItemSize.number(new BigDecimal("17"))).isEqualTo(2);
        assertThat(ItemSize.number(new BigDecimal("123"))).isEqualTo(3);
        assertThat(ItemSize.number(new BigDecimal("-123.45"))).isEqualTo(4);
        // leading and trailing zeros are trimmed: 1000 and 0.001 have one significant digit
        assertThat(ItemSize.number(new BigDecimal("1000"))).isEqualTo(2);
        assertThat(ItemSize.number(new BigDecimal("0.0010"))).isEqualTo(2);
        assertThat(ItemSize.number(new BigDecimal("9.9999999999999999999999999999999999999E+125"))).isEqualTo(20);
        assertThat(ItemSize.attribute("openedAt", AttributeValue.n(17))).isEqualTo(8 + 2);
    }

    @Test
    void shouldCountBinariesBooleansAndNulls() {
        assertThat(ItemSize.attribute("b", AttributeValue.b(new byte[10]))).isEqualTo(1 + 10);
        assertThat(ItemSize.attribute("flag", AttributeValue.bool(true))).isEqualTo(4 + 1);
        assertThat(ItemSize.attribute("gone", AttributeValue.nul())).isEqualTo(4 + 1);
    }

    @Test
    void shouldAddThreeBytesPerListOrMapAndOnePerElement() {
        assertThat(ItemSize.attribute("l", AttributeValue.l())).isEqualTo(1 + 3);
        assertThat(ItemSize.attribute("m", AttributeValue.m(Map.of()))).isEqualTo(1 + 3);
        // ["ab", 1]: 3 + (1 + 2) + (1 + 2)
        assertThat(ItemSize.attribute("l", AttributeValue.l(AttributeValue.s("ab"), AttributeValue.n(1))))
                .isEqualTo(1 + 3 + 3 + 3);
        // {"k": "v", "kk": true}: 3 + (1 + 1 + 1) + (1 + 2 + 1); map keys count like attribute names
        Map<String, AttributeValue> m = new java.util.LinkedHashMap<>();
        m.put("k", AttributeValue.s("v"));
        m.put("kk", AttributeValue.bool(true));
        assertThat(ItemSize.attribute("m", AttributeValue.m(m))).isEqualTo(1 + 3 + 3 + 4);
        // nested: {"a": [null]} = 3 + (1 + 1 + (3 + (1 + 1)))
        assertThat(ItemSize.value(AttributeValue.m(Map.of("a", AttributeValue.l(AttributeValue.nul())))))
                .isEqualTo(3 + 1 + 1 + 3 + 1 + 1);
    }

    @Test
    void shouldCountSetsAsTheSumOfTheirElements() {
        assertThat(ItemSize.attribute("ss", AttributeValue.ss("a", "bc", ""))).isEqualTo(2 + 3);
        assertThat(ItemSize.attribute("ns", AttributeValue.ns("1", "123", "0"))).isEqualTo(2 + 2 + 3 + 1);
        assertThat(ItemSize.attribute("bs", AttributeValue.bs(new byte[3], new byte[0]))).isEqualTo(2 + 3);
    }

    @Test
    void shouldSumAttributesOfAnItemAndStateTheLimit() {
        Item ticket = Item.builder().s("pk", "TICKET#1").n("openedAt", 17).bool("open", true).build();
        assertThat(ItemSize.of(ticket)).isEqualTo(10 + 10 + 5);
        assertThat(ItemSize.of(Item.empty())).isZero();
        assertThat(ItemSize.MAX_ITEM_BYTES).isEqualTo(409_600);
        Item atLimit = Item.builder().s("d", "x".repeat(ItemSize.MAX_ITEM_BYTES - 1)).build();
        assertThat(ItemSize.of(atLimit)).isEqualTo(ItemSize.MAX_ITEM_BYTES);
    }

    @Test
    void shouldMeasureUtf8LengthAsTheEncoderDoes() {
        Seeds.check("utf8 length", values -> {
            for (int i = 0; i < 10_000; i++) {
                String s = values.string();
                assertThat(Utf8.length(s)).isEqualTo(s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
            }
        });
    }
}
