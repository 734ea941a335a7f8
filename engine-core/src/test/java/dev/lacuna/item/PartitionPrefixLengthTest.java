package dev.lacuna.item;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.storage.CorruptionException;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link KeyEncoding#partitionPrefixLength} answers plain keys (an ASCII string or a binary without zero bytes)
 * without decoding them; on any key it must answer as decoding does, or fail as decoding does.
 */
class PartitionPrefixLengthTest {
    /** Bytes that matter to the encoding: escape, terminator, escaped zero, ASCII, past ASCII, and the tags. */
    private static final int[] ALPHABET = {0x00, 0x01, 0x02, 0x03, 0x41, 0x7F, 0x80, 0xC3, 0xA9, 0xFF};

    @Test
    void shouldAnswerAsDecodingDoesOnAnyKey() {
        Random random = new Random(5);
        for (int round = 0; round < 50_000; round++) {
            byte[] key = new byte[random.nextInt(16)];
            for (int i = 0; i < key.length; i++) {
                key[i] = (byte) ALPHABET[random.nextInt(ALPHABET.length)];
            }
            if (key.length > 0 && random.nextBoolean()) {
                key[0] &= 0x7F; // mostly a valid table id
            }
            if (key.length > 4 && random.nextInt(4) > 0) {
                key[4] = (byte) (random.nextBoolean() ? KeyEncoding.TAG_S : KeyEncoding.TAG_B);
            }
            assertThat(outcome(() -> KeyEncoding.partitionPrefixLength(key)))
                    .as("key %s", Arrays.toString(key))
                    .isEqualTo(outcome(() -> KeyEncoding.decodedPartitionPrefixLength(key)));
        }
    }

    private static String outcome(java.util.function.IntSupplier f) {
        try {
            return "length " + f.getAsInt();
        } catch (CorruptionException e) {
            return "corrupt: " + e.getMessage();
        }
    }
}
