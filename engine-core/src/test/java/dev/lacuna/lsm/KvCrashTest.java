package dev.lacuna.lsm;

import dev.lacuna.kv.KvCursor;
import dev.lacuna.kv.KvOptions;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.storage.Durability;
import dev.lacuna.kv.SstableOptions;
import dev.lacuna.vfs.testing.BrokenVfs;
import dev.lacuna.vfs.testing.BrokenVfs.Breakage;
import dev.lacuna.vfs.testing.BreakageRuns;
import dev.lacuna.vfs.testing.CrashCycles;
import dev.lacuna.vfs.testing.CrashMoment;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.storage.WalOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Power loss while the store is busy: a writer applies {@code SYNC} puts and deletes while tiny memtables,
 * a tiny manifest limit and eager compaction keep flushes, compactions and manifest switches running in
 * the background, and a reader reads the keys being written; at a random moment the file system is cloned
 * as a power loss would leave it, and the store is reopened on the clone. The recovered contents must equal
 * the model after some prefix of the writes that includes every acknowledged one (the write in flight may
 * or may not have landed) and every write whose value the reader saw before the clone (a SYNC write is
 * visible only once durable) — so no acknowledged or seen write is lost and no deleted key comes back.
 * Each value carries the index of the write that made it, so a read says which write it saw; in half the
 * cycles the log's fsync is held at the crash and the key of the write waiting for it is read first. What the
 * power loss interrupted is read from the crashed files before recovery: a table being written (a flush
 * or compaction) or a manifest switch; both must occur. Cycles: {@code -Dkv.crash.cycles=N}.
 * {@link #shouldFailOnABrokenFileSystem} shows the check is not vacuous: short runs on each
 * {@link BrokenVfs.Breakage} must fail.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class) // the mutation line prints after the summary
class KvCrashTest {
    private static final Path DIR = Path.of("/db");

    /** What one cycle found. */
    record Result(long acknowledged, long seen, boolean lost, boolean seenLost, boolean tableWrite,
                  boolean manifestSwitch) {
    }

    /** The run: {@code -Dkv.crash.cycles} (quick size 200), {@code -Dkv.crash.seed}, {@code -Dkv.crash.mutation.cycles}. */
    private static CrashCycles crashCycles() {
        return CrashCycles.fromProperties("kv.crash", 200, 7L);
    }

    /** The cycles' counts, summed from each cycle's {@link Result}. */
    private static final class Totals {
        long acknowledged;
        long seen;
        long lost;
        long seenLost;
        long tableWrites;
        long manifestSwitches;
    }

    @Test
    @Order(1)
    void shouldRecoverAPrefixHoldingEveryAcknowledgedWrite() {
        CrashCycles run = crashCycles();
        int cycles = run.cycles();
        Totals totals = run.run(new Totals(), (seed, cycle, t) -> {
            Result r = runCycle(seed, Breakage.NONE);
            t.acknowledged += r.acknowledged();
            t.seen += r.seen();
            t.lost += r.lost() ? 1 : 0;
            t.seenLost += r.seenLost() ? 1 : 0;
            t.tableWrites += r.tableWrite() ? 1 : 0;
            t.manifestSwitches += r.manifestSwitch() ? 1 : 0;
        }, t -> List.of("kv crash cycles: " + cycles + ", acknowledged writes: " + t.acknowledged
                + ", lost or resurrected: " + t.lost + ", reads checked: " + t.seen + ", visible then lost: " + t.seenLost,
                "kv crashes with a table the manifest does not name (a flush or compaction under way): "
                + t.tableWrites + ", during a manifest switch: " + t.manifestSwitches));
        assertThat(totals.lost).isZero();
        assertThat(totals.seenLost).isZero();
        if (cycles >= 100) { // the run must exercise what it claims to
            assertThat(totals.tableWrites).as("crashes with a table the manifest does not name")
                    .isGreaterThanOrEqualTo(cycles / 20);
            assertThat(totals.manifestSwitches).as("crashes during a manifest switch").isPositive();
            assertThat(totals.seen).as("reads of written values checked").isGreaterThanOrEqualTo(cycles);
        }
    }

