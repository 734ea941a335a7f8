package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import dev.lacuna.storage.RetryPolicy;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.FaultyVfs;
import dev.lacuna.vfs.FaultyVfs.Op;
import dev.lacuna.vfs.MemVfs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fsyncgate across the whole store: each fsync of a run (log, tables, manifest, {@code CURRENT}) fails in
 * turn, and as on Linux the writes it was to make durable are dropped from the disk while the process still
 * reads them ({@link FaultyVfs#failedForceDropsWrites}). The store carries on (the log rewrites its tail, a
 * failed flush is retried with a new table, a failed manifest append starts a new manifest); after a power
 * loss every acknowledged write must be there. A writer that took a later fsync's success for its own
 * would lose the dropped bytes and fail here.
 */
@Timeout(300)
class FsyncgateCampaignTest {
    private static final Path DIR = Path.of("/db");
    private static final RetryPolicy FAST = new RetryPolicy(Duration.ofMillis(1), Duration.ofMillis(20));
    private static final int ROUND = 60;

    @Test
    void shouldKeepEveryAcknowledgedWriteWhenAnyFsyncFailsAndDropsItsPages() {
        long forces = run(0).forces();
        assertThat(forces).as("fsyncs in a run without faults").isGreaterThan(10);
        int failedRuns = 0;
        Map<String, Integer> failedByKind = new java.util.TreeMap<>();
        List<String> lost = new ArrayList<>();
        for (long n = 1; n <= forces; n++) {
            Outcome outcome = run(n);
            if (outcome.injected() > 0) {
                failedRuns++;
                failedByKind.merge(kind(outcome.failed()), 1, Integer::sum);
            }
            if (!outcome.lost().isEmpty()) {
                lost.add("fsync #" + n + " (" + outcome.failed() + "): " + outcome.lost());
            }
        }
        System.out.println("[fsyncgate] fsyncs failed in turn: " + forces + ", runs where one failed: " + failedRuns
                + " " + failedByKind + ", runs that lost acknowledged writes: " + lost.size());
        assertThat(failedByKind).as("fsyncs failed, by file").containsKeys("log", "table", "manifest");
        // Background compactions make the count vary a little from run to run; the last few may not be reached.
        assertThat(failedRuns).as("runs in which the chosen fsync was reached and failed")
                .isGreaterThanOrEqualTo((int) (forces * 9 / 10));
        assertThat(lost).as("acknowledged writes lost after a power loss").isEmpty();
    }

    /** One run with fsync {@code n} failing (none if 0): puts, flushes, a compaction, a power loss, a reopen. */
    private static Outcome run(long n) {
        MemVfs mem = new MemVfs();
        FaultyVfs vfs = new FaultyVfs(mem);
        vfs.failedForceDropsWrites(true);
        Map<String, String> acknowledged = new LinkedHashMap<>();
        MemVfs afterPowerLoss;
        KvOptions options = KvOptions.builder().vfs(vfs).durability(Durability.SYNC).retry(FAST)
                .l0CompactionTrigger(2).build();
        LsmStore kv = LsmStore.open(DIR, options);
        long opened = vfs.count(Op.FORCE);
        try {
            if (n > 0) {
                vfs.failNth(Op.FORCE, n);
            }
            // Unsynced writes between synced ones: a synced write acknowledges every earlier one (the log is
            // durable as a prefix), so a dropped page holding an unsynced write loses an acknowledged one.
            Map<String, String> unsynced = new LinkedHashMap<>();
            for (int round = 0; round < 4; round++) {
                for (int i = 0; i < ROUND; i++) {
                    String key = "key" + (i * 7 % ROUND);
                    String value = "v" + round + "-" + i;
                    boolean sync = i % 5 == 4;
                    acknowledged.remove(key); // until this write is acknowledged, its old value or the new one
                    unsynced.remove(key);
                    if (write(kv, key, value, sync ? Durability.SYNC : Durability.NONE)) {
                        unsynced.put(key, value);
                        if (sync) {
                            acknowledged.putAll(unsynced);
                            unsynced.clear();
                        }
                    }
                }
                if (round < 3) { // the last round stays in the log only
                    TransientFaultRecoveryTest.flushThroughRetries(kv);
                }
            }
            afterPowerLoss = mem.crashClone();
        } finally {
            try {
                kv.close();
            } catch (RuntimeException e) {
                // a close after a failure may report it; the power loss was taken before
            }
        }
        List<String> lost = new ArrayList<>();
        try (LsmStore reopened = LsmStore.open(DIR, KvOptions.builder().vfs(afterPowerLoss).build())) {
            for (Map.Entry<String, String> e : acknowledged.entrySet()) {
                byte[] got = reopened.get(bytes(e.getKey()));
                if (got == null || !new String(got, StandardCharsets.UTF_8).equals(e.getValue())) {
                    lost.add(e.getKey() + "=" + e.getValue() + " read "
                            + (got == null ? "nothing" : new String(got, StandardCharsets.UTF_8)));
                }
            }
        } catch (RuntimeException e) {
            lost.add("reopen failed: " + e);
        }
        return new Outcome(vfs.count(Op.FORCE) - opened, vfs.injectedCount(), String.valueOf(vfs.firstInjected()), lost);
    }

    /** What the failed fsync was for, from the injected failure's message (which names the file). */
    private static String kind(String failure) {
        return failure.endsWith(".wal") ? "log" : failure.endsWith(".sst") ? "table"
                : failure.contains("MANIFEST-") ? "manifest" : failure.contains("CURRENT") ? "CURRENT" : failure;
    }

    private record Outcome(long forces, long injected, String failed, List<String> lost) {
    }

    private static boolean write(LsmStore kv, String key, String value, Durability durability) {
        try {
            kv.write(new WriteBatch().put(bytes(key), bytes(value)), durability);
            return true;
        } catch (StorageIOException e) {
            return false;
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
