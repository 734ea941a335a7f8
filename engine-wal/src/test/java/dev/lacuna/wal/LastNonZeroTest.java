package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The zero-tail scan's search for the last byte that is not zero, against a byte-by-byte scan. */
class LastNonZeroTest {
    private static final byte[] ZEROS = new byte[64 * 1024];

    @Test
    void allZerosHaveNone() {
        assertThat(WalReplay.lastNonZero(new byte[1000], 1000, ZEROS)).isEqualTo(-1);
        assertThat(WalReplay.lastNonZero(new byte[0], 0, ZEROS)).isEqualTo(-1);
    }

    @Test
    void findsTheLastNearTheStartTheMiddleAndTheEnd() {
        int n = 64 * 1024;
        for (int at : new int[] {0, 1, 63, 64, 65, 127, 128, 129, n / 2 - 1, n / 2, n / 2 + 1, n - 65, n - 64,
                n - 63, n - 2, n - 1}) {
            byte[] b = new byte[n];
            b[at] = 1;
            assertThat(WalReplay.lastNonZero(b, n, ZEROS)).as("only byte %d set", at).isEqualTo(at);
            b[0] = (byte) 0x80; // an earlier one does not hide it
            assertThat(WalReplay.lastNonZero(b, n, ZEROS)).as("bytes 0 and %d set", at).isEqualTo(at);
        }
    }

    @Test
    void agreesWithAByteByByteScan() {
        Random random = new Random(42);
        for (int round = 0; round < 2000; round++) {
            int n = random.nextInt(ZEROS.length + 1);
            byte[] b = new byte[n + random.nextInt(100)]; // bytes past n are not looked at
            for (int i = n; i < b.length; i++) {
                b[i] = 7;
            }
            int set = n == 0 ? 0 : random.nextInt(4);
            for (int k = 0; k < set; k++) {
                b[random.nextInt(n)] = (byte) (1 + random.nextInt(255));
            }
            int expected = -1;
            for (int i = n - 1; i >= 0; i--) {
                if (b[i] != 0) {
                    expected = i;
                    break;
                }
            }
            assertThat(WalReplay.lastNonZero(b, n, ZEROS)).as("round %d, %d bytes", round, n).isEqualTo(expected);
        }
    }
}
