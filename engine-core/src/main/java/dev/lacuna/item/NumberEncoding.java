package dev.lacuna.item;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * The order-preserving, self-delimiting encoding of a DynamoDB number (layout in {@code FORMAT.md},
 * "Numbers"). The idea is SQLite4's key encoding of numbers (also CockroachDB's decimal key encoding):
 * write the value as {@code ±0.d₁d₂…dₙ × 10^E} with {@code d₁ ≠ 0} and {@code dₙ ≠ 0}, then a sign byte,
 * the exponent, and the digits two at a time ("centimal digits"), each pair {@code X} stored as
 * {@code 2X+1} when more follow and {@code 2X} for the last one. For a fixed sign and exponent, comparing
 * the pair bytes compares the digit strings, and a shorter string that is a prefix of a longer one ends
 * with an even byte where the longer one has the odd byte one above, so it sorts first — as its value
 * does. Negative numbers store the exponent and pairs inverted, which reverses their order.
 *
 * <p>DynamoDB's range makes this compact: 1E-130 is 0.1 × 10^-129 and 9.99…E+125 is 0.99… × 10^126, so
 * {@code E + 129} is one byte, and 38 digits are 19 pairs: at most 21 bytes.
 */
final class NumberEncoding {
    static final int TAG_NEGATIVE = 0x03;
    static final int TAG_ZERO = 0x04;
    static final int TAG_POSITIVE = 0x05;

    static final int EXPONENT_BIAS = 129;
    static final int MIN_EXPONENT = -129;
    static final int MAX_EXPONENT = 126;
    static final int MAX_DIGITS = 38;
    static final int MAX_PAIRS = MAX_DIGITS / 2;
    /** Digits that always fit in a long (10¹⁸ − 1 < 2⁶³). */
    private static final int MAX_LONG_DIGITS = 18;
    /** 10<sup>i</sup> for the powers a whole number of up to {@value #MAX_LONG_DIGITS} digits may need. */
    private static final long[] LONG_TEN_POWERS = new long[MAX_LONG_DIGITS + 1];

    static {
        LONG_TEN_POWERS[0] = 1;
        for (int i = 1; i < LONG_TEN_POWERS.length; i++) {
            LONG_TEN_POWERS[i] = LONG_TEN_POWERS[i - 1] * 10;
        }
    }

    /** Bytes of the longest encoding: sign, exponent, 19 pairs. */
    static final int MAX_BYTES = 2 + MAX_PAIRS;

    private NumberEncoding() {
    }

    /**
     * Appends the encoding of {@code value}, which must be a valid DynamoDB number (as every
     * {@code AttributeValue.N} is).
     *
     * @throws IllegalArgumentException if it has more than 38 significant digits or is out of range
     */
    static void encode(BigDecimal value, ByteOut out) {
        int sign = value.signum();
        if (sign == 0) {
            out.write(TAG_ZERO);
            return;
        }
        BigDecimal v = value.stripTrailingZeros();
        String digits = v.unscaledValue().abs().toString();
        long exponent = (long) digits.length() - v.scale();
        if (digits.length() > MAX_DIGITS || exponent < MIN_EXPONENT || exponent > MAX_EXPONENT) {
            throw new IllegalArgumentException("not a DynamoDB number: " + value);
        }
        int mask = sign < 0 ? 0xFF : 0;
        out.write(sign < 0 ? TAG_NEGATIVE : TAG_POSITIVE);
        out.write(((int) exponent + EXPONENT_BIAS) ^ mask);
        for (int i = 0; i < digits.length(); i += 2) {
            int hi = digits.charAt(i) - '0';
            int lo = i + 1 < digits.length() ? digits.charAt(i + 1) - '0' : 0;
            boolean last = i + 2 >= digits.length();
            out.write(((hi * 10 + lo) * 2 + (last ? 0 : 1)) ^ mask);
        }
    }

    /**
     * Checks one encoded number starting at the sign byte as {@link #decode} would, and steps over it without
     * making its value: it throws exactly where and as {@link #decode} throws, and accepts exactly what it
     * accepts (NumberSkipTest holds the two together), so a value checked here and decoded later cannot fail.
     * Every exponent byte is in DynamoDB's range, so the value is a valid {@code AttributeValue.N} too.
     *
     * @return whether the number is zero
     */
    static boolean skip(ByteIn in) {
        int mask = sign(in);
        if (mask < 0) {
            return true;
        }
        in.u8(); // the exponent: every byte is one in range
        for (int pairs = 0; ; pairs++) {
            if ((pair(in, mask, pairs) & 1) == 0) {
                return false;
            }
        }
    }

