package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** The checksum arithmetic that finds a single flipped bit, against brute force. */
class TornTailTest {
    private static int crc(byte[] b) {
        CRC32C crc = new CRC32C();
        crc.update(b);
        return (int) crc.getValue();
    }

    @Test
    void shouldFindTheOneBitWhoseFlipExplainsAChecksumChange() {
        Random random = new Random(42);
        int checked = 0;
        for (int length : new int[] {1, 5, 16, 300, 4096}) {
            byte[] message = new byte[length];
            random.nextBytes(message);
            int original = crc(message);
            for (long bit = 0; bit < 8L * length; bit += 1 + random.nextInt(7)) {
                message[(int) (bit / 8)] ^= (byte) (1 << (bit % 8));
                assertThat(TornTail.coveredBitWithSyndrome(crc(message) ^ original, length)).isEqualTo(bit);
                message[(int) (bit / 8)] ^= (byte) (1 << (bit % 8));
                checked++;
            }
        }
        assertThat(checked).isGreaterThan(1000);
    }

    @Test
    void shouldFindNoBitForAChangeOfSeveralBits() {
        byte[] message = new byte[64];
        new Random(7).nextBytes(message);
        int original = crc(message);
        message[3] ^= 0x11;
        message[40] ^= 0x02;
        assertThat(TornTail.coveredBitWithSyndrome(crc(message) ^ original, message.length)).isEqualTo(-1);
    }
}
