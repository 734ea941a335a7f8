package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.Durability;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * A reader refuses a record whose payload is over the largest one a writer accepts, at any length past it. The
 * limit is the reader's parameter here (1,000 bytes instead of 128 MiB), so that records of many 128-byte blocks
 * cross it; the check is the same. Before the fix the check ran only when the assembly array doubled, so a record
 * up to about twice the limit was assembled and returned (this test's 1,900-byte record was).
 */
class SegmentReaderPayloadLimitTest {
    private static final int LIMIT = 1_000;
    private static final WalOptions OPTIONS =
            WalOptions.defaults().withBlockSize(128).withSegmentSize(1 << 20).withPreallocate(4096);

    @Test
    void shouldReadARecordOfExactlyTheLargestPayload() throws Exception {
        MemVfs vfs = logOf(LIMIT);
        try (VfsFile file = segment(vfs)) {
            SegmentReader reader = new SegmentReader(file, SegmentHeader.read(file, 1), LIMIT);
            WalRecord record = reader.next(file.size());
            assertThat(record).isNotNull();
            assertThat(record.payload()).isEqualTo(filled(LIMIT));
        }
    }

    @Test
    void shouldRefuseEveryRecordLongerThanTheLargestPayload() throws Exception {
        for (int length : new int[] {LIMIT + 1, LIMIT + 100, 1_900, 2 * LIMIT + 50}) {
            MemVfs vfs = logOf(length);
            try (VfsFile file = segment(vfs)) {
                SegmentReader reader = new SegmentReader(file, SegmentHeader.read(file, 1), LIMIT);
                assertThatThrownBy(() -> reader.next(file.size()))
                        .as("a record of %d bytes", length)
                        .isInstanceOf(CorruptionException.class)
                        .hasMessageContaining("record longer than the largest payload");
                assertThat(reader.validEnd()).isEqualTo(WalFormat.HEADER_SIZE);
            }
        }
    }

    /** A log whose first record carries {@code length} bytes (the writer's own limit is 128 MiB). */
    private static MemVfs logOf(int length) throws Exception {
        MemVfs vfs = new MemVfs();
        try (Wal wal = Wal.open(vfs, WalTest.DIR, OPTIONS)) {
            wal.append(filled(length), Durability.NONE);
            wal.sync();
        }
        return vfs;
    }

    private static VfsFile segment(MemVfs vfs) throws Exception {
        return vfs.openReadOnly(WalTest.DIR.resolve(WalFormat.segmentName(1)));
    }

    private static byte[] filled(int length) {
        byte[] b = new byte[length];
        Arrays.fill(b, (byte) 7);
        return b;
    }
}
