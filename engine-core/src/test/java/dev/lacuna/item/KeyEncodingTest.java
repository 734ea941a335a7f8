package dev.lacuna.item;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.AttributeValue.Type;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.Key;
import dev.lacuna.ValidationException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The documented layout of {@link KeyEncoding}, hand-ordered examples, and the decoder's refusals. */
class KeyEncodingTest {
    private static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    @Test
    void shouldEncodeTheExamplesOfFormatMd() {
        assertThat(hex(KeyEncoding.encodeValue(AttributeValue.n(0)))).isEqualTo("04");
        assertThat(hex(KeyEncoding.encodeValue(AttributeValue.n(1)))).isEqualTo("058214");
        assertThat(hex(KeyEncoding.encodeValue(AttributeValue.n(17)))).isEqualTo("058322");
        assertThat(hex(KeyEncoding.encodeValue(AttributeValue.n(-17)))).isEqualTo("037cdd");
        assertThat(hex(KeyEncoding.encodeValue(AttributeValue.n("0.5")))).isEqualTo("058164");
        assertThat(hex(KeyEncoding.encodeValue(AttributeValue.n("123.45")))).isEqualTo("0584194564");
        assertThat(hex(KeyEncoding.encodeValue(AttributeValue.s("a\u0000b")))).isEqualTo("026100ff620001");
        assertThat(hex(KeyEncoding.encodeValue(AttributeValue.b(new byte[] {0, (byte) 0xFF})))).isEqualTo("0100ffff0001");
        assertThat(hex(KeyEncoding.encodeKey(258, AttributeValue.s("P"), AttributeValue.n(1))))
                .isEqualTo("00000102" + "02500001" + "058214");
        assertThat(hex(KeyEncoding.encodePartitionPrefix(258, AttributeValue.s("P")))).isEqualTo("00000102" + "02500001");
        assertThat(hex(KeyEncoding.encodeSortKeyPrefix(258, AttributeValue.s("P"), AttributeValue.s("a\u0000"))))
                .isEqualTo("00000102" + "02500001" + "026100ff");
        assertThat(KeyEncoding.encodeValue(AttributeValue.n("-9.9999999999999999999999999999999999999E+125")))
                .hasSize(NumberEncoding.MAX_BYTES);
    }

    @Test
    void shouldSortHandOrderedValuesInDynamoDbOrder() {
        String[] numbers = {"-9.9999999999999999999999999999999999999E+125", "-1E+125", "-100", "-99.5", "-10",
            "-1.01", "-1.001", "-1", "-0.1", "-1E-129", "-1E-130", "0", "1E-130", "1E-129", "0.1", "0.10000000001",
            "0.2", "1", "1.001", "1.01", "9.99", "10", "10.5", "99", "100", "101", "1E+125",
            "9.9999999999999999999999999999999999999E+125"};
        List<byte[]> encoded = new ArrayList<>();
        for (String n : numbers) {
            encoded.add(KeyEncoding.encodeValue(AttributeValue.n(n)));
        }
        assertStrictlyIncreasing(encoded, Arrays.asList(numbers));

        // UTF-8 order, which is not Java's UTF-16 order: U+FFFF sorts before U+10000 (a surrogate pair)
        String[] strings = {"", "\u0000", "\u0000\u0000", "\u0001", "A", "B", "a", "a\u0000", "a\u0000\u0000",
            "a\u0001", "ab", "b", "\u00e9", "\u20ac", "\uffff", "\ud800\udc00", "\ud83d\ude00", "\udbff\udfff"};
        encoded.clear();
        for (String s : strings) {
            encoded.add(KeyEncoding.encodeValue(AttributeValue.s(s)));
        }
        assertStrictlyIncreasing(encoded, Arrays.asList(strings));
    }

    @Test
    void shouldSelectTheSeedsDateRangeWithBetween() {
        // SEMANTICS.md: sk BETWEEN "STATUS#OPEN#2024-01-01" AND "STATUS#OPEN#2024-01-31#\uFFFF" holds the last day
        byte[] low = KeyEncoding.encodeKey(1, AttributeValue.s("CUST#9"), AttributeValue.s("STATUS#OPEN#2024-01-01"));
        byte[] high = KeyEncoding.encodeKey(1, AttributeValue.s("CUST#9"),
                AttributeValue.s("STATUS#OPEN#2024-01-31#\uFFFF"));
        for (String inside : new String[] {"STATUS#OPEN#2024-01-01", "STATUS#OPEN#2024-01-15#ORD#1",
            "STATUS#OPEN#2024-01-31#ORD#77", "STATUS#OPEN#2024-01-31#\u00e9t\u00e9"}) {
            byte[] k = KeyEncoding.encodeKey(1, AttributeValue.s("CUST#9"), AttributeValue.s(inside));
            assertThat(Arrays.compareUnsigned(low, k)).as(inside).isLessThanOrEqualTo(0);
            assertThat(Arrays.compareUnsigned(k, high)).as(inside).isLessThanOrEqualTo(0);
        }
        byte[] after = KeyEncoding.encodeKey(1, AttributeValue.s("CUST#9"), AttributeValue.s("STATUS#OPEN#2024-02-01"));
        assertThat(Arrays.compareUnsigned(after, high)).isPositive();
    }

