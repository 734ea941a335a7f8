package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * Over the memory budget, the memtables already frozen count until their flushes end: a write must not freeze
 * another memtable while their flushes will bring memory back under it. Freezing the largest active memtable at
 * every write meanwhile froze memtables of a few entries one after another, until a partition held four and
 * its writes stalled behind flushes that had nothing to do with them (IndexLagBenchmark: 0.2–0.3 s stalls while
 * a table's four 64 MB memtables flushed). Here the tables' fsyncs are held, so that flushes do not end.
 */
class MemoryBudgetSwitchTest {
    private static final int BUDGET = 256 << 10;

    @Test
    void shouldNotFreezeTinyMemtablesWhileFrozenOnesFlush() throws Exception {
        ControlledVfs vfs = new ControlledVfs(new MemVfs(), ".sst");
        KvOptions options = KvOptions.builder().vfs(vfs).partitions(4).memtableBytes(1 << 20).memoryBudget(BUDGET)
                .durability(Durability.NONE).build();
        try (LsmStore kv = LsmStore.open(Path.of("/db"), options)) {
            vfs.hold(); // no flush ends from here on
            try {
                fillPastTheBudget(kv, vfs);
            } finally {
                vfs.release(); // before the close, which waits for the flushes
            }
        }
    }

    private static void fillPastTheBudget(LsmStore kv, ControlledVfs vfs) throws Exception {
        int i = 0;
        while (kv.stats().memtableBytes() <= BUDGET) {
            kv.put(b("key" + i++), new byte[1000]);
        }
        Db db = LsmInternals.db(kv);
        int first = i;
        CompletableFuture<Void> writes = CompletableFuture.runAsync(() -> {
            for (int k = first; k < first + 50; k++) {
                kv.put(b("key" + k), new byte[100]); // 5 KB more in all, past the budget
            }
        });
        try {
            writes.get(30, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            vfs.release();
            throw new AssertionError("writes stalled with " + LsmInternals.frozenMemtables(db) + " memtables frozen", e);
        }
        // Four partitions' memtables of ~64 KB each: freezing three brings the active ones under half the budget,
        // and the flushes of those three then bring memory under it. No more may be frozen.
        assertThat(LsmInternals.frozenMemtables(db)).as("memtables frozen while the first flushes run").isBetween(1, 3);
    }

    /**
     * Dead pairs freeze a memtable for the scans' sake, not memory's: while flushes are behind they must not freeze
     * memtable after memtable until the partition's writes stall (an index's updater, 1,024 deletions a switch,
     * behind a table's large flushes). Each key is put twice before its deletion, so that no pair is purged in
     * memory (only a put alone in the tree is).
     */
    @Test
    void shouldNotStallOnDeadPairsWhileFlushesAreBehind() throws Exception {
        ControlledVfs vfs = new ControlledVfs(new MemVfs(), ".sst");
        KvOptions options = KvOptions.builder().vfs(vfs).partitions(1).deadEntryTrigger(16)
                .durability(Durability.NONE).build();
        try (LsmStore kv = LsmStore.open(Path.of("/db"), options)) {
            Db db = LsmInternals.db(kv);
            vfs.hold(); // no flush ends from here on
            try {
                CompletableFuture<Void> writes = CompletableFuture.runAsync(() -> {
                    for (int k = 0; k < 16 * 8; k++) {
                        kv.put(b("live" + k), b("v")); // so that each flush writes a table, whose fsync is held
                        kv.put(b("key" + k), b("v"));
                        kv.put(b("key" + k), b("w"));
                        kv.delete(b("key" + k)); // a dead pair each
                    }
                });
                try {
                    writes.get(30, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    vfs.release();
                    throw new AssertionError("writes stalled with " + LsmInternals.frozenMemtables(db) + " memtables frozen", e);
                }
                assertThat(LsmInternals.frozenMemtables(db)).as("memtables frozen for dead pairs")
                        .isEqualTo(WritePath.MAX_FROZEN_FOR_DEAD_ENTRIES);
            } finally {
                vfs.release();
            }
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
