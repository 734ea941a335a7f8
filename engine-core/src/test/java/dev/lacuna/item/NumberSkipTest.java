package dev.lacuna.item;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.storage.CorruptionException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link NumberEncoding#skip}, which checks a number a query page leaves encoded, accepts exactly what
 * {@link NumberEncoding#decode} (and then {@code AttributeValue.N}) accepts, ends where it ends, and refuses
 * the rest with the same error at the same offset: a number skip accepted must decode later without failing.
 */
class NumberSkipTest {
    private static final int CASES = Seeds.cases(20_000);

    @Test
    void shouldAcceptAndRefuseExactlyWhatDecodingDoes() {
        Random random = new Random(7);
        int accepted = 0;
        int refused = 0;
        for (int i = 0; i < CASES; i++) {
            byte[] bytes = i % 3 == 0 ? randomBytes(random) : mutated(encoded(randomNumber(random)), random);
            if (compare(bytes)) {
                accepted++;
            } else {
                refused++;
            }
        }
        // both outcomes were compared many times: the test says something about each
        assertThat(accepted).isGreaterThan(CASES / 10);
        assertThat(refused).isGreaterThan(CASES / 10);
    }

    @Test
    void shouldStepOverEveryValidNumberAndTellZero() {
        Random random = new Random(9);
        for (int i = 0; i < CASES; i++) {
            BigDecimal value = i == 0 ? BigDecimal.ZERO : randomNumber(random);
            byte[] bytes = encoded(value);
            ByteIn in = new ByteIn(bytes, 0, bytes.length, "<test>", 0);
            assertThat(NumberEncoding.skip(in)).isEqualTo(value.signum() == 0);
            assertThat(in.atEnd()).isTrue();
        }
    }

    /** Runs both on {@code bytes}; returns whether they accepted it. */
    private static boolean compare(byte[] bytes) {
        ByteIn decoding = new ByteIn(bytes, 0, bytes.length, "<test>", 0);
        ByteIn skipping = new ByteIn(bytes, 0, bytes.length, "<test>", 0);
        CorruptionException decodeError = null;
        CorruptionException skipError = null;
        BigDecimal value = null;
        boolean zero = false;
        try {
            value = new AttributeValue.N(NumberEncoding.decode(decoding)).value();
        } catch (CorruptionException e) {
            decodeError = e;
        }
        try {
            zero = NumberEncoding.skip(skipping);
        } catch (CorruptionException e) {
            skipError = e;
        }
        String what = "bytes " + java.util.HexFormat.of().formatHex(bytes);
        if (decodeError != null) {
            assertThat(skipError).as(what).isNotNull();
            assertThat(skipError.getMessage()).as(what).isEqualTo(decodeError.getMessage());
            assertThat(skipError.offset()).as(what).isEqualTo(decodeError.offset());
            return false;
        }
        assertThat(skipError).as(what).isNull();
        assertThat(skipping.position()).as(what).isEqualTo(decoding.position());
        assertThat(zero).as(what).isEqualTo(value.signum() == 0);
        return true;
    }

    private static BigDecimal randomNumber(Random random) {
        int digits = 1 + random.nextInt(38);
        StringBuilder sb = new StringBuilder();
        sb.append((char) ('1' + random.nextInt(9)));
        for (int d = 1; d < digits; d++) {
            sb.append((char) ('0' + random.nextInt(10)));
        }
        int exponent = -129 + random.nextInt(256); // 0.d × 10^E
        BigDecimal v = new BigDecimal(new BigInteger(sb.toString()), digits - exponent);
        return random.nextBoolean() ? v : v.negate();
    }

    private static byte[] encoded(BigDecimal value) {
        ByteOut out = new ByteOut(32);
        NumberEncoding.encode(new AttributeValue.N(value).value(), out);
        return out.toByteArray();
    }

    private static byte[] mutated(byte[] bytes, Random random) {
        byte[] b = random.nextInt(4) == 0 ? Arrays.copyOf(bytes, random.nextInt(bytes.length + 1)) : bytes.clone();
        if (b.length > 0 && random.nextBoolean()) {
            b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
        }
        return b;
    }

    private static byte[] randomBytes(Random random) {
        byte[] b = new byte[random.nextInt(24)];
        random.nextBytes(b);
        if (b.length > 0 && random.nextInt(4) != 0) {
            b[0] = (byte) (3 + random.nextInt(3)); // a sign byte most of the time
        }
        return b;
    }
}
