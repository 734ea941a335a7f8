package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.base.InternalKey;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Adversarial review: readers must always find keys that are present for the whole read (stable keys, and keys
 * replaced by an equal key, which always have one live version) while other threads insert and remove keys around
 * them, in the way the memtable uses the list (a node is removed only after its insert returned).
 */
class ArenaSkipListStressTest {
    private static final int SLOTS = 2_000; // user keys "%06d": stable at multiples of 10, replaced at 5 mod 10

    private static byte[] key(int pos, long sequence) {
        return InternalKey.encode(String.format("%06d", pos).getBytes(StandardCharsets.UTF_8), sequence,
                InternalKey.KIND_PUT);
    }

    private static boolean stable(byte[] k) {
        return pos(k) % 10 == 0;
    }

    private static int pos(byte[] internalKey) {
        return Integer.parseInt(new String(InternalKey.userKey(internalKey), StandardCharsets.UTF_8));
    }

    @Test
    void readersAlwaysSeeKeysPresentThroughoutTheRead() throws Exception {
        ArenaSkipList list = new ArenaSkipList();
        int stableCount = SLOTS / 10;
        for (int pos = 0; pos < SLOTS; pos += 10) {
            list.insert(key(pos, 1), key(pos, 1));
        }
        for (int pos = 5; pos < SLOTS; pos += 10) {
            list.insert(key(pos, 1), ByteBuffer.allocate(8).putLong(0).array());
        }
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean running = new AtomicBoolean(true);
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> writers = new ArrayList<>();
        // Churners: insert a fresh key next to the stable ones, remove it soon after (by its own thread).
        for (int t = 0; t < 2; t++) {
            int id = t;
            writers.add(new Thread(() -> {
                Random random = new Random(100 + id);
                long[] mine = new long[8];
                StressThreads.await(start);
                for (int i = 0; i < 150_000 && failure.get() == null; i++) {
                    int pos;
                    do {
                        pos = random.nextInt(SLOTS);
                    } while (pos % 5 == 0);
                    long seq = 10 + (long) i * 2 + id;
                    int slot = i & 7;
                    if (mine[slot] != 0) {
                        if (!list.remove(mine[slot])) {
                            failure.compareAndSet(null, new AssertionError("own node removed already"));
                        }
                    }
                    mine[slot] = list.insert(key(pos, seq), new byte[random.nextInt(40)]);
                }
            }));
        }
        // Replacer: equal keys, one thread per key as a batch writing a key twice.
        writers.add(new Thread(() -> {
            Random random = new Random(7);
            StressThreads.await(start);
            for (long v = 1; v <= 150_000 && failure.get() == null; v++) {
                int pos = 5 + 10 * random.nextInt(stableCount);
                list.insert(key(pos, 1), ByteBuffer.allocate(8).putLong(v).array());
            }
        }));
        List<Thread> readers = new ArrayList<>();
        AtomicInteger checks = new AtomicInteger();
        for (int r = 0; r < 2; r++) {
            int id = r;
            readers.add(new Thread(() -> {
                Random random = new Random(200 + id);
                long[] seen = new long[stableCount];
                StressThreads.await(start);
                try {
                    while (running.get() && failure.get() == null) {
                        int mode = random.nextInt(20);
                        if (mode == 0) {
                            forwardScan(list, stableCount);
                        } else if (mode == 1) {
                            reverseScan(list, stableCount);
                        } else {
                            int s = random.nextInt(stableCount);
                            byte[] k = key(10 * s, 1);
                            check(list.find(k) != ArenaSkipList.NIL, "find(stable) missed");
                            check(keyOf(list, list.seekAtLeast(k), k), "seekAtLeast(stable) missed");
                            check(keyOf(list, list.seekBelow(k, true), k), "seekBelow(stable, true) missed");
                            byte[] after = key(10 * s + 1, Long.MAX_VALUE >>> 8);
                            long below = list.seekBelow(after, false);
                            check(below != ArenaSkipList.NIL && InternalKey.compare(list.key(below), k) >= 0,
                                    "seekBelow(after stable) went before it");
                            byte[] r5 = key(10 * s + 5, 1);
                            long found = list.find(r5);
                            check(found != ArenaSkipList.NIL, "find(replaced key) missed: no live version");
                            long value = ByteBuffer.wrap(list.value(found)).getLong();
                            check(value >= seen[s], "replaced key went back from " + seen[s] + " to " + value);
                            seen[s] = value;
                            check(keyOf(list, list.seekBelow(r5, true), r5), "seekBelow(replaced key, true) missed");
                            check(keyOf(list, list.seekAtLeast(r5), r5), "seekAtLeast(replaced key) missed");
                        }
                        checks.incrementAndGet();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        writers.forEach(Thread::start);
        readers.forEach(Thread::start);
        start.countDown();
        for (Thread t : writers) {
            t.join();
        }
        running.set(false);
        for (Thread t : readers) {
            t.join();
        }
        if (failure.get() != null) {
            throw new AssertionError("after " + checks.get() + " reads", failure.get());
        }
    }

    /**
     * A key replaced over and over by an equal one (new node after the old, then the old removed) always has a live
     * version, so the last node at or below it is always it.
     */
    @Test
    void seekBelowShouldNotPassAKeyThatAlwaysHasALiveVersion() throws Exception {
        ArenaSkipList list = new ArenaSkipList();
        byte[] before = key(1, 1);
        byte[] k = key(2, 1);
        byte[] after = key(3, 1);
        list.insert(before, new byte[0]);
        list.insert(k, new byte[0]);
        list.insert(after, new byte[0]);
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger misses = new AtomicInteger();
        AtomicInteger reads = new AtomicInteger();
        Thread replacer = new Thread(() -> {
            for (int i = 0; i < 2_000_000; i++) {
                list.insert(k, new byte[0]);
            }
            running.set(false);
        });
        Thread reader = new Thread(() -> {
            while (running.get()) {
                long node = list.seekBelow(k, true);
                reads.incrementAndGet();
                if (node == ArenaSkipList.NIL || !Arrays.equals(list.key(node), k)) {
                    misses.incrementAndGet();
                }
            }
        });
        replacer.start();
        reader.start();
        replacer.join();
        reader.join();
        assertThat(misses.get()).as("seekBelow(k, true) missed k in %d reads", reads.get()).isZero();
    }

    /**
     * Entries of sizes around the own-chunk threshold and the chunk ends, and near the limits the engine allows (64 KB
     * keys, 64 MB values), inserted by two threads while a reader walks and checks every value's bytes: each chunk is
     * visible to a reader that reached a node in it, while the chunk table grows.
     */
    @Test
    void largeAndOddSizedEntriesKeepTheirBytesWhileChunksAreAdded() throws Exception {
        ArenaSkipList list = new ArenaSkipList();
        int ownChunk = ArenaSkipList.LARGE_CHUNK / 4;
        int[] sizes = {0, 1, 7, 8, 9, 4_000, 16 << 10, (16 << 10) - 40, ownChunk - 100, ownChunk - 60, ownChunk - 59,
            ownChunk - 52, ownChunk - 40, ownChunk, ownChunk + 1, ArenaSkipList.LARGE_CHUNK - 64,
            ArenaSkipList.LARGE_CHUNK, 3 << 20};
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean running = new AtomicBoolean(true);
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            int id = w;
            writers.add(new Thread(() -> {
                Random random = new Random(id);
                StressThreads.await(start);
                for (int i = 0; i < 400 && failure.get() == null; i++) {
                    int size = random.nextInt(3) == 0 ? sizes[random.nextInt(sizes.length)] : random.nextInt(300);
                    byte[] k = key(i * 2 + id, size);
                    list.insert(k, pattern(k, size));
                }
            }));
        }
        Thread reader = new Thread(() -> {
            StressThreads.await(start);
            try {
                while (running.get() && failure.get() == null) {
                    for (long n = list.first(); n != ArenaSkipList.NIL; n = list.next(n)) {
                        byte[] k = list.key(n);
                        byte[] v = list.value(n);
                        check(Arrays.equals(v, pattern(k, (int) InternalKey.sequence(k))), "value bytes wrong");
                    }
                }
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        });
        writers.forEach(Thread::start);
        reader.start();
        start.countDown();
        for (Thread t : writers) {
            t.join();
        }
        running.set(false);
        reader.join();
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        // The limits: a 64 KB key (the engine's) and a 64 MB value.
        byte[] longUser = new byte[64 << 10];
        Arrays.fill(longUser, (byte) 0xff);
        byte[] longKey = InternalKey.encode(longUser, 5, InternalKey.KIND_PUT);
        byte[] huge = new byte[64 << 20];
        huge[0] = 1;
        huge[huge.length - 1] = 2;
        list.insert(longKey, huge);
        long node = list.find(longKey);
        check(node != ArenaSkipList.NIL && Arrays.equals(list.key(node), longKey), "64 KB key lost");
        check(Arrays.equals(list.value(node), huge), "64 MB value wrong");
        check(list.keyLength(node) == longKey.length, "key length");
        long count = 0;
        for (long n = list.first(); n != ArenaSkipList.NIL; n = list.next(n)) {
            count++;
        }
        check(count == 801, "entries: " + count);
    }

    private static byte[] pattern(byte[] key, int size) {
        byte[] v = new byte[size];
        int h = Arrays.hashCode(key);
        for (int i = 0; i < size; i++) {
            v[i] = (byte) (h + i * 31);
        }
        return v;
    }

    /**
     * Few keys, many collisions: two threads insert fresh versions at a handful of user keys and remove their own a
     * little later, a third replaces equal keys, a reader walks forward. After, every level is in order, holds no
     * deleted node, and holds only nodes that level 0 holds; level 0 holds exactly what is live.
     */
    @Test
    void tightRacesLeaveEveryLevelConsistent() throws Exception {
        for (int round = 0; round < 20; round++) {
            ArenaSkipList list = new ArenaSkipList();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch start = new CountDownLatch(1);
            java.util.Set<String> live = java.util.concurrent.ConcurrentHashMap.newKeySet();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int id = t;
                int r = round;
                threads.add(new Thread(() -> {
                    Random random = new Random(r * 10 + id);
                    java.util.ArrayDeque<long[]> mine = new java.util.ArrayDeque<>();
                    StressThreads.await(start);
                    for (int i = 0; i < 20_000; i++) {
                        byte[] k = key(random.nextInt(6) * 10, 1000 + 2L * i + id);
                        long node = list.insert(k, k);
                        live.add(Arrays.toString(k));
                        mine.add(new long[] {node});
                        if (mine.size() > 3 || random.nextBoolean() && !mine.isEmpty()) {
                            long old = mine.poll()[0];
                            byte[] ok = list.key(old);
                            live.remove(Arrays.toString(ok));
                            if (!list.remove(old)) {
                                failure.compareAndSet(null, new AssertionError("own node removed already"));
                            }
                        }
                    }
                }));
            }
            threads.add(new Thread(() -> {
                StressThreads.await(start);
                for (int i = 0; i < 20_000; i++) {
                    byte[] k = key(5 + 10 * (i % 6), 1);
                    list.insert(k, k);
                }
                for (int p = 0; p < 6; p++) {
                    live.add(Arrays.toString(key(5 + 10 * p, 1)));
                }
            }));
            StressThreads.runAll(threads, start, failure);
            Levels.verify(list, live);
        }
    }

    /** Walks every level through the list's private links (reflection) and checks its shape. */
    static final class Levels {
        static void verify(ArenaSkipList list, java.util.Set<String> live) throws Exception {
            java.lang.reflect.Method link = ArenaSkipList.class.getDeclaredMethod("link", long.class, int.class);
            link.setAccessible(true);
            java.util.Set<Long> level0 = new java.util.HashSet<>();
            List<String> keys = new ArrayList<>();
            for (int level = 0; level < ArenaSkipList.MAX_HEIGHT; level++) {
                byte[] previous = null;
                long n = (long) link.invoke(list, -1L, level);
                ArenaSkipListStressTest.check(n >= 0, "the head's link marked at level " + level);
                while (n != ArenaSkipList.NIL) {
                    long next = (long) link.invoke(list, n, level);
                    ArenaSkipListStressTest.check(next >= 0, "a deleted node still linked at level " + level);
                    byte[] k = list.key(n);
                    if (previous != null) {
                        ArenaSkipListStressTest.check(InternalKey.compare(previous, k) < 0, "level " + level + " out of order");
                    }
                    if (level == 0) {
                        level0.add(n);
                        keys.add(Arrays.toString(k));
                    } else {
                        ArenaSkipListStressTest.check(level0.contains(n), "level " + level + " holds a node level 0 does not");
                    }
                    previous = k;
                    n = next;
                }
            }
            ArenaSkipListStressTest.check(keys.size() == live.size() && live.containsAll(keys),
                    "level 0 holds " + keys.size() + " keys, " + live.size() + " live");
        }
    }

    private static boolean keyOf(ArenaSkipList list, long node, byte[] expected) {
        return node != ArenaSkipList.NIL && Arrays.equals(list.key(node), expected);
    }

    private static void forwardScan(ArenaSkipList list, int stableCount) {
        byte[] previous = null;
        int stables = 0;
        for (long n = list.first(); n != ArenaSkipList.NIL; n = list.next(n)) {
            byte[] k = list.key(n);
            if (previous != null) {
                int c = InternalKey.compare(previous, k);
                check(c < 0 || (c == 0 && pos(k) % 10 == 5), "forward scan out of order");
            }
            if (stable(k)) {
                check(pos(k) == 10 * stables, "forward scan skipped stable key " + 10 * stables);
                stables++;
            }
            previous = k;
        }
        check(stables == stableCount, "forward scan saw " + stables + " stable keys");
    }

    private static void reverseScan(ArenaSkipList list, int stableCount) {
        int stables = 0;
        byte[] previous = null;
        for (long n = list.seekBelow(null, false); n != ArenaSkipList.NIL; ) {
            byte[] k = list.key(n);
            if (previous != null) {
                check(InternalKey.compare(k, previous) < 0, "reverse scan out of order");
            }
            if (stable(k)) {
                stables++;
                check(pos(k) == 10 * (stableCount - stables), "reverse scan skipped a stable key at " + pos(k));
            }
            previous = k;
            n = list.seekBelow(k, false);
        }
        check(stables == stableCount, "reverse scan saw " + stables + " stable keys");
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }
}
