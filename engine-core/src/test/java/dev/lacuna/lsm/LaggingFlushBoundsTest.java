package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.kv.KvCursor;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.storage.Durability;
import dev.lacuna.storage.RetryPolicy;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.MemVfs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What bounds memory and the dead-entry backlog while flushes fail (a full disk for tables), now that the budget
 * freezes an active memtable only while the active ones hold half of it and dead pairs wait for frozen memtables'
 * flushes (MemoryBudgetSwitchTest): a writer going from partition to partition filled every partition's memtables
 * (16 times the budget), and the dead pairs a scan steps over grew with the writes (3,072 for a trigger of 16). Both
 * written by review; both failed before writes waited for memory and dead pairs froze memtables while a flush is
 * retried.
 */
@Timeout(60)
class LaggingFlushBoundsTest {
    private static final RetryPolicy FAST = new RetryPolicy(Duration.ofMillis(1), Duration.ofMillis(20));
    private static final int BUDGET = 256 << 10;
    private static final int MEMTABLE = 64 << 10;
    private static final int PARTITIONS = 16;

    /**
     * Flushes fail (a full disk for tables) and the writes go to one partition at a time, until that partition's
     * writes are refused. Memory must stay near the budget: with the active memtables under half of it no freeze is
     * driven by the budget, so the writes wait (and are refused while the flushes are retried) for memory instead.
     */
    @Test
    void memoryStaysNearTheBudgetWhileFlushesFail() throws Exception {
        ControlledVfs vfs = new ControlledVfs(new MemVfs(), ".sst");
        KvOptions options = KvOptions.builder().vfs(vfs).partitions(PARTITIONS).memtableBytes(MEMTABLE)
                .memoryBudget(BUDGET).maxTotalLogSize(1L << 30).durability(Durability.NONE).retry(FAST).build();
        try (LsmStore kv = LsmStore.open(Path.of("/db"), options)) {
            Db db = LsmInternals.db(kv);
            List<List<byte[]>> keys = keysByPartition(db, 6 * MEMTABLE / 1000);
            vfs.failCreates(".sst");
            long max = 0;
            int refused = 0;
            try {
                for (int p = 0; p < PARTITIONS; p++) {
                    for (byte[] key : keys.get(p)) {
                        try {
                            kv.put(key, new byte[1000]);
                        } catch (StorageIOException e) {
                            refused++;
                            break; // this partition's flushes are behind and being retried: on to the next
                        }
                        max = Math.max(max, kv.stats().memtableBytes());
                    }
                }
            } finally {
                vfs.failCreates(null);
            }
            assertThat(refused).as("partitions whose writes were refused while their flushes are retried").isPositive();
            assertThat(max).as("memtable bytes with a budget of " + BUDGET).isLessThanOrEqualTo(2L * BUDGET);
        }
    }

    /**
     * A queue-like range (put, put again, delete: dead pairs the memory purge cannot drop) while flushes fail.
     * deadEntryTrigger keeps the backlog a scan drags bounded: while a flush is retried, two frozen memtables
     * waiting must not let the active one collect dead pairs up to memtableBytes.
     */
    @Test
    void deadEntryBacklogStaysBoundedWhileFlushesFail() throws Exception {
        int trigger = 16;
        ControlledVfs vfs = new ControlledVfs(new MemVfs(), ".sst");
        KvOptions options = KvOptions.builder().vfs(vfs).partitions(1).deadEntryTrigger(trigger)
                .tombstoneDensityTrigger(1.0).durability(Durability.NONE).retry(FAST).build();
        try (LsmStore kv = LsmStore.open(Path.of("/db"), options)) {
            vfs.failCreates(".sst");
            int written = 0;
            try {
                // The trigger's worth first, then an explicit flush: it freezes the memtable whole, and its flush
                // fails (a freeze for dead pairs carries the live keys on and writes no table, so its flush would not).
                // Until the store knows a flush is being retried, dead pairs wait for the frozen memtables like any
                // lagging flush's, so the bound holds from then on.
                for (int k = 0; k < trigger; k++) {
                    writeDeadPair(kv, k);
                    written++;
                }
                assertThatThrownBy(kv::flush).isInstanceOf(StorageIOException.class);
                assertThat(LsmInternals.db(kv).retryingError()).as("the store knows the flush is retried").isNotNull();
                for (int k = trigger; k < trigger * 64; k++) {
                    try {
                        writeDeadPair(kv, k);
                        written++;
                    } catch (StorageIOException e) {
                        break; // writes refused while the flushes are retried
                    }
                }
                long skipped;
                try (KvCursor c = kv.scan(b("key"), b("kez"), false, null)) {
                    for (; c.valid(); c.next()) {
                        // only dead entries in the range
                    }
                    skipped = c.deadEntriesSkipped();
                }
                assertThat(written).as("pairs written before writes were refused").isPositive();
                // Every memtable a partition may hold (MAX_IMMUTABLES frozen + the active one) at the trigger each.
                assertThat(skipped).as("dead entries one scan steps over, deadEntryTrigger " + trigger)
                        .isLessThanOrEqualTo(3L * (WritePath.MAX_IMMUTABLES + 1) * trigger);
            } finally {
                vfs.failCreates(null);
            }
        }
    }

    private static void writeDeadPair(LsmStore kv, int k) {
        kv.put(b(String.format("live%05d", k)), b("v")); // so that each flush writes a table
        kv.put(b(String.format("key%05d", k)), b("v"));
        kv.put(b(String.format("key%05d", k)), b("w"));
        kv.delete(b(String.format("key%05d", k))); // a dead pair
    }

    private static List<List<byte[]>> keysByPartition(Db db, int perPartition) {
        List<List<byte[]>> out = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            out.add(new ArrayList<>());
        }
        int full = 0;
        for (int n = 0; full < PARTITIONS; n++) {
            byte[] key = b("k" + n);
            List<byte[]> l = out.get(db.treeOf(key));
            if (l.size() < perPartition && l.add(key) && l.size() == perPartition) {
                full++;
            }
        }
        return out;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