    @Test
    void shouldRoundTripAKeyAndFindItsPartitionPrefix() {
        Key key = Key.builder().b("pk", new byte[] {0, 0, (byte) 0xFF}).s("sk", "x").build();
        byte[] encoded = KeyEncoding.encodeKey(9, key);
        assertThat(KeyEncoding.decodeKey(encoded, Type.B, Type.S))
                .isEqualTo(new KeyEncoding.DecodedKey(9, key.partitionKey(), key.sortKey()));
        assertThat(KeyEncoding.partitionPrefixLength(encoded))
                .isEqualTo(KeyEncoding.encodePartitionPrefix(9, key.partitionKey()).length);
    }

    @Test
    void shouldRefuseInvalidKeyValuesWhenEncoding() {
        assertThatThrownBy(() -> KeyEncoding.encodeKey(1, AttributeValue.s(""), null))
                .isInstanceOf(ValidationException.class).hasMessageContaining("partition key must not be empty");
        assertThatThrownBy(() -> KeyEncoding.encodeKey(1, AttributeValue.s("a"), AttributeValue.b(new byte[0])))
                .isInstanceOf(ValidationException.class).hasMessageContaining("sort key must not be empty");
        assertThatThrownBy(() -> KeyEncoding.encodeKey(1, AttributeValue.bool(true), null))
                .isInstanceOf(ValidationException.class).hasMessageContaining("BOOL");
        assertThatThrownBy(() -> KeyEncoding.encodeKey(-1, AttributeValue.s("a"), null))
                .isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> KeyEncoding.encodeSortKeyPrefix(1, AttributeValue.s("a"), AttributeValue.n(1)))
                .isInstanceOf(ValidationException.class);
    }

    @Test
    void shouldRefuseMalformedKeysWithFileAndOffset() {
        Object[][] cases = {
            {"000001", Type.S, null, 3, "truncated"},
            {"80000000 02 41 0001", Type.S, null, 0, "negative table id"},
            {"00000001 07 41 0001", Type.S, null, 4, "unknown key type byte"},
            {"00000001 02 41 0002", Type.S, null, 6, "escape byte 00 followed by 0x2"},
            {"00000001 02 41 00ff", Type.S, null, 8, "truncated"},
            {"00000001 02 0001", Type.S, null, 4, "partition key is empty"},
            {"00000001 01 41 0001", Type.S, null, 4, "of type B, the schema says S"},
            {"00000001 02 c080 0001", Type.S, null, 4, "malformed UTF-8"},
            {"00000001 02 41 0001 04 04", Type.S, Type.N, 9, "after the end of the key"},
            {"00000001 02 41 0001", Type.S, Type.N, 8, "truncated"},
            {"00000001 05 82 00", Type.N, null, 6, "leading zero"},
        };
        for (Object[] c : cases) {
            byte[] bytes = HexFormat.of().parseHex(((String) c[0]).replace(" ", ""));
            assertThatThrownBy(() -> KeyEncoding.decodeKey(bytes, 0, bytes.length, (Type) c[1], (Type) c[2], "f.sst", 50))
                    .as("decoding %s", c[0])
                    .isInstanceOfSatisfying(CorruptionException.class, e -> {
                        assertThat(e.file()).isEqualTo("f.sst");
                        assertThat(e.offset()).as("offset for %s: %s", c[0], e.getMessage()).isEqualTo(50L + (int) c[3]);
                        assertThat(e.getMessage()).contains((String) c[4]);
                    });
        }
        assertThatThrownBy(() -> KeyEncoding.decodeKey(new byte[8], Type.BOOL, null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static void assertStrictlyIncreasing(List<byte[]> encoded, List<?> values) {
        for (int i = 1; i < encoded.size(); i++) {
            assertThat(Arrays.compareUnsigned(encoded.get(i - 1), encoded.get(i)))
                    .as("%s < %s", values.get(i - 1), values.get(i)).isNegative();
        }
    }
}
