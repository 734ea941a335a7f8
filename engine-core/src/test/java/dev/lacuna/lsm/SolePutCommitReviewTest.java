package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Review of 47e9248: a deletion's commit now learns the sole put it annihilates from {@link Memtable#place} (one
 * search, after its node is placed) and asks {@code existsOutsideMemtable} after placing. (1) Grouped puts (inserted
 * outside the commit lock) and deletions, alone or batched with a put of another key of the same partition, race on
 * a few keys; every key must end as the write with the highest LSN left it, before and after a reopen, and pairs must
 * have been purged (else the annihilation was not exercised). (2) A deletion whose bloom-filter check fails after its
 * entries were placed must give back every node it placed and leave nothing visible.
 */
class SolePutCommitReviewTest {
    private static final Path DIR = Path.of("/db");
    /** Keys written at a time: the window moves on every {@link #PER_WINDOW} writes, so most keys start fresh. */
    private static final int KEYS = 8;
    private static final int PER_WINDOW = 24;
    private static final int THREADS = 4;
    private static final int OPS = 4_000;

    /** The last write (highest LSN) of a key: its value, or null for a deletion. */
    private record Last(long lsn, byte[] value) {
    }

    @Test
    void shouldEndEachKeyAsItsLastWriteWhilePutsAndAnnihilatingDeletionsRace() throws Exception {
        MemVfs vfs = new MemVfs();
        // No freeze for dead pairs: every version stays in one memtable, where a deletion may annihilate its put.
        KvOptions options = KvOptions.builder().vfs(vfs).partitions(1).durability(Durability.NONE)
                .deadEntryTrigger(1 << 30).build();
        ConcurrentHashMap<Integer, Last> last = new ConcurrentHashMap<>();
        java.util.concurrent.atomic.AtomicInteger writes = new java.util.concurrent.atomic.AtomicInteger();
        long purged;
        try (LsmStore kv = LsmStore.open(DIR, options)) {
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    Random random = new Random(thread);
                    start.await();
                    for (int i = 0; i < OPS; i++) {
                        int window = writes.getAndIncrement() / PER_WINDOW;
                        int k = window * KEYS + random.nextInt(KEYS);
                        byte[] value = ("v" + thread + "-" + i).getBytes(StandardCharsets.UTF_8);
                        WriteBatch batch = new WriteBatch();
                        int other = -1;
                        boolean delete = thread % 2 == 1 && random.nextInt(3) != 0;
                        if (delete) {
                            batch.delete(key(k));
                            if (random.nextBoolean()) { // a put of another key of the partition in the batch
                                other = window * KEYS + (k % KEYS + 1 + random.nextInt(KEYS - 1)) % KEYS;
                                batch.put(key(other), value);
                            }
                        } else {
                            batch.put(key(k), value); // grouped: inserted outside the commit lock
                        }
                        long lsn = kv.write(batch, Durability.NONE);
                        record(last, k, new Last(lsn, delete ? null : value));
                        if (other >= 0) {
                            record(last, other, new Last(lsn, value));
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get();
            }
            pool.shutdown();
            Db db = LsmInternals.db(kv);
            purged = db.trees[db.treeOf(key(0))].mem().purgedPairs();
            assertThat(LsmInternals.frozenMemtables(db)).as("no flush: every version in one memtable").isZero();
            check(kv, last, "before a reopen");
        }
        System.out.println("pairs purged: " + purged);
        assertThat(purged).as("pairs annihilated (else this tests nothing)").isPositive();
        try (LsmStore kv = LsmStore.open(DIR, options)) {
            check(kv, last, "after a reopen");
        }
    }

    @Test
    void shouldGiveBackEveryPlacedNodeWhenTheBloomCheckFailsAfterPlacing() {
        MemVfs mem = new MemVfs();
        ControlledVfs vfs = new ControlledVfs(mem, ".wal");
        KvOptions options = KvOptions.builder().vfs(vfs).durability(Durability.SYNC).build();
        try (LsmStore kv = LsmStore.open(DIR, options)) {
            kv.put(b("a"), b("1"));
            kv.put(b("z"), b("1"));
            kv.flush(); // a table whose key range holds "m"
        }
        try (LsmStore kv = LsmStore.open(DIR, options)) { // its table not open yet
            kv.put(b("m"), b("1")); // alone in the memtable: its deletion consults the table
            Db db = LsmInternals.db(kv);
            Memtable active = db.trees[db.treeOf(b("m"))].mem();
            long arenaBefore = LsmInternals.arenaBytes(active);
            long bytesBefore = active.bytes();
            long memoryBefore = db.memoryUsed.get();
            byte[] value = new byte[2 << 20]; // a chunk of its own, and larger than any slack
            vfs.failOpens(".sst");
            for (int attempt = 0; attempt < 10; attempt++) {
                WriteBatch batch = new WriteBatch().put(b("b"), value).delete(b("m"));
                assertThatThrownBy(() -> kv.write(batch, Durability.SYNC)).isInstanceOf(RuntimeException.class);
            }
            vfs.failOpens(null);
            assertThat(db.trees[db.treeOf(b("m"))].mem()).as("still the same memtable").isSameAs(active);
            assertThat(LsmInternals.arenaBytes(active) - arenaBefore).as("arena bytes kept by 10 failed writes")
                    .isLessThan(value.length);
            assertThat(active.bytes()).as("bytes counted").isEqualTo(bytesBefore);
            assertThat(db.memoryUsed.get()).as("memory in use").isEqualTo(memoryBefore);
            assertThat(kv.get(b("b"))).isNull();
            assertThat(kv.get(b("m"))).isEqualTo(b("1"));
            kv.delete(b("m")); // the check now succeeds: the pair is annihilated, the key stays deleted
            assertThat(kv.get(b("m"))).isNull();
        }
        try (LsmStore kv = LsmStore.open(DIR, KvOptions.builder().vfs(mem.crashClone())
                .durability(Durability.SYNC).build())) {
            assertThat(kv.get(b("b"))).isNull();
            assertThat(kv.get(b("m"))).isNull();
            assertThat(kv.get(b("a"))).isEqualTo(b("1"));
        }
    }

    private static void record(ConcurrentHashMap<Integer, Last> last, int k, Last write) {
        last.merge(k, write, (a, b) -> a.lsn() >= b.lsn() ? a : b);
    }

    private static void check(LsmStore kv, ConcurrentHashMap<Integer, Last> last, String when) {
        List<String> wrong = new ArrayList<>();
        int deleted = 0;
        for (int k : last.keySet()) {
            Last expected = last.get(k);
            deleted += expected.value() == null ? 1 : 0;
            byte[] got = kv.get(key(k));
            byte[] want = expected == null ? null : expected.value();
            if (!java.util.Arrays.equals(got, want)) {
                wrong.add("key " + k + " (last write at " + (expected == null ? "-" : expected.lsn()) + "): "
                        + (want == null ? "deleted" : new String(want, StandardCharsets.UTF_8)) + ", read "
                        + (got == null ? "nothing" : new String(got, StandardCharsets.UTF_8)));
            }
        }
        assertThat(wrong).as("keys not as their last write left them, " + when + " (of " + last.size() + ", "
                + deleted + " deleted)").isEmpty();
    }

    private static byte[] key(int k) {
        return ("k" + k).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
