package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvStoreTest.DIR;
import static dev.lacuna.lsm.KvStoreTest.b;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvCursor;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import org.junit.jupiter.api.Test;

/**
 * A scan that steps over {@code deadEntryTrigger} dead entries or more freezes the memtable of the partition it
 * read (when that memtable is big enough to be where the backlog sits) and counts a scan-triggered flush; one
 * that steps over fewer, or finds the backlog in files behind a small memtable, does not. Asserted on the
 * counter, at the threshold and one below it, so that neither a trigger that never fires nor one that fires on
 * every scan passes.
 *
 * <p>The dead entries are deletions in the memtable of puts already in a table: they are not put/delete pairs
 * of one memtable, so the write path's own dead-pair trigger stays quiet and only the scan can react.
 */
class ScanTriggeredFlushTest {
    private static final int TRIGGER = 100;
    private static final int KEYS = 50;

    private static KvOptions options() {
        return KvOptions.builder().vfs(new MemVfs()).durability(Durability.NONE).deadEntryTrigger(TRIGGER)
                .tombstoneDensityTrigger(1.0).build(); // no compaction merges the backlog away under the scans
    }

    private static byte[] key(String prefix, int i) {
        return b(String.format("%s%04d", prefix, i));
    }

    /** Scans [a, b) to its end; returns the dead entries skipped. */
    private static long scanQueue(LsmStore kv, int live) {
        try (KvCursor c = kv.scan(b("a"), b("b"), false, null)) {
            int n = 0;
            for (; c.valid(); c.next()) {
                n++;
            }
            assertThat(n).isEqualTo(live);
            return c.deadEntriesSkipped();
        }
    }

    @Test
    void shouldFlushWhenAScanStepsOverTheTriggerAndNotOneBelowIt() {
        long[] scanTriggered = new long[2];
        long[] skippedAt = new long[2];
        for (int deleted : new int[] {TRIGGER / 2 - 1, TRIGGER / 2}) { // 98 and 100 dead entries
            try (LsmStore kv = LsmStore.open(DIR, options())) {
                for (int i = 0; i < KEYS; i++) {
                    kv.put(key("a", i), b("ticket"));
                }
                kv.flush();
                for (int i = 0; i < deleted; i++) {
                    kv.delete(key("a", i));
                }
                for (int i = 0; i < 2 * TRIGGER; i++) {
                    kv.put(key("z", i), b("elsewhere")); // a memtable large enough to be worth freezing
                }
                long flushesBefore = kv.stats().flushes();
                long skipped = scanQueue(kv, KEYS - deleted);
                assertThat(skipped).as("a deletion and the put it hides, each").isEqualTo(2L * deleted);
                long triggered = kv.stats().scanTriggeredFlushes();
                assertThat(triggered).as("scan-triggered flushes after skipping %d (trigger %d)", skipped, TRIGGER)
                        .isEqualTo(skipped >= TRIGGER ? 1 : 0);
                scanTriggered[deleted - (TRIGGER / 2 - 1)] = triggered;
                skippedAt[deleted - (TRIGGER / 2 - 1)] = skipped;
                kv.put(b("late"), b("one write after the scan"));
                kv.flush(); // waits for the frozen memtable too, if the scan froze one
                // A frozen memtable is one flush more than the manual one alone would make.
                assertThat(kv.stats().flushes() - flushesBefore).isEqualTo(1 + triggered);
                // A freeze for dead entries carries the live keys on and flushes the deletions alone: that table is
                // all deletions, and a compaction may have merged it with the puts' already.
                long again = scanQueue(kv, KEYS - deleted);
                if (triggered == 0) {
                    assertThat(again).as("the same scan after the flush").isEqualTo(2L * deleted);
                } else {
                    assertThat(again).as("the same scan after the flushes (compacted away, or not yet)")
                            .isIn(0L, 2L * deleted);
                }
                assertThat(kv.stats().scanTriggeredFlushes()).as("frozen only once the backlog is in memory")
                        .isEqualTo(triggered);
            }
        }
        System.out.println("scan-triggered flushes: " + scanTriggered[0] + " at " + skippedAt[0] + " dead entries, "
                + scanTriggered[1] + " at " + skippedAt[1] + " (trigger " + TRIGGER + ")");
    }

    @Test
    void shouldNotFreezeASmallMemtableWhenTheBacklogIsInFiles() {
        try (LsmStore kv = LsmStore.open(DIR, options())) {
            for (int i = 0; i < KEYS; i++) {
                kv.put(key("a", i), b("ticket"));
            }
            kv.flush();
            for (int i = 0; i < KEYS; i++) {
                kv.delete(key("a", i));
                kv.put(key("m", i), b("keeps the file's deletion density at one half"));
            }
            kv.flush(); // the deletions in a table too
            for (int i = 0; i < 10; i++) {
                kv.put(key("z", i), b("a small memtable"));
            }
            long skipped = scanQueue(kv, 0);
            assertThat(skipped).isEqualTo(2L * KEYS).isGreaterThanOrEqualTo(TRIGGER);
            assertThat(kv.stats().scanTriggeredFlushes()).as("10 entries in the memtable, below half the trigger")
                    .isZero();
        }
    }
}
