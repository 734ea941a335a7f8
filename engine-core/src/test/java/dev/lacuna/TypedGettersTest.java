package dev.lacuna;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Reading values without instanceof: {@link Item}'s getters and {@link AttributeValue}'s {@code as} methods. */
class TypedGettersTest {
    private static final Item ITEM = Item.builder()
            .s("name", "Ada").n("age", 36).n("ratio", "-1.25E-3").n("big", "12345678901234567890123456789012345678")
            .b("photo", new byte[] {1, 2, 3}).bool("active", true).nul("nothing")
            .put("tags", AttributeValue.ss("a", "b")).put("scores", AttributeValue.ns("1", "2.5"))
            .put("blobs", AttributeValue.bs(new byte[] {9}, new byte[] {8}))
            .put("list", AttributeValue.l(AttributeValue.s("x"), AttributeValue.n(2)))
            .put("map", AttributeValue.m(Map.of("inner", AttributeValue.bool(false))))
            .build();

    @Test
    void shouldReadEveryTypeWithItsGetter() {
        assertThat(ITEM.getString("name")).isEqualTo("Ada");
        assertThat(ITEM.getNumber("ratio")).isEqualByComparingTo("-0.00125");
        assertThat(ITEM.getNumber("big")).isEqualTo(new BigDecimal("12345678901234567890123456789012345678"));
        assertThat(ITEM.getLong("age")).isEqualTo(36L);
        assertThat(ITEM.getBinary("photo")).containsExactly(1, 2, 3);
        assertThat(ITEM.getBoolean("active")).isTrue();
        assertThat(ITEM.isNull("nothing")).isTrue();
        assertThat(ITEM.isNull("name")).isFalse();
        assertThat(ITEM.getStringSet("tags")).containsExactlyInAnyOrder("a", "b");
        assertThat(ITEM.getNumberSet("scores")).containsExactlyInAnyOrder(BigDecimal.ONE, new BigDecimal("2.5"));
        assertThat(ITEM.getBinarySet("blobs")).containsExactlyInAnyOrder(ByteBuffer.wrap(new byte[] {9}),
                ByteBuffer.wrap(new byte[] {8}));
        List<AttributeValue> list = ITEM.getList("list");
        assertThat(list.get(0).asString()).isEqualTo("x");
        assertThat(list.get(1).asLong()).isEqualTo(2L);
        assertThat(ITEM.getMap("map").get("inner").asBoolean()).isFalse();
    }

    @Test
    void shouldCopyBinariesSoTheItemCannotBeChanged() {
        ITEM.getBinary("photo")[0] = 42;
        assertThat(ITEM.getBinary("photo")).containsExactly(1, 2, 3);
        assertThatThrownBy(() -> ITEM.getStringSet("tags").add("c")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void shouldNameTheAttributeAndTheTypesWhenTheTypeIsWrong() {
        assertThatThrownBy(() -> ITEM.getString("age"))
                .isInstanceOfSatisfying(AttributeTypeException.class, e -> {
                    assertThat(e.expected()).isEqualTo(AttributeValue.Type.S);
                    assertThat(e.actual()).isEqualTo(AttributeValue.Type.N);
                })
                .hasMessage("attribute \"age\" is N, not S");
        assertThatThrownBy(() -> ITEM.getMap("list")).hasMessage("attribute \"list\" is L, not M");
        assertThatThrownBy(() -> ITEM.getList("list").get(0).asNumber()).isInstanceOf(AttributeTypeException.class)
                .hasMessage("the value is S, not N");
    }

    @Test
    void shouldSayAnAttributeIsAbsent() {
        assertThatThrownBy(() -> ITEM.getBoolean("missing"))
                .isInstanceOfSatisfying(AttributeTypeException.class, e -> assertThat(e.actual()).isNull())
                .hasMessage("the item has no attribute \"missing\" (asked for as BOOL)");
        assertThatThrownBy(() -> ITEM.isNull("missing")).isInstanceOf(AttributeTypeException.class);
    }

    @Test
    void shouldRefuseALongThatIsNotAWholeNumberInRange() {
        assertThatThrownBy(() -> ITEM.getLong("ratio")).isInstanceOf(AttributeTypeException.class)
                .hasMessageContaining("attribute \"ratio\" is N -0.00125, which is not a whole number");
        assertThatThrownBy(() -> ITEM.getLong("big")).isInstanceOf(AttributeTypeException.class);
        assertThat(AttributeValue.n(Long.MIN_VALUE).asLong()).isEqualTo(Long.MIN_VALUE);
        assertThat(AttributeValue.n("1E+3").asLong()).isEqualTo(1000L);
        assertThatThrownBy(() -> AttributeValue.n("9223372036854775808").asLong())
                .isInstanceOf(AttributeTypeException.class);
    }

    @Test
    void shouldBeLacunaExceptions() {
        assertThat(new AttributeTypeException("m", AttributeValue.Type.S, null))
                .isInstanceOf(dev.lacuna.storage.LacunaException.class);
    }
}
