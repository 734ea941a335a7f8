package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.storage.Durability;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.MemVfs;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link Wal#firstLsnWithin}: which records a log must keep to fit a size, counted from the newest segment
 * with each segment at its size on disk, while it is written, after a reopen (which learns the sizes of the
 * segments it recovers from their files) and after a trim.
 */
class WalSizeTest {
    private static final WalOptions OPTIONS = WalTest.SMALL.withPreallocate(0); // a file's size is what it holds

    @Test
    void shouldNameTheOldestSegmentThatFitsCountingFromTheNewest() throws IOException {
        MemVfs vfs = new MemVfs();
        try (Wal wal = Wal.open(vfs, WalTest.DIR, OPTIONS)) {
            for (int i = 0; i < 40; i++) {
                wal.append(WalTest.payload(i, 100), Durability.NONE); // 1,024-byte segments: several records each
            }
            checkEveryBudget(vfs, wal);
        }
        try (Wal wal = Wal.open(vfs, WalTest.DIR, OPTIONS)) {
            checkEveryBudget(vfs, wal);
            wal.append(WalTest.payload(99, 100), Durability.NONE);
            checkEveryBudget(vfs, wal);
            long keep = wal.firstLsnWithin(2 * OPTIONS.segmentSize());
            wal.deleteObsoleteSegments(keep - 1);
            assertThat(wal.firstLsn()).isEqualTo(keep);
            checkEveryBudget(vfs, wal);
        }
    }

    /**
     * For each k, a budget of exactly the newest k segments' sizes keeps those k (the newest always, even
     * with no budget), and a byte less keeps k - 1.
     */
    private static void checkEveryBudget(MemVfs vfs, Wal wal) throws IOException {
        List<Long> numbers = new ArrayList<>();
        for (String name : vfs.list(WalTest.DIR)) {
            long n = WalFormat.parseSegmentName(name);
            if (n >= 0) {
                numbers.add(n);
            }
        }
        numbers.sort(null);
        assertThat(numbers).isNotEmpty();
        long budget = 0;
        for (int k = 1; k <= numbers.size(); k++) {
            long number = numbers.get(numbers.size() - k);
            budget += vfs.size(WalTest.DIR.resolve(WalFormat.segmentName(number)));
            assertThat(wal.firstLsnWithin(budget)).as("the newest %d segments", k).isEqualTo(wal.firstLsnOf(number));
            long fewer = k == 1 ? number : numbers.get(numbers.size() - k + 1);
            assertThat(wal.firstLsnWithin(budget - 1)).as("a byte less than the newest %d", k)
                    .isEqualTo(wal.firstLsnOf(fewer));
        }
        assertThat(wal.firstLsnWithin(Long.MAX_VALUE)).isEqualTo(wal.firstLsn());
    }
}
