package dev.lacuna.item;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.Item;
import dev.lacuna.ValidationException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Round trips and the decoder's refusals of {@link ItemCodec}. */
class ItemCodecTest {
    private static final int CASES = Seeds.cases(20_000);

    @Test
    void shouldRoundTripRandomItemsOfEveryTypeAndReencodeToTheSameBytes() {
        Seeds.check("item round trip", values -> {
            int[] seen = new int[AttributeValue.Type.values().length];
            for (int i = 0; i < CASES; i++) {
                Item item = values.item(8, 4);
                byte[] bytes = ItemCodec.encode(item);
                Item decoded = ItemCodec.decode(bytes);
                assertThat(decoded).isEqualTo(item);
                assertThat(List.copyOf(decoded.attributes().keySet()))
                        .isEqualTo(List.copyOf(item.attributes().keySet()));
                assertThat(ItemCodec.encode(decoded)).isEqualTo(bytes);
                item.attributes().values().forEach(v -> seen[v.type().ordinal()]++);
            }
            for (AttributeValue.Type t : AttributeValue.Type.values()) {
                assertThat(seen[t.ordinal()]).as("top-level values of type %s", t).isGreaterThan(100);
            }
        });
    }

    @Test
    void shouldCountWhileDecodingTheSameSizeAsItemSizeOfTheDecodedItem() {
        Seeds.check("item size while decoding", values -> {
            long total = 0;
            for (int i = 0; i < CASES; i++) {
                Item item = values.item(8, 4);
                ItemCodec.Sized sized = ItemCodec.decodeSized(ItemCodec.encode(item));
                assertThat(sized.item()).isEqualTo(item);
                assertThat(sized.size()).as("size of %s", item).isEqualTo(ItemSize.of(item));
                total += sized.size();
            }
            assertThat(total).isPositive();
        });
    }

    @Test
    void shouldRoundTripNumbersOfEveryDigitCountBothSidesOfWhatALongHolds() {
        // The decoder gathers up to 18 digits in a long and longer numbers in a char array: every count from
        // 1 to 38, odd and even, with and without a fraction, both signs, must come back exactly.
        java.util.Random random = new java.util.Random(18);
        int checked = 0;
        for (int digits = 1; digits <= 38; digits++) {
            for (int trial = 0; trial < 20; trial++) {
                StringBuilder sb = new StringBuilder();
                sb.append((char) ('1' + random.nextInt(9)));
                for (int i = 1; i < digits; i++) {
                    sb.append(i == digits - 1 ? (char) ('1' + random.nextInt(9)) : (char) ('0' + random.nextInt(10)));
                }
                java.math.BigDecimal v = new java.math.BigDecimal(new java.math.BigInteger(sb.toString()),
                        random.nextInt(60) - 30);
                if (trial % 2 == 1) {
                    v = v.negate();
                }
                Item item = Item.builder().put("n", AttributeValue.n(v)).build();
                Item decoded = ItemCodec.decode(ItemCodec.encode(item));
                assertThat(decoded).as("%s (%d digits)", v, digits).isEqualTo(item);
                assertThat(((AttributeValue.N) decoded.get("n")).value().compareTo(v)).as("%s", v).isZero();
                checked++;
            }
        }
        assertThat(checked).isEqualTo(38 * 20);
    }

    @Test
    void shouldEncodeAnItemAsDocumentedInFormatMd() {
        Item item = Item.builder().s("pk", "A").n("n", 17).bool("t", true).nul("z").build();
        assertThat(HexFormat.of().formatHex(ItemCodec.encode(item))).isEqualTo(
                "01" + "04"                      // version, 4 attributes
                + "02706b" + "01" + "0141"       // "pk": S "A"
                + "016e" + "02" + "058322"       // "n": N 17
                + "0174" + "05"                  // "t": true
                + "017a" + "06");                // "z": NULL
        assertThat(ItemCodec.encode(Item.empty())).containsExactly(1, 0);
    }

    @Test
    void shouldAllowThirtyTwoLevelsAndNoMore() {
        Item deepest = Item.builder().put("a", nested(31, AttributeValue.s("leaf"))).build();
        assertThat(ItemCodec.decode(ItemCodec.encode(deepest))).isEqualTo(deepest);
        Item emptyAtLevel32 = Item.builder().put("a", nested(31, AttributeValue.l())).build();
        assertThat(ItemCodec.decode(ItemCodec.encode(emptyAtLevel32))).isEqualTo(emptyAtLevel32);

        Item tooDeep = Item.builder().put("a", nested(32, AttributeValue.s("leaf"))).build();
        assertThatThrownBy(() -> ItemCodec.encode(tooDeep)).isInstanceOf(ValidationException.class)
                .hasMessageContaining("Nesting Levels have exceeded supported limits");

        // the same item written by hand: 32 lists of one element around a NULL
        StringBuilder hex = new StringBuilder("01" + "01" + "0161");
        hex.append("0701".repeat(32)).append("06");
        assertThatThrownBy(() -> ItemCodec.decode(HexFormat.of().parseHex(hex)))
                .isInstanceOf(CorruptionException.class).hasMessageContaining("nested deeper than 32")
                .extracting(e -> ((CorruptionException) e).offset()).isEqualTo(4L + 2 * 31);
    }

