package dev.lacuna.item;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.AttributeValue.Type;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Seeded property tests of {@link KeyEncoding}: for many random pairs of values, the unsigned byte order
 * of the encodings is DynamoDB's order of the values, every encoding decodes to its value, and composite
 * keys order by partition key, then sort key, with partition prefixes that belong to their partition
 * only. A failure names its seed ({@link Seeds}).
 */
class KeyEncodingPropertyTest {
    private static final int CASES = Seeds.cases(100_000);

    @Test
    void shouldOrderNumbersByValueAndRoundTrip() {
        Seeds.check("number order", values -> {
            for (int i = 0; i < CASES; i++) {
                BigDecimal a = values.number();
                BigDecimal b = values.random().nextBoolean() ? values.numberNear(a) : values.number();
                byte[] ea = KeyEncoding.encodeValue(AttributeValue.n(a));
                byte[] eb = KeyEncoding.encodeValue(AttributeValue.n(b));
                assertThat(Integer.signum(Arrays.compareUnsigned(ea, eb)))
                        .as("order of %s and %s", a, b).isEqualTo(a.compareTo(b));
                assertThat(ea.length).as("length of %s", a).isLessThanOrEqualTo(NumberEncoding.MAX_BYTES);
                assertThat(KeyEncoding.decodeValue(ea)).as("round trip of %s", a).isEqualTo(AttributeValue.n(a));
            }
        });
    }

    @Test
    void shouldOrderStringsByUtf8BytesAndRoundTrip() {
        Seeds.check("string order", values -> {
            for (int i = 0; i < CASES; i++) {
                String a = values.string();
                String b = values.random().nextBoolean() ? values.stringNear(a) : values.string();
                byte[] ea = KeyEncoding.encodeValue(AttributeValue.s(a));
                byte[] eb = KeyEncoding.encodeValue(AttributeValue.s(b));
                assertThat(Integer.signum(Arrays.compareUnsigned(ea, eb)))
                        .as("order of \"%s\" and \"%s\"", a, b)
                        .isEqualTo(Integer.signum(RandomValues.compareUtf8(a, b)));
                assertThat(KeyEncoding.decodeValue(ea)).isEqualTo(AttributeValue.s(a));
            }
        });
    }

    @Test
    void shouldOrderBinariesUnsignedAndRoundTrip() {
        Seeds.check("binary order", values -> {
            for (int i = 0; i < CASES; i++) {
                byte[] a = values.bytes();
                byte[] b = values.random().nextBoolean() ? values.bytesNear(a) : values.bytes();
                byte[] ea = KeyEncoding.encodeValue(AttributeValue.b(a));
                byte[] eb = KeyEncoding.encodeValue(AttributeValue.b(b));
                assertThat(Integer.signum(Arrays.compareUnsigned(ea, eb)))
                        .as("order of %s and %s", Arrays.toString(a), Arrays.toString(b))
                        .isEqualTo(Integer.signum(Arrays.compareUnsigned(a, b)));
                assertThat(KeyEncoding.decodeValue(ea)).isEqualTo(AttributeValue.b(a));
            }
        });
    }

    @Test
    void shouldOrderCompositeKeysByTableThenPartitionThenSortKey() {
        Type[] keyTypes = {Type.S, Type.N, Type.B};
        Seeds.check("composite key order", values -> {
            for (int i = 0; i < CASES; i++) {
                Type pkType = keyTypes[values.random().nextInt(3)];
                int skChoice = values.random().nextInt(4);
                Type skType = skChoice == 3 ? null : keyTypes[skChoice];
                int table1 = values.random().nextInt(3);
                int table2 = values.random().nextInt(8) == 0 ? values.random().nextInt(3) : table1;
                AttributeValue pk1 = values.keyValue(pkType, true);
                AttributeValue pk2 = values.keyValueNear(pk1);
                AttributeValue sk1 = skType == null ? null : values.keyValue(skType, true);
                AttributeValue sk2 = skType == null ? null : values.keyValueNear(sk1);

                byte[] k1 = KeyEncoding.encodeKey(table1, pk1, sk1);
                byte[] k2 = KeyEncoding.encodeKey(table2, pk2, sk2);
                int expected = table1 != table2 ? Integer.compare(table1, table2)
                        : compare(pk1, pk2) != 0 ? compare(pk1, pk2)
                        : skType == null ? 0 : compare(sk1, sk2);
                assertThat(Integer.signum(Arrays.compareUnsigned(k1, k2)))
                        .as("order of (%s, %s, %s) and (%s, %s, %s)", table1, pk1, sk1, table2, pk2, sk2)
                        .isEqualTo(expected);

                // the partition prefix starts exactly the keys of its own partition
                byte[] prefix1 = KeyEncoding.encodePartitionPrefix(table1, pk1);
                boolean samePartition = table1 == table2 && pk1.equals(pk2);
                assertThat(startsWith(k2, prefix1)).as("prefix of (%s, %s) on (%s, %s)", table1, pk1, table2, pk2)
                        .isEqualTo(samePartition);
                assertThat(startsWith(k1, prefix1)).isTrue();
                assertThat(KeyEncoding.partitionPrefixLength(k1)).isEqualTo(prefix1.length);

                KeyEncoding.DecodedKey decoded = KeyEncoding.decodeKey(k1, pkType, skType);
                assertThat(decoded).isEqualTo(new KeyEncoding.DecodedKey(table1, pk1, sk1));
            }
        });
    }

    @Test
    void shouldMatchSortKeyPrefixesExactlyWhenTheSortKeyBeginsWithThem() {
        Seeds.check("begins_with prefix", values -> {
            for (int i = 0; i < CASES; i++) {
                AttributeValue pk = values.keyValue(Type.S, true);
                boolean strings = values.random().nextBoolean();
                AttributeValue sk = values.keyValue(strings ? Type.S : Type.B, true);
                AttributeValue prefix;
                boolean expected;
                if (strings) {
                    String s = ((AttributeValue.S) sk).value();
                    String p = values.random().nextBoolean() ? values.stringNear(s) : values.string();
                    prefix = AttributeValue.s(p);
                    expected = startsWith(s.getBytes(StandardCharsets.UTF_8), p.getBytes(StandardCharsets.UTF_8));
                } else {
                    byte[] b = ((AttributeValue.B) sk).value();
                    byte[] p = values.random().nextBoolean() ? values.bytesNear(b) : values.bytes();
                    prefix = AttributeValue.b(p);
                    expected = startsWith(b, p);
                }
                byte[] key = KeyEncoding.encodeKey(7, pk, sk);
                byte[] bound = KeyEncoding.encodeSortKeyPrefix(7, pk, prefix);
                assertThat(startsWith(key, bound)).as("%s begins with %s", sk, prefix).isEqualTo(expected);
            }
        });
    }

    private static int compare(AttributeValue a, AttributeValue b) {
        int c;
        if (a instanceof AttributeValue.S s) {
            c = RandomValues.compareUtf8(s.value(), ((AttributeValue.S) b).value());
        } else if (a instanceof AttributeValue.N n) {
            c = n.value().compareTo(((AttributeValue.N) b).value());
        } else {
            c = Arrays.compareUnsigned(((AttributeValue.B) a).value(), ((AttributeValue.B) b).value());
        }
        return Integer.signum(c);
    }

    static boolean startsWith(byte[] b, byte[] prefix) {
        return b.length >= prefix.length && Arrays.equals(b, 0, prefix.length, prefix, 0, prefix.length);
    }
}