    /**
     * Each breakage under a short run (cycles until one fails, at most {@code -Dkv.crash.mutation.cycles},
     * default 20): the run must fail, by losing or resurrecting a write, losing a write a reader saw, or a
     * failing check (a writer that stopped early, a store that does not reopen).
     */
    @Test
    @Order(2)
    void shouldFailOnABrokenFileSystem() {
        BreakageRuns.Result result = crashCycles().breakages(20, (breakage, cycle) -> {
            Result r = runCycle(6L + cycle, breakage);
            return r.lost() ? "recovered state is no prefix holding every acknowledged write"
                    : r.seenLost() ? "a write a reader saw was lost" : null;
        });
        assertThat(result.caught()).as("%s", result.outcomes()).isEqualTo(result.of());
    }

    /** The i-th write of a cycle: a put of a value starting with {@code i}, or (one time in four) a delete. */
    record Write(byte[] key, byte[] value) {
        static Write of(long seed, long i) {
            Random r = new Random(seed * 1_000_003L + i);
            byte[] key = {(byte) ('a' + r.nextInt(3)), (byte) r.nextInt(64)};
            if (r.nextInt(4) == 0) {
                return new Write(key, null);
            }
            byte[] value = new byte[r.nextInt(5) == 0 ? 300 : 20];
            r.nextBytes(value);
            ByteBuffer.wrap(value).putLong(i);
            return new Write(key, value);
        }

        /** The index of the write that made {@code value}. */
        static long indexOf(byte[] value) {
            return ByteBuffer.wrap(value).getLong();
        }

        void applyTo(NavigableMap<byte[], byte[]> model) {
            if (value == null) {
                model.remove(key);
            } else {
                model.put(key, value);
            }
        }
    }