    /**
     * Reads the sign byte: -1 for zero (the whole number), otherwise the mask its exponent and pairs are stored
     * under (0xFF for a negative number, inverted).
     */
    private static int sign(ByteIn in) {
        int tagAt = in.position();
        int tag = in.u8();
        if (tag == TAG_ZERO) {
            return -1;
        }
        if (tag != TAG_NEGATIVE && tag != TAG_POSITIVE) {
            throw in.corrupt(tagAt, "unknown number sign byte 0x" + Integer.toHexString(tag));
        }
        return tag == TAG_NEGATIVE ? 0xFF : 0;
    }

    /**
     * Reads digit pair number {@code pairs} (from 0) and checks it: at most {@link #MAX_PAIRS}, at most 99, the first
     * without a leading zero, the last not 00. Returns the byte unmasked: the pair shifted left one, and 1 if more
     * pairs follow.
     */
    private static int pair(ByteIn in, int mask, int pairs) {
        int at = in.position();
        if (pairs == MAX_PAIRS) {
            throw in.corrupt(at, "number has more than " + MAX_DIGITS + " digits");
        }
        int b = in.u8() ^ mask;
        int pair = b >>> 1;
        if (pair > 99) {
            throw in.corrupt(at, "number digit pair " + pair + " is above 99");
        }
        if (pairs == 0 && pair < 10) {
            throw in.corrupt(at, "number has a leading zero digit");
        }
        if ((b & 1) == 0 && pair == 0) {
            throw in.corrupt(at, "number ends with a zero digit pair");
        }
        return b;
    }

    /**
     * Reads one encoded number starting at the sign byte. Rejects everything {@link #encode} would not
     * write — an unknown sign byte, a pair above 99, a leading zero digit, a last pair of 00, more than
     * 38 digits — so every accepted encoding is the unique encoding of its value. A whole number of up to
     * 18 digits comes back with scale 0, as {@code AttributeValue.N} holds it; other values are equal to
     * the number by {@code compareTo} and are normalised by {@code AttributeValue.N}. Each digit pair is one
     * byte, so the significant digits of a value decoded from {@code b} bytes round up to {@code 2(b - 2)}.
     */
    static BigDecimal decode(ByteIn in) {
        int mask = sign(in);
        if (mask < 0) {
            return BigDecimal.ZERO;
        }
        int exponent = (in.u8() ^ mask) - EXPONENT_BIAS;
        // Up to 18 digits (every count, timestamp and price) are gathered in a long and need no string and no
        // BigInteger parse; from the 19th digit on they go to a char array, the long's digits first.
        long small = 0;
        char[] digits = null;
        int n = 0;
        for (int pairs = 0; ; pairs++) {
            int b = pair(in, mask, pairs);
            int pair = b >>> 1;
            if (digits == null && n + 2 <= MAX_LONG_DIGITS) {
                small = small * 100 + pair;
            } else {
                if (digits == null) {
                    digits = new char[MAX_DIGITS];
                    Long.toString(small).getChars(0, n, digits, 0); // exactly n digits: the first is not zero
                }
                digits[n] = (char) ('0' + pair / 10);
                digits[n + 1] = (char) ('0' + pair % 10);
            }
            n += 2;
            if ((b & 1) == 0) {
                if (pair % 10 == 0) {
                    n--; // an odd number of digits: the last pair is "d0"
                    if (digits == null) {
                        small /= 10;
                    }
                }
                break;
            }
        }
        boolean negative = mask != 0;
        BigDecimal magnitude;
        if (digits != null) {
            magnitude = new BigDecimal(new BigInteger(new String(digits, 0, n)), n - exponent);
        } else if (exponent > n && exponent <= MAX_LONG_DIGITS) {
            // A whole number with trailing zeros, as AttributeValue.N holds it (scale 0), so that its
            // normalisation has nothing to strip and no second and third BigDecimal to make.
            magnitude = BigDecimal.valueOf(small * LONG_TEN_POWERS[exponent - n], 0);
        } else {
            magnitude = BigDecimal.valueOf(small, n - exponent);
        }
        return negative ? magnitude.negate() : magnitude;
    }
}
