package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The records a replay hands to one decoding task, copied one after another into one array it reuses. */
class ReplayBatchTest {
    private static byte[] payload(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i);
        }
        return b;
    }

    @Test
    void shouldHoldEachPayloadCopiedFromTheRangeItWasLentIn() {
        ReplayBatch batch = new ReplayBatch();
        byte[] lent = new byte[100_000];
        for (int r = 0; r < 10; r++) {
            byte[] p = payload(r * 1_000, r);
            System.arraycopy(p, 0, lent, 7 * r, p.length);
            batch.add(100 + r, lent, 7 * r, p.length);
            Arrays.fill(lent, (byte) -1); // the log reuses its memory once the call returns
        }
        assertThat(batch.count()).isEqualTo(10);
        for (int r = 0; r < 10; r++) {
            assertThat(batch.lsn(r)).isEqualTo(100 + r);
            assertThat(batch.length(r)).isEqualTo(r * 1_000);
            assertThat(Arrays.copyOfRange(batch.bytes(), batch.from(r), batch.from(r) + batch.length(r)))
                    .isEqualTo(payload(r * 1_000, r));
        }
    }

    @Test
    void shouldBeFullAtItsRecordCountOrItsBytes() {
        ReplayBatch byCount = new ReplayBatch();
        for (int r = 0; r < ReplayBatch.RECORDS; r++) {
            assertThat(byCount.full()).isFalse();
            byCount.add(r + 1, new byte[10], 0, 10);
        }
        assertThat(byCount.full()).isTrue();

        ReplayBatch byBytes = new ReplayBatch();
        byte[] big = payload(ReplayBatch.BYTES / 3 + 1, 5);
        for (int r = 0; r < 3; r++) {
            assertThat(byBytes.full()).isFalse();
            byBytes.add(r + 1, big, 0, big.length);
        }
        assertThat(byBytes.full()).as("past %d bytes in 3 records", ReplayBatch.BYTES).isTrue();
        for (int r = 0; r < 3; r++) {
            assertThat(Arrays.copyOfRange(byBytes.bytes(), byBytes.from(r), byBytes.from(r) + byBytes.length(r)))
                    .isEqualTo(big);
        }
    }

    @Test
    void shouldStartEmptyOnceClearedAndNotBeKeptOnceGrownForALargeRecord() {
        ReplayBatch batch = new ReplayBatch();
        batch.add(1, payload(50, 1), 0, 50);
        assertThat(batch.clear()).as("kept").isTrue();
        assertThat(batch.count()).isZero();
        batch.add(2, payload(60, 2), 0, 60);
        assertThat(batch.from(0)).isZero();
        assertThat(Arrays.copyOfRange(batch.bytes(), 0, 60)).isEqualTo(payload(60, 2));

        batch.add(3, new byte[200_000], 0, 200_000);
        batch.add(4, new byte[200_000], 0, 200_000); // records up to BYTES: a batch under KEPT_BYTES, kept
        assertThat(batch.bytes().length).isLessThanOrEqualTo(ReplayBatch.KEPT_BYTES);
        assertThat(batch.clear()).as("kept after records of 200 KB").isTrue();
        batch.add(5, payload(60, 5), 0, 60);
        batch.add(3, new byte[5 << 20], 0, 5 << 20); // a record of 5 MB
        assertThat(batch.length(1)).isEqualTo(5 << 20);
        assertThat(batch.clear()).as("a 5 MB array is not kept for the rest of the replay").isFalse();
    }
}
