package dev.lacuna.item;

import dev.lacuna.AttributeValue;
import dev.lacuna.Item;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Seeded generators of numbers, strings, binaries and items for the property tests. The generators lean
 * towards the cases that break order-preserving encodings: values that share long prefixes, strings and
 * binaries full of 0x00 and 0xFF, code points on both sides of the surrogate range, numbers at the ends
 * of DynamoDB's range and numbers that differ in their last digit.
 */
final class RandomValues {
    static final BigDecimal MAX = new BigDecimal("9.9999999999999999999999999999999999999E+125");
    static final BigDecimal MIN = new BigDecimal("1E-130");
    private static final BigDecimal[] EDGES = {
        BigDecimal.ZERO, BigDecimal.ONE, BigDecimal.TEN, new BigDecimal("0.1"), new BigDecimal("99"),
        new BigDecimal("100"), new BigDecimal("0.99"), MIN, MAX, new BigDecimal("1E+125"),
        new BigDecimal("9.9E-130"), new BigDecimal("12345678901234567890123456789012345678"),
        new BigDecimal("0.12345678901234567890123456789012345678"),
    };
    private static final int[] CODE_POINTS = {
        0x00, 0x01, 0x7F, 0x80, 0xFF, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF,
    };

    private final Random random;

    RandomValues(long seed) {
        random = new Random(seed);
    }

    Random random() {
        return random;
    }

    // ---- numbers ----

    /** A valid DynamoDB number: up to 38 digits, any sign, exponent anywhere in the range. */
    BigDecimal number() {
        int kind = random.nextInt(10);
        BigDecimal v;
        if (kind == 0) {
            v = EDGES[random.nextInt(EDGES.length)];
        } else if (kind == 1) {
            v = BigDecimal.valueOf(random.nextInt(2001) - 1000);
        } else {
            int digits = 1 + random.nextInt(38);
            int exponent = -129 + random.nextInt(256); // value = 0.d1…dn × 10^exponent
            v = fromDigits(randomDigits(digits), exponent);
        }
        return random.nextBoolean() ? v.negate() : v;
    }

    /** A valid number near {@code v}: a digit changed, digits added or removed, or the exponent moved by one. */
    BigDecimal numberNear(BigDecimal v) {
        if (v.signum() == 0) {
            return number();
        }
        BigDecimal abs = v.abs().stripTrailingZeros();
        char[] digits = abs.unscaledValue().toString().toCharArray();
        int exponent = digits.length - abs.scale();
        String d = new String(digits);
        switch (random.nextInt(5)) {
            case 0 -> {
                int i = random.nextInt(digits.length);
                digits[i] = (char) ('0' + random.nextInt(10));
                d = new String(digits);
            }
            case 1 -> {
                int room = 38 - d.length();
                if (room > 0) {
                    d = d + anyDigits(1 + random.nextInt(Math.min(3, room)));
                }
            }
            case 2 -> d = d.substring(0, 1 + random.nextInt(digits.length));
            case 3 -> exponent += random.nextBoolean() ? 1 : -1;
            default -> {
                return v.negate();
            }
        }
        if (d.isEmpty() || d.chars().allMatch(c -> c == '0')) {
            return v;
        }
        if (d.charAt(0) == '0') {
            d = "1" + d.substring(1);
        }
        exponent = Math.max(-129, Math.min(126, exponent));
        BigDecimal near = fromDigits(d, exponent);
        return v.signum() < 0 ? near.negate() : near;
    }

    private String randomDigits(int n) {
        StringBuilder sb = new StringBuilder(n);
        sb.append((char) ('1' + random.nextInt(9)));
        for (int i = 1; i < n; i++) {
            // runs of 0 and 9 make carries and trailing zeros likely
            int r = random.nextInt(4);
            sb.append(r == 0 ? '0' : r == 1 ? '9' : (char) ('0' + random.nextInt(10)));
        }
        return sb.toString();
    }

