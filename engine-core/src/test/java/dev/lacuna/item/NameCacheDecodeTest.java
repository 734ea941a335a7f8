package dev.lacuna.item;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.Item;
import dev.lacuna.storage.CorruptionException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Decoding with a {@link NameCache} (a query page's items share one) gives exactly what decoding without one
 * gives, however the names collide in it, and refuses the same damaged input.
 */
class NameCacheDecodeTest {
    private static final int CASES = Seeds.cases(5_000);

    @Test
    void shouldDecodeRandomItemsOfEveryTypeThroughOneCacheAsWithoutIt() {
        Seeds.check("decode through a name cache", values -> {
            NameCache names = new NameCache();
            for (int i = 0; i < CASES; i++) {
                Item item = values.item(8, 4);
                byte[] bytes = ItemCodec.encode(item);
                ItemCodec.Sized plain = ItemCodec.decodeSized(bytes);
                ItemCodec.Sized cached = ItemCodec.decodeSized(bytes, names);
                assertThat(cached.item()).isEqualTo(plain.item()).isEqualTo(item);
                assertThat(cached.item().hashCode()).isEqualTo(item.hashCode());
                assertThat(cached.item().toString()).isEqualTo(item.toString());
                assertThat(List.copyOf(cached.item().attributes().keySet()))
                        .isEqualTo(List.copyOf(item.attributes().keySet()));
                assertThat(cached.size()).isEqualTo(plain.size()).isEqualTo(ItemSize.of(item));
                assertThat(ItemCodec.encode(cached.item())).isEqualTo(bytes);
            }
        });
    }

    @Test
    void shouldNeverGiveAnItemTheLastItemsNameInPlaceOfItsOwn() {
        // 400 names drawn at random for each position: the cache's name at a position is often not the next
        // item's, sometimes a name of the same length, so hits, misses and replacements all happen, and an
        // item must never come back with the last item's name.
        NameCache names = new NameCache();
        Set<String> seen = new java.util.HashSet<>();
        java.util.Random random = new java.util.Random(64);
        for (int i = 0; i < CASES; i++) {
            Item.Builder b = Item.builder();
            int n = 1 + random.nextInt(8);
            for (int a = 0; a < n; a++) {
                String name = (a % 2 == 0 ? "attr" : "ätt€r-") + random.nextInt(200);
                b.put(name, a % 3 == 0 ? AttributeValue.s(name) : new AttributeValue.M(Map.of(name,
                        AttributeValue.n(a), "k" + random.nextInt(100), AttributeValue.bool(true))));
            }
            Item item = b.build();
            Item decoded = ItemCodec.decodeSized(ItemCodec.encode(item), names).item();
            assertThat(decoded).isEqualTo(item);
            assertThat(List.copyOf(decoded.attributes().keySet())).isEqualTo(List.copyOf(item.attributes().keySet()));
            seen.addAll(decoded.attributes().keySet());
        }
        assertThat(seen).hasSize(400);
    }

    @Test
    void shouldGiveThePagesNextItemTheNameStringsOfTheFirst() {
        NameCache names = new NameCache();
        Item one = Item.builder().s("pk", "TICKET#1").s("status", "OPEN").n("openedAt", 17).build();
        Item two = Item.builder().s("pk", "TICKET#2").s("status", "OPEN").n("openedAt", 18).build();
        Item first = ItemCodec.decodeSized(ItemCodec.encode(one), names).item();
        Item second = ItemCodec.decodeSized(ItemCodec.encode(two), names).item();
        assertThat(second).isEqualTo(two);
        List<String> a = List.copyOf(first.attributes().keySet());
        List<String> b = List.copyOf(second.attributes().keySet());
        for (int i = 0; i < a.size(); i++) {
            assertThat(b.get(i)).isSameAs(a.get(i));
        }
        // without a cache each decode makes its own strings
        Item third = ItemCodec.decode(ItemCodec.encode(two));
        assertThat(third.attributes().keySet().iterator().next()).isNotSameAs(a.get(0));
    }

    @Test
    void shouldGiveTheNextItemOfTheSameNamesTheLastOnesNamesAndRepeatedStringsAndNoOtherValue() {
        NameCache names = new NameCache();
        List<Item> items = new java.util.ArrayList<>();
        List<Item> decoded = new java.util.ArrayList<>();
        for (int i = 0; i < 6; i++) {
            Item.Builder b = Item.builder().s("pk", "TICKET#" + i).s("status", i < 4 ? "OPEN" : "CLOSED")
                    .s("GSI1PK", "QUEUE#open").n("openedAt", 1_700_000_000L + 10 * i);
            if (i == 2) {
                b.s("extra", "OPEN"); // other names between items of the same names
            }
            items.add(b.build());
            decoded.add(ItemCodec.decodeSized(ItemCodec.encode(items.get(i)), names).item());
        }
        for (int i = 0; i < items.size(); i++) {
            Item item = decoded.get(i);
            assertThat(item).isEqualTo(items.get(i));
            assertThat(item.toString()).isEqualTo(items.get(i).toString());
            assertThat(List.copyOf(item.attributes().keySet())).isEqualTo(List.copyOf(items.get(i).attributes().keySet()));
            assertThat(item.get("openedAt").asNumber().scale()).isEqualTo(items.get(i).get("openedAt").asNumber().scale());
        }
        // the same value at the same position is the same (immutable) value; one that varies is each item's own
        assertThat(decoded.get(1).get("GSI1PK")).isSameAs(decoded.get(0).get("GSI1PK"));
        assertThat(decoded.get(5).get("GSI1PK")).isSameAs(decoded.get(0).get("GSI1PK"));
        assertThat(decoded.get(3).get("status")).isSameAs(decoded.get(0).get("status"));
        assertThat(decoded.get(4).get("status").asString()).isEqualTo("CLOSED");
        assertThat(decoded.get(1).get("pk")).isNotSameAs(decoded.get(0).get("pk"));
        // a decoded map holding another's names is still its own: the items stay independent
        assertThat(decoded.get(1).attributes()).isNotEqualTo(decoded.get(0).attributes());
        assertThat(decoded.get(1).with("x", AttributeValue.s("y")).get("x").asString()).isEqualTo("y");
        assertThat(decoded.get(0).has("x")).isFalse();
    }

    @Test
    void shouldTellNamesAndValuesApartThatDifferInAnyOneByte() {
        // the cache compares 8 and 4 bytes at a time, the last word overlapping: a difference anywhere counts
        for (int n = 1; n <= 40; n++) {
            char[] base = new char[n];
            for (int i = 0; i < n; i++) {
                base[i] = (char) ('a' + i % 26);
            }
            for (int j = 0; j < n; j++) {
                char[] other = base.clone();
                other[j] = 'Z';
                NameCache names = new NameCache(); // each pair compared, names and values
                for (String name : List.of(new String(base), new String(other))) {
                    Item item = Item.builder().s("pk", name).s(name, name).build();
                    Item decoded = ItemCodec.decodeSized(ItemCodec.encode(item), names).item();
                    assertThat(decoded).isEqualTo(item);
                    assertThat(List.copyOf(decoded.attributes().keySet())).containsExactly("pk", name);
                    assertThat(decoded.get(name).asString()).isEqualTo(name);
                }
            }
        }
    }

    @Test
    void shouldRefuseAnItemOfTheLastItemsNamesWithANameTwiceOrABadValue() {
        NameCache names = new NameCache();
        // warm: names a, b; the string "x" at both positions
        byte[] good = HexFormat.of().parseHex("0102" + "0161" + "010178" + "0162" + "010178");
        assertThat(ItemCodec.decodeSized(good, names).item())
                .isEqualTo(Item.builder().s("a", "x").s("b", "x").build());
        assertThat(ItemCodec.decodeSized(good, names).item())
                .isEqualTo(Item.builder().s("a", "x").s("b", "x").build());
        Object[][] cases = {
            {"01 02 0161 010178 0161 010178", 7, "attribute a appears twice"},
            {"01 02 0161 0102c080 0162 010178", 6, "malformed UTF-8"},
            {"01 02 0161 010178 0162 0102", 10, "exceeds"},
            {"01 02 0161 010178 0162 010178 00", 12, "bytes after the end"},
        };
        for (Object[] c : cases) {
            byte[] bytes = HexFormat.of().parseHex(((String) c[0]).replace(" ", ""));
            assertThatThrownBy(() -> ItemCodec.decodeSized(bytes, names))
                    .as("decoding %s", c[0])
                    .isInstanceOfSatisfying(CorruptionException.class, e -> {
                        assertThat(e.offset()).as("offset for %s: %s", c[0], e.getMessage()).isEqualTo((int) c[1]);
                        assertThat(e.getMessage()).contains((String) c[2]);
                    });
            assertThat(ItemCodec.decodeSized(good, names).item()).isEqualTo(Item.builder().s("a", "x").s("b", "x").build());
        }
    }

    @Test
    void shouldRefuseAWarmCachesNamesAppearingTwice() {
        NameCache names = new NameCache();
        // warm: "a" and "x" are in the cache
        byte[] good = HexFormat.of().parseHex("0101016108010178" + "06");
        assertThat(ItemCodec.decodeSized(good, names).item())
                .isEqualTo(Item.builder().put("a", new AttributeValue.M(Map.of("x", AttributeValue.nul()))).build());
        Object[][] cases = {
            {"01 02 0161 06 0161 06", 5, "attribute a appears twice"},
            {"01 01 0161 08 02 0178 06 0178 06", 9, "map key x appears twice"},
            {"01 01 0161 08 01 0178 0c", 8, "unknown value type byte 0xc"},
            {"01 02 0161 06 0162 0c", 7, "unknown value type byte 0xc"},
            {"01 01 02 c080 06", 3, "malformed UTF-8"},
        };
        for (Object[] c : cases) {
            byte[] bytes = HexFormat.of().parseHex(((String) c[0]).replace(" ", ""));
            assertThatThrownBy(() -> ItemCodec.decodeSized(bytes, names))
                    .as("decoding %s", c[0])
                    .isInstanceOfSatisfying(CorruptionException.class, e -> {
                        assertThat(e.offset()).as("offset for %s: %s", c[0], e.getMessage()).isEqualTo((int) c[1]);
                        assertThat(e.getMessage()).contains((String) c[2]);
                    });
        }
        // a malformed name was not kept: the same bytes fail again
        byte[] malformed = HexFormat.of().parseHex("010102c08006");
        assertThatThrownBy(() -> ItemCodec.decodeSized(malformed, names)).hasMessageContaining("malformed UTF-8");
        assertThatThrownBy(() -> ItemCodec.decodeSized(malformed, names)).hasMessageContaining("malformed UTF-8");
    }

    @Test
    void shouldMakeAPagesVaryingStringsAsDecodingWithoutACacheDoesWhateverIsReadFirst() {
        // one shape, strings that vary from item to item (ASCII of every length up to 40 and empty, non-ASCII,
        // past the cache's slots), read in a different way for each item: the same item as without a cache
        java.util.Random random = new java.util.Random(40);
        NameCache names = new NameCache();
        for (int i = 0; i < 300; i++) {
            Item.Builder b = Item.builder();
            for (int a = 0; a < NameCache.SLOTS + 4; a++) {
                int length = random.nextInt(41);
                StringBuilder v = new StringBuilder();
                for (int c = 0; c < length; c++) {
                    v.append(a % 7 == 3 && c == length / 2 ? 'é' : (char) (' ' + random.nextInt(95)));
                }
                b.s("attr" + a, v.toString());
            }
            b.n("big", new java.math.BigDecimal(random.nextLong()).scaleByPowerOfTen(random.nextInt(40) - 20));
            Item item = b.n("n", i % 5 == 0 ? 0 : i).build();
            Item decoded = ItemCodec.decodeSized(ItemCodec.encode(item), names).item();
            switch (i % 4) {
                case 0 -> assertThat(decoded.toString()).isEqualTo(item.toString());
                case 1 -> assertThat(decoded).isEqualTo(item);
                case 2 -> {
                    for (String name : item.attributes().keySet()) {
                        assertThat(decoded.get(name)).as("item %d, %s", i, name).isEqualTo(item.get(name));
                    }
                }
                default -> assertThat(decoded.hashCode()).isEqualTo(item.hashCode());
            }
            assertThat(decoded).isEqualTo(item);
            assertThat(ItemCodec.encode(decoded)).isEqualTo(ItemCodec.encode(item));
        }
    }

    @Test
    void shouldMakeAVaryingAsciiStringWhenItIsReadFromTheBytesItWasDecodedFrom() {
        // White box: the third item of a shape leaves its varying ASCII strings encoded and makes each from its
        // bytes when read (which is why a page's bytes must not change once decoded): changing a byte after
        // decoding shows in the string read afterwards, and not in one read before.
        NameCache names = new NameCache();
        for (int i = 0; i < 2; i++) {
            ItemCodec.decodeSized(ItemCodec.encode(Item.builder().s("pk", "TICKET#" + i).s("t", "title " + i)
                    .build()), names);
        }
        byte[] bytes = ItemCodec.encode(Item.builder().s("pk", "TICKET#2").s("t", "title 2").build());
        Item third = ItemCodec.decodeSized(bytes, names).item();
        assertThat(third.getString("pk")).isEqualTo("TICKET#2");
        int at = new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1).indexOf("title 2");
        bytes[at] = 'T';
        bytes[at + 6] = '3';
        assertThat(third.getString("t")).isEqualTo("Title 3");
        int pk = new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1).indexOf("TICKET#2");
        bytes[pk] = 'X'; // within a string read already
        assertThat(third.getString("pk")).isEqualTo("TICKET#2");
    }

    @Test
    void shouldStillRefuseAVaryingStringOfMalformedUtf8WhenTheItemIsDecoded() {
        NameCache names = new NameCache();
        for (String v : List.of("ab", "cd", "ef")) {
            ItemCodec.decodeSized(ItemCodec.encode(Item.builder().s("a", v).s("b", v).build()), names);
        }
        // a: "\u00e9" as C3 A9; then the same with A9 made 28, which is no UTF-8 continuation byte
        byte[] bytes = ItemCodec.encode(Item.builder().s("a", "é").s("b", "gh").build());
        assertThat(ItemCodec.decodeSized(bytes.clone(), names).item().getString("a")).isEqualTo("é");
        int at = new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1).indexOf('\u00c3');
        bytes[at + 1] = 0x28;
        assertThatThrownBy(() -> ItemCodec.decodeSized(bytes, names))
                .isInstanceOfSatisfying(CorruptionException.class, e -> {
                    assertThat(e.offset()).isEqualTo(at);
                    assertThat(e.getMessage()).contains("malformed UTF-8");
                });
    }

    @Test
    void shouldGiveDecodedItemsAttributesThatNoCallCanChange() {
        NameCache names = new NameCache();
        List<Item> decoded = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) { // the first two decode as usual, the third on the shape with a value left encoded
            Item item = Item.builder().s("pk", "TICKET#" + i).s("t", "title " + i).build();
            decoded.add(ItemCodec.decodeSized(ItemCodec.encode(item), names).item());
            decoded.add(ItemCodec.decode(ItemCodec.encode(item)));
        }
        AttributeValue v = AttributeValue.s("x");
        java.util.function.BiFunction<String, AttributeValue, AttributeValue> f = (k, old) -> v;
        for (Item item : decoded) {
            Map<String, AttributeValue> m = item.attributes();
            List<org.assertj.core.api.ThrowableAssert.ThrowingCallable> changes = List.of(
                    () -> m.put("x", v), () -> m.put("pk", v), () -> m.remove("pk"), () -> m.remove("absent"),
                    m::clear, () -> m.putAll(Map.of("x", v)), () -> m.putIfAbsent("pk", v),
                    () -> m.remove("pk", m.get("pk")), () -> m.replace("pk", v), () -> m.replace("pk", m.get("pk"), v),
                    () -> m.replaceAll(f), () -> m.computeIfAbsent("pk", k -> v), () -> m.computeIfPresent("pk", f),
                    () -> m.compute("pk", f), () -> m.merge("pk", v, (a, b) -> b),
                    () -> m.keySet().remove("pk"), () -> m.values().clear(), () -> m.entrySet().clear(),
                    () -> m.entrySet().iterator().next().setValue(v));
            for (org.assertj.core.api.ThrowableAssert.ThrowingCallable change : changes) {
                assertThatThrownBy(change).isInstanceOf(UnsupportedOperationException.class);
            }
            assertThat(item.getString("pk")).startsWith("TICKET#");
            assertThat(item.attributes()).hasSize(2);
        }
    }
}
