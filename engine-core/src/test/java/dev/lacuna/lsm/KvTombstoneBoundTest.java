package dev.lacuna.lsm;

import dev.lacuna.kv.KvCursor;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.KvStats;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A queue: keys written in increasing order and deleted in the same order, 40 alive at any time. A scan
 * of the queue from its start — a reader does not know where the live part begins — must step over a
 * number of dead entries that does not grow with the history: measured after 10⁴, 10⁵ and 10⁶ deletions,
 * with no manual flush or compaction, right after the load (no reads during it). History size:
 * {@code -Dkv.queue.deletes=N}.
 */
class KvTombstoneBoundTest {
    private static final int OPEN = 40;
    private static final byte[] START = {'q'};
    private static final byte[] END = {'r'};

    static byte[] key(long i) {
        return ByteBuffer.allocate(9).put((byte) 'q').putLong(i).array();
    }

    @Test
    void shouldSkipABoundedNumberOfDeadEntriesWhateverTheHistory() {
        int maxDeletes = Integer.getInteger("kv.queue.deletes", 1_000_000);
        KvOptions options = KvOptions.builder().vfs(new MemVfs()).durability(Durability.NONE).build();
        Map<Integer, Long> skipped = new LinkedHashMap<>();
        try (LsmStore kv = LsmStore.open(Path.of("/queue"), options)) {
            byte[] value = new byte[32];
            long next = 0;
            long deleted = 0;
            for (int checkpoint = 10_000; checkpoint <= maxDeletes; checkpoint *= 10) {
                while (deleted < checkpoint) {
                    kv.put(key(next), value);
                    next++;
                    if (next > OPEN) {
                        kv.delete(key(deleted));
                        deleted++;
                    }
                }
                try (KvCursor queue = kv.scan(START, END, false, null)) {
                    int live = 0;
                    for (; queue.valid(); queue.next()) {
                        live++;
                    }
                    assertThat(live).isEqualTo(OPEN);
                    skipped.put(checkpoint, queue.deadEntriesSkipped());
                }
            }
            KvStats stats = kv.stats();
            System.out.println("queue scan dead entries skipped: " + skipped + " (deletions in files: "
                    + stats.deletionsInFiles() + ", flushes: " + stats.flushes() + ", compactions: " + stats.compactions() + ")");
        }
        // The backlog a scan can meet is at most the active memtable and the frozen ones waiting for their flush,
        // each with fewer than deadEntryTrigger put/delete pairs, (MAX_IMMUTABLES + 1) * 2 * trigger in all; what
        // is measured is far below (2 to 82), and the bound is a small multiple of that, so that a regression of a
        // few times fails. Nothing in it depends on the history's length.
        long bound = Math.min((WritePath.MAX_IMMUTABLES + 1) * 2L * options.deadEntryTrigger(), 512);
        assertThat(skipped.values()).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(bound));
    }
}