    private String anyDigits(int n) {
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            sb.append((char) ('0' + random.nextInt(10)));
        }
        return sb.toString();
    }

    /** {@code 0.digits × 10^exponent}. */
    static BigDecimal fromDigits(String digits, int exponent) {
        return new BigDecimal(new BigInteger(digits), digits.length() - exponent);
    }

    // ---- strings and binaries ----

    /** A string of 0 … 12 code points, from all UTF-8 lengths, often near the surrogate range. */
    String string() {
        int n = random.nextInt(13);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.appendCodePoint(codePoint());
        }
        return sb.toString();
    }

    private int codePoint() {
        switch (random.nextInt(6)) {
            case 0:
                return CODE_POINTS[random.nextInt(CODE_POINTS.length)];
            case 1:
                return 0x80 + random.nextInt(0x800 - 0x80);
            case 2: {
                int cp = 0x800 + random.nextInt(0x10000 - 0x800);
                return Character.isSurrogate((char) cp) ? 0xE000 + random.nextInt(0x2000) : cp;
            }
            case 3:
                return 0x10000 + random.nextInt(0x110000 - 0x10000);
            default:
                return random.nextInt(4) == 0 ? 0 : 'a' + random.nextInt(4);
        }
    }

    /** A string sharing a prefix with {@code s}: a prefix of it, it extended, or it with one code point changed. */
    String stringNear(String s) {
        int[] cps = s.codePoints().toArray();
        int keep = cps.length == 0 ? 0 : random.nextInt(cps.length + 1);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < keep; i++) {
            sb.appendCodePoint(cps[i]);
        }
        int extra = random.nextInt(3);
        for (int i = 0; i < extra; i++) {
            sb.appendCodePoint(codePoint());
        }
        return sb.toString();
    }

    /** 0 … 12 bytes, a third of them 0x00 or 0xFF. */
    byte[] bytes() {
        byte[] b = new byte[random.nextInt(13)];
        for (int i = 0; i < b.length; i++) {
            int r = random.nextInt(6);
            b[i] = (byte) (r == 0 ? 0x00 : r == 1 ? 0xFF : r == 2 ? 0x01 : random.nextInt(256));
        }
        return b;
    }

    /** Bytes sharing a prefix with {@code b}. */
    byte[] bytesNear(byte[] b) {
        byte[] head = Arrays.copyOf(b, random.nextInt(b.length + 1));
        byte[] tail = bytes();
        byte[] out = Arrays.copyOf(head, head.length + Math.min(tail.length, 3));
        System.arraycopy(tail, 0, out, head.length, out.length - head.length);
        return out;
    }

    static int compareUtf8(String a, String b) {
        return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    // ---- key values and items ----

    /** A key value of {@code type} (S, N or B), non-empty if {@code nonEmpty}. */
    AttributeValue keyValue(AttributeValue.Type type, boolean nonEmpty) {
        return switch (type) {
            case S -> {
                String s = string();
                yield AttributeValue.s(nonEmpty && s.isEmpty() ? "a" : s);
            }
            case N -> AttributeValue.n(number());
            case B -> {
                byte[] b = bytes();
                yield AttributeValue.b(nonEmpty && b.length == 0 ? new byte[] {0} : b);
            }
            default -> throw new IllegalArgumentException(type.toString());
        };
    }

    /** A key value of {@code type} near {@code v} (sharing a prefix or close in value), non-empty. */
    AttributeValue keyValueNear(AttributeValue v) {
        if (random.nextInt(4) == 0) {
            return v;
        }
        if (v instanceof AttributeValue.S s) {
            String near = stringNear(s.value());
            return AttributeValue.s(near.isEmpty() ? s.value() : near);
        }
        if (v instanceof AttributeValue.N n) {
            return AttributeValue.n(numberNear(n.value()));
        }
        byte[] near = bytesNear(((AttributeValue.B) v).value());
        return near.length == 0 ? v : AttributeValue.b(near);
    }

    /** An item of up to {@code attributes} attributes of every type, lists and maps nested up to {@code depth}. */
    Item item(int attributes, int depth) {
        Item.Builder b = Item.builder();
        int n = random.nextInt(attributes + 1);
        for (int i = 0; i < n; i++) {
            String name = string();
            b.put(name.isEmpty() ? "attr" + i : name, value(depth));
        }
        return b.build();
    }

    /** A value of any of the ten types; lists and maps hold values at most {@code depth} more levels down. */
    AttributeValue value(int depth) {
        int kind = random.nextInt(depth > 0 ? 10 : 8);
        return switch (kind) {
            case 0 -> AttributeValue.s(string());
            case 1 -> AttributeValue.n(number());
            case 2 -> AttributeValue.b(bytes());
            case 3 -> AttributeValue.bool(random.nextBoolean());
            case 4 -> AttributeValue.nul();
            case 5 -> {
                Set<String> set = new LinkedHashSet<>();
                int size = 1 + random.nextInt(4);
                while (set.size() < size) {
                    set.add(string());
                }
                yield new AttributeValue.SS(set);
            }
            case 6 -> {
                Set<BigDecimal> set = new LinkedHashSet<>();
                Set<BigDecimal> seen = new LinkedHashSet<>();
                int size = 1 + random.nextInt(4);
                while (set.size() < size) {
                    BigDecimal v = number();
                    if (seen.add(((AttributeValue.N) AttributeValue.n(v)).value())) {
                        set.add(v);
                    }
                }
                yield new AttributeValue.NS(set);
            }
            case 7 -> {
                Set<ByteBuffer> set = new LinkedHashSet<>();
                int size = 1 + random.nextInt(4);
                while (set.size() < size) {
                    set.add(ByteBuffer.wrap(bytes()));
                }
                yield new AttributeValue.BS(set);
            }
            case 8 -> {
                List<AttributeValue> list = new ArrayList<>();
                int size = random.nextInt(4);
                for (int i = 0; i < size; i++) {
                    list.add(value(depth - 1));
                }
                yield AttributeValue.l(list);
            }
            default -> {
                Map<String, AttributeValue> map = new LinkedHashMap<>();
                int size = random.nextInt(4);
                for (int i = 0; i < size; i++) {
                    map.put(string(), value(depth - 1));
                }
                yield AttributeValue.m(map);
            }
        };
    }
}
