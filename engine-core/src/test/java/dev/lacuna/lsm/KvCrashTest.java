package dev.lacuna.lsm;

import dev.lacuna.kv.KvCursor;
import dev.lacuna.kv.KvOptions;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.storage.Durability;
import dev.lacuna.kv.SstableOptions;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.storage.WalOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Power loss while the store is busy: a writer applies {@code SYNC} puts and deletes while tiny memtables,
 * a tiny manifest limit and eager compaction keep flushes, compactions and manifest switches running in
 * the background; at a random moment the file system is cloned as a power loss would leave it, and the
 * store is reopened on the clone. The recovered contents must equal the model after some prefix of the
 * writes that includes every acknowledged one (the write in flight may or may not have landed) — so no
 * acknowledged write is lost and no deleted key comes back. Cycles: {@code -Dkv.crash.cycles=N}.
 */
class KvCrashTest {
    private static final Path DIR = Path.of("/db");

    @Test
    void shouldRecoverAPrefixHoldingEveryAcknowledgedWrite() throws Exception {
        int cycles = Integer.getInteger("kv.crash.cycles", 200);
        long baseSeed = Long.getLong("kv.crash.seed", 7L);
        long acknowledged = 0;
        long lost = 0;
        for (int cycle = 0; cycle < cycles; cycle++) {
            long seed = baseSeed + cycle;
            try {
                long[] r = runCycle(seed);
                acknowledged += r[0];
                lost += r[1];
            } catch (Throwable t) {
                throw new AssertionError("crash cycle failed; replay with -Dkv.crash.seed=" + seed + " -Dkv.crash.cycles=1", t);
            }
        }
        System.out.println("kv crash cycles: " + cycles + ", acknowledged writes: " + acknowledged
                + ", lost or resurrected: " + lost);
        assertThat(lost).isZero();
    }

    /** The i-th write of a cycle: a put of a derived value, or (one time in four) a delete. */
    record Write(byte[] key, byte[] value) {
        static Write of(long seed, long i) {
            Random r = new Random(seed * 1_000_003L + i);
            byte[] key = {(byte) ('a' + r.nextInt(3)), (byte) r.nextInt(64)};
            if (r.nextInt(4) == 0) {
                return new Write(key, null);
            }
            byte[] value = new byte[r.nextInt(5) == 0 ? 300 : 20];
            r.nextBytes(value);
            return new Write(key, value);
        }

        void applyTo(NavigableMap<byte[], byte[]> model) {
            if (value == null) {
                model.remove(key);
            } else {
                model.put(key, value);
            }
        }
    }

    private long[] runCycle(long seed) throws Exception {
        Random random = new Random(seed);
        MemVfs vfs = new MemVfs();
        KvOptions options = KvOptions.builder().vfs(vfs).partitions(random.nextBoolean() ? 1 : 4)
                .durability(Durability.SYNC).memtableBytes(1024 + random.nextInt(4096)).memoryBudget(16 * 1024)
                .table(SstableOptions.defaults().withBlockSize(128)).targetFileBytes(2048).levelBaseBytes(8 * 1024)
                .l0CompactionTrigger(2).l0StopWritesTrigger(6).maxManifestBytes(512 + random.nextInt(2048))
                .deadEntryTrigger(16).wal(WalOptions.defaults().withBlockSize(256).withSegmentSize(4096).withPreallocate(1024))
                .build();
        LsmStore store = LsmStore.open(DIR, options);
        AtomicLong acked = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        Thread writer = new Thread(() -> {
            for (long i = 0; !stop.get(); i++) {
                Write w = Write.of(seed, i);
                try {
                    if (w.value() == null) {
                        store.delete(w.key());
                    } else {
                        store.put(w.key(), w.value());
                    }
                } catch (RuntimeException closed) {
                    return;
                }
                acked.set(i + 1);
            }
        }, "kv-crash-writer");
        writer.start();
        long target = random.nextInt(2000);
        while (acked.get() < target && writer.isAlive()) {
            Thread.onSpinWait();
        }
        long before = acked.get(); // acknowledged before the crash: must survive
        MemVfs crashed = random.nextBoolean() ? vfs.crashClone(random) : vfs.crashClone();
        long after = acked.get();
        stop.set(true);
        writer.join();
        store.close();

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
        for (long k = before; k <= after + 1; k++) {
            if (sameContents(model, recovered)) {
                return new long[] {before, 0};
            }
            Write.of(seed, k).applyTo(model);
        }
        return new long[] {before, 1};
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