    private static AttributeValue nested(int wraps, AttributeValue leaf) {
        AttributeValue v = leaf;
        for (int i = 0; i < wraps; i++) {
            v = i % 2 == 0 ? AttributeValue.l(v) : AttributeValue.m(Map.of("k", v));
        }
        return v;
    }

    @Test
    void shouldRefuseWhatTheEncoderNeverWritesWithFileAndOffset() {
        // hex of the bad item → offset of the field that is wrong
        Object[][] cases = {
            {"", 0, "truncated"},
            {"02 00", 0, "unknown item format version 2"},
            {"01", 1, "truncated"},
            {"01 80 00", 1, "overlong varint"},
            {"01 ff ff ff ff 0f", 1, "too large"},
            {"01 05 016100", 1, "exceeds"},
            {"01 01 0161 00", 4, "unknown value type byte 0x0"},
            {"01 01 0161 0c", 4, "unknown value type byte 0xc"},
            {"01 01 00 06 06", 2, "empty attribute name"},
            {"01 02 0161 06 0161 06", 5, "appears twice"},
            {"01 01 0161 01 02 c080", 6, "malformed UTF-8"},
            {"01 01 0161 01 03 eda080", 6, "malformed UTF-8"},
            {"01 01 0161 09 00", 4, "empty set"},
            {"01 01 0161 09 02 0178 0178", 8, "set element appears twice"},
            {"01 01 0161 0a 02 0583 22 0583 22", 9, "set element appears twice"},
            {"01 01 0161 0b 02 00 00", 7, "set element appears twice"},
            {"01 01 0161 08 02 0178 06 0178 06", 9, "map key x appears twice"},
            {"01 01 0161 02 06", 5, "unknown number sign byte"},
            {"01 01 0161 02 05 82 09", 7, "leading zero"},
            {"01 01 0161 02 05 82 15 00", 8, "zero digit pair"},
            {"01 01 0161 02 05 82 c9", 7, "above 99"},
            {"01 01 0161 02 05 82" + " 15".repeat(19), 26, "more than 38 digits"},
            {"01 01 0161 02 05 82 15", 8, "truncated"},
            {"01 01 0161 06 06", 5, "after the end of the item"},
            {"01 01 0161 03 05 0102", 5, "exceeds"},
        };
        for (Object[] c : cases) {
            byte[] bytes = HexFormat.of().parseHex(((String) c[0]).replace(" ", ""));
            assertThatThrownBy(() -> ItemCodec.decode(bytes, 0, bytes.length, "000007.sst", 1000))
                    .as("decoding %s", c[0])
                    .isInstanceOfSatisfying(CorruptionException.class, e -> {
                        assertThat(e.file()).isEqualTo("000007.sst");
                        assertThat(e.offset()).as("offset for %s: %s", c[0], e.getMessage())
                                .isEqualTo(1000L + (int) c[1]);
                        assertThat(e.getMessage()).contains((String) c[2]);
                    });
        }
    }

    @Test
    void shouldRefuseAnAttributeNameLongerThanAnItemCanHave() {
        // Item.of refuses a name over 65,535 UTF-8 bytes; decoded items skip its checks, so the decoder must.
        byte[] bytes = new byte[1 + 1 + 3 + 65_536 + 1];
        bytes[0] = 1;
        bytes[1] = 1;
        bytes[2] = (byte) 0x80; // varint 65,536
        bytes[3] = (byte) 0x80;
        bytes[4] = 0x04;
        java.util.Arrays.fill(bytes, 5, 5 + 65_536, (byte) 'a');
        bytes[bytes.length - 1] = 0x06;
        assertThatThrownBy(() -> ItemCodec.decode(bytes, 0, bytes.length, "000007.sst", 1000))
                .isInstanceOfSatisfying(CorruptionException.class, e -> {
                    assertThat(e.offset()).isEqualTo(1002L);
                    assertThat(e.getMessage()).contains("attribute name of 65536 bytes");
                });
        byte[] longest = java.util.Arrays.copyOf(bytes, bytes.length - 1);
        longest[2] = (byte) 0xFF; // varint 65,535
        longest[3] = (byte) 0xFF;
        longest[4] = 0x03;
        longest[longest.length - 1] = 0x06;
        assertThat(ItemCodec.decode(longest).attributes().keySet().iterator().next()).hasSize(65_535);
    }

    @Test
    void shouldDecodeASliceAndNameThePlaceholderFileByDefault() {
        byte[] item = ItemCodec.encode(Item.builder().s("pk", "x").build());
        byte[] framed = new byte[item.length + 10];
        System.arraycopy(item, 0, framed, 5, item.length);
        assertThat(ItemCodec.decode(framed, 5, item.length, "f", 0)).isEqualTo(Item.builder().s("pk", "x").build());
        assertThatThrownBy(() -> ItemCodec.decode(new byte[] {9}))
                .isInstanceOfSatisfying(CorruptionException.class,
                        e -> assertThat(e.file()).isEqualTo(ItemCodec.UNKNOWN_FILE));
    }
}
