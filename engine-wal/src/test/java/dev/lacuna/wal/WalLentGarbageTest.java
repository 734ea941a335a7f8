package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.storage.Durability;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.MemVfs;
import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;

/**
 * An open that lends its records ({@link LentRecords}) makes no array per record, one of many fragments included:
 * such a record was assembled in a new array growing from its first fragment's length, garbage three times its size
 * (found by a review: 192,606 bytes per record of 64 KiB in blocks of 4 KiB). Fixed costs cancel between opens of N
 * and 2N records.
 */
class WalLentGarbageTest {
    private static final WalOptions OPTIONS = WalOptions.defaults().withBlockSize(4096).withSegmentSize(64 << 20)
            .withPreallocate(0);

    /** The bytes this thread allocated so far (by reflection: this module does not read java.management). */
    private static long allocatedByThisThread() {
        try {
            Object bean = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean")
                    .invoke(null);
            Method allocated = Class.forName("com.sun.management.ThreadMXBean")
                    .getMethod("getCurrentThreadAllocatedBytes");
            return (long) allocated.invoke(bean);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("a JVM that counts each thread's allocation", e);
        }
    }

    private static MemVfs log(int records, int payload) {
        MemVfs vfs = new MemVfs();
        try (Wal wal = Wal.open(vfs, WalTest.DIR, OPTIONS)) {
            for (int i = 0; i < records; i++) {
                wal.append(WalTest.payload(i, payload), Durability.NONE);
            }
            wal.sync();
        }
        return vfs;
    }

    /**
     * Bytes allocated by an open lending {@code vfs}'s records (their bytes are WalOpenReplayTest's to compare:
     * comparing here would allocate what is measured).
     */
    private static long openLending(MemVfs vfs, int records, int payload) {
        long[] lent = new long[1];
        long before = allocatedByThisThread();
        try (Wal wal = Wal.open(vfs, WalTest.DIR, OPTIONS, log -> { }, 1, size -> { },
                (lsn, bytes, from, length) -> lent[0] += length)) {
            assertThat(wal.lastLsn()).isEqualTo(records);
        }
        long allocated = allocatedByThisThread() - before;
        assertThat(lent[0]).as("bytes lent").isEqualTo((long) records * payload);
        return allocated;
    }

    private static long perRecord(int n, int payload) {
        MemVfs small = log(n, payload);
        MemVfs large = log(2 * n, payload);
        for (int warm = 0; warm < 3; warm++) {
            openLending(small.crashClone(), n, payload);
            openLending(large.crashClone(), 2 * n, payload);
        }
        long best = Long.MAX_VALUE; // the least of three: a stray allocation (a JIT's, a class's) adds, never removes
        for (int round = 0; round < 3; round++) {
            best = Math.min(best, (openLending(large.crashClone(), 2 * n, payload)
                    - openLending(small.crashClone(), n, payload)) / n);
        }
        return best;
    }

    @Test
    void shouldMakeNoArrayPerLentRecordOfOneFragmentOrMany() {
        long oneFragment = perRecord(400, 1_000);
        long manyFragments = perRecord(100, 64 * 1024);
        System.out.printf("garbage per lent record: 1,000-byte records %,d bytes; 64 KiB records %,d bytes%n",
                oneFragment, manyFragments);
        assertThat(manyFragments).as("bytes allocated per lent record of 64 KiB (blocks of 4 KiB)").isLessThan(1_024);
        assertThat(oneFragment).as("bytes allocated per lent record of 1,000 bytes").isLessThan(256);
    }
}