    private Result runCycle(long seed, Breakage breakage) throws Exception {
        Random random = new Random(seed);
        BrokenVfs vfs = new BrokenVfs(new MemVfs(), breakage, 100); // N: log writes before the put path throws
        int partitions = random.nextBoolean() ? 1 : 4;
        ControlledVfs controlled = new ControlledVfs(vfs, ".wal");
        KvOptions options = KvOptions.builder().vfs(controlled).partitions(partitions)
                .durability(Durability.SYNC).memtableBytes(1024 + random.nextInt(4096)).memoryBudget(16 * 1024)
                .table(SstableOptions.defaults().withBlockSize(128)).targetFileBytes(2048).levelBaseBytes(8 * 1024)
                .l0CompactionTrigger(2).l0StopWritesTrigger(6).maxManifestBytes(512 + random.nextInt(2048))
                .deadEntryTrigger(16).wal(WalOptions.defaults().withBlockSize(256).withSegmentSize(4096).withPreallocate(1024))
                .build();
        LsmStore store = LsmStore.open(DIR, options);
        AtomicLong acked = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        CrashMoment crash = new CrashMoment();
        AtomicLong maxSeen = new AtomicLong(-1);
        AtomicLong reads = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            try {
                for (long i = 0; !stop.get(); i++) {
                    Write w = Write.of(seed, i);
                    if (w.value() == null) {
                        store.delete(w.key());
                    } else {
                        store.put(w.key(), w.value());
                    }
                    acked.set(i + 1);
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        }, "kv-crash-writer");
        Thread reader = new Thread(() -> {
            Random r = new Random(seed ^ 0x5EED);
            try {
                while (!stop.get()) {
                    // Mostly the key of the write in flight: a value visible before its fsync shows there.
                    byte[] key = r.nextInt(4) != 0 ? Write.of(seed, acked.get()).key()
                            : new byte[] {(byte) ('a' + r.nextInt(3)), (byte) r.nextInt(64)};
                    byte[] value = store.get(key);
                    // Counted only if the read ended before the clone began: then the write it saw must survive.
                    if (value != null && crash.before()) {
                        maxSeen.accumulateAndGet(Write.indexOf(value), Math::max);
                        reads.incrementAndGet();
                    }
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        }, "kv-crash-reader");
        writer.start();
        reader.start();
        long target = random.nextInt(2000);
        while (acked.get() < target && writer.isAlive()) {
            Thread.onSpinWait();
        }
        boolean held = random.nextBoolean();
        if (held) {
            // Hold the log's next fsync: the write in flight is logged, not durable. A read of its key now
            // must not see it (were it visible, the crash below would lose what a reader saw).
            controlled.hold();
            // A writer that died (a breakage) never reaches the fsync: do not wait the whole timeout for it.
            long deadline = System.nanoTime() + 10_000_000_000L;
            boolean forceHeld;
            while (!(forceHeld = controlled.awaitHeld(10_000_000L)) && writer.isAlive() && System.nanoTime() < deadline) {
                // wait on
            }
            if (forceHeld) {
                byte[] value = store.get(Write.of(seed, acked.get()).key());
                if (value != null) {
                    maxSeen.accumulateAndGet(Write.indexOf(value), Math::max);
                    reads.incrementAndGet();
                }
            }
        }
        long before = acked.get(); // acknowledged before the crash: must survive
        MemVfs crashed = crash.take(vfs, random.nextBoolean() ? random : null);
        long after = acked.get();
        stop.set(true);
        if (held) {
            controlled.release();
        }
        writer.join();
        reader.join();
        try {
            store.close();
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
        }
        assertThat(failure.get()).as("writer and reader ran without error").isNull();
        assertThat(before).as("acknowledged writes before the crash").isGreaterThanOrEqualTo(target);
        long seen = maxSeen.get();

        boolean[] interrupted = interrupted(crashed, partitions);
        NavigableMap<byte[], byte[]> recovered = new TreeMap<>(Arrays::compareUnsigned);
        try (LsmStore reopened = LsmStore.open(DIR, options.toBuilder().vfs(crashed).build());
             KvCursor all = reopened.scan(null, null, false, null)) {
            for (; all.valid(); all.next()) {
                recovered.put(all.key(), all.value());
            }
        }
        // Some prefix of the writes, at least every acknowledged one, at most one past the last acknowledged.
        NavigableMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        for (long i = 0; i < before; i++) {
            Write.of(seed, i).applyTo(model);
        }
        long prefix = -1;
        for (long k = before; k <= after + 1; k++) {
            if (sameContents(model, recovered)) {
                prefix = k; // the largest matching prefix: a delete of an absent key changes nothing
            }
            Write.of(seed, k).applyTo(model);
        }
        return new Result(before, reads.get(), prefix < 0, prefix >= 0 && prefix <= seen, interrupted[0], interrupted[1]);
    }

    /**
     * What the power loss cut short, read from the crashed files before recovery touches them: a table the
     * manifest does not name yet (a flush or compaction was writing it), and a manifest switch (a second
     * manifest, or a {@code CURRENT.tmp}).
     */
    private static boolean[] interrupted(MemVfs crashed, int partitions) throws IOException {
        Set<Long> live;
        try (VersionSet set = VersionSet.open(crashed, DIR, partitions, Long.MAX_VALUE, n -> { })) {
            live = set.liveFiles();
        }
        boolean tableWrite = false;
        int manifests = 0;
        boolean currentTmp = false;
        for (String name : crashed.list(DIR)) {
            if (name.endsWith(".sst") && !live.contains(Long.parseLong(name.substring(0, name.length() - 4)))) {
                tableWrite = true;
            }
            manifests += name.startsWith("MANIFEST-") ? 1 : 0;
            currentTmp |= name.equals("CURRENT.tmp");
        }
        return new boolean[] {tableWrite, manifests > 1 || currentTmp};
    }

    private static boolean sameContents(NavigableMap<byte[], byte[]> a, NavigableMap<byte[], byte[]> b) {
        if (a.size() != b.size()) {
            return false;
        }
        List<Map.Entry<byte[], byte[]>> x = new ArrayList<>(a.entrySet());
        List<Map.Entry<byte[], byte[]>> y = new ArrayList<>(b.entrySet());
        for (int i = 0; i < x.size(); i++) {
            if (!Arrays.equals(x.get(i).getKey(), y.get(i).getKey()) || !Arrays.equals(x.get(i).getValue(), y.get(i).getValue())) {
                return false;
            }
        }
        return true;
    }
}
