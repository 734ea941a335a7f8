package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.base.InternalKey;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Review of 5936fad: dead pairs removed as Memtable.removePair does (find(deletion, before), the put after the
 * deletion, then the deletion after before), on the list directly, with harsher neighbours than the memtable allows
 * during a purge: other threads insert and remove (by find(key, before) and removeAfter) newer versions of the pair's
 * key right before its deletion, versions between the deletion and the put, and keys right after the put. No forward
 * reader may meet a pair's put without having met its deletion; no seek may land on the put; the list must come out
 * whole (every noise key still present found, nothing removed lost).
 */
class PairRemovalReviewTest {
    private static final int PAIRS = 20_000;
    private static final long PUT_SEQ = 10;
    private static final long DEL_SEQ = 20;

    private static byte[] user(int i) {
        return String.format("p%06d", i).getBytes(StandardCharsets.US_ASCII);
    }

    private static int index(byte[] ik) {
        byte[] u = InternalKey.userKey(ik);
        return Integer.parseInt(new String(u, 1, 6, StandardCharsets.US_ASCII));
    }

    private static boolean isPairPut(byte[] ik) {
        return InternalKey.userKey(ik).length == 7 && InternalKey.kind(ik) == InternalKey.KIND_PUT
                && InternalKey.sequence(ik) == PUT_SEQ;
    }

    private static boolean isPairDeletion(byte[] ik) {
        return InternalKey.userKey(ik).length == 7 && InternalKey.kind(ik) == InternalKey.KIND_DELETE
                && InternalKey.sequence(ik) == DEL_SEQ;
    }

    private static String show(byte[] ik) {
        return new String(InternalKey.userKey(ik), StandardCharsets.US_ASCII) + "@" + InternalKey.sequence(ik) + "/"
                + InternalKey.kind(ik);
    }

    /** Memtable.removePair, on the list. */
    private static void removePair(ArenaSkipList list, byte[] putKey, byte[] delKey, long[] preds, long[] succs) {
        long deletion = list.find(delKey, preds);
        long before = preds[0];
        long put = deletion == ArenaSkipList.NIL ? ArenaSkipList.NIL : list.next(deletion);
        if (put != ArenaSkipList.NIL && list.compareKey(put, putKey) == 0) {
            list.removeAfter(deletion, put, putKey, preds, succs);
            if (before != ArenaSkipList.NIL) {
                list.removeAfter(before, deletion, delKey, preds, succs);
            } else {
                list.remove(deletion, delKey, preds, succs);
            }
            return;
        }
        long p = list.find(putKey);
        if (p != ArenaSkipList.NIL) {
            list.remove(p, putKey, preds, succs);
        }
        long d = list.find(delKey);
        if (d != ArenaSkipList.NIL) {
            list.remove(d, delKey, preds, succs);
        }
    }

    @Test
    void noReaderMeetsAPutWithoutItsDeletionAndTheListStaysWhole() throws Exception {
        ArenaSkipList list = new ArenaSkipList();
        byte[][] puts = new byte[PAIRS][];
        byte[][] dels = new byte[PAIRS][];
        for (int i = 0; i < PAIRS; i++) {
            puts[i] = InternalKey.encode(user(i), PUT_SEQ, InternalKey.KIND_PUT);
            dels[i] = InternalKey.encode(user(i), DEL_SEQ, InternalKey.KIND_DELETE);
            list.insert(puts[i], new byte[4]);
            list.insert(dels[i], new byte[0]);
        }
        ConcurrentHashMap<String, Boolean> noiseLive = new ConcurrentHashMap<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean running = new AtomicBoolean(true);
        java.util.concurrent.atomic.AtomicInteger purgedUpTo = new java.util.concurrent.atomic.AtomicInteger(-1);
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        threads.add(new Thread(() -> {
            long[] preds = new long[ArenaSkipList.MAX_HEIGHT];
            long[] succs = new long[ArenaSkipList.MAX_HEIGHT];
            StressThreads.await(start);
            try {
                for (int i = 0; i < PAIRS && failure.get() == null; i++) {
                    removePair(list, puts[i], dels[i], preds, succs);
                    purgedUpTo.set(i);
                }
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            } finally {
                running.set(false);
            }
        }));
        for (int w = 0; w < 2; w++) {
            int id = w;
            threads.add(new Thread(() -> {
                Random random = new Random(7 + id);
                long[] preds = new long[ArenaSkipList.MAX_HEIGHT];
                long[] succs = new long[ArenaSkipList.MAX_HEIGHT];
                List<byte[]> mine = new ArrayList<>();
                StressThreads.await(start);
                try {
                    while (running.get() && failure.get() == null) {
                        int near = Math.min(PAIRS - 1, Math.max(0, purgedUpTo.get() + 1 + random.nextInt(6) - 2));
                        int shape = random.nextInt(3);
                        byte[] k;
                        if (shape == 0) { // a newer version, right before the deletion
                            k = InternalKey.encode(user(near), 100 + 2 * random.nextInt(50) + id,
                                    InternalKey.KIND_PUT);
                        } else if (shape == 1) { // a version between the deletion and the put
                            k = InternalKey.encode(user(near), 11 + 4 * random.nextInt(2) + 2 * id,
                                    InternalKey.KIND_PUT);
                        } else { // right after the put
                            k = InternalKey.encode((new String(user(near), StandardCharsets.US_ASCII) + "x" + id
                                    + random.nextInt(3)).getBytes(StandardCharsets.US_ASCII), 5,
                                    InternalKey.KIND_PUT);
                        }
                        String name = java.util.Base64.getEncoder().encodeToString(k);
                        if (noiseLive.putIfAbsent(name, Boolean.TRUE) == null) {
                            list.insert(k, new byte[random.nextInt(16)]);
                            mine.add(k);
                        }
                        if (mine.size() > 6 || (!mine.isEmpty() && random.nextInt(3) == 0)) {
                            byte[] r = mine.remove(random.nextInt(mine.size()));
                            long[] before = preds;
                            long node = list.find(r, before);
                            if (node == ArenaSkipList.NIL) {
                                throw new AssertionError("noise key lost: " + show(r));
                            }
                            boolean removed = before[0] != ArenaSkipList.NIL
                                    ? list.removeAfter(before[0], node, r, preds, succs)
                                    : list.remove(node, r, preds, succs);
                            if (!removed) {
                                throw new AssertionError("noise key removed twice");
                            }
                            noiseLive.remove(java.util.Base64.getEncoder().encodeToString(r));
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        for (int r = 0; r < 2; r++) {
            int mode = r;
            threads.add(new Thread(() -> {
                Random random = new Random(70 + mode);
                StressThreads.await(start);
                try {
                    while (running.get() && failure.get() == null) {
                        int from = Math.max(0, purgedUpTo.get() + random.nextInt(5) - 2);
                        if (mode == 1) {
                            long n = list.seekAtLeast(InternalKey.seekKey(user(from), InternalKey.MAX_SEQUENCE));
                            if (n != ArenaSkipList.NIL && isPairPut(list.key(n))) {
                                throw new AssertionError("a seek found the put of " + index(list.key(n)) + " alone");
                            }
                            continue;
                        }
                        long n = list.seekAtLeast(InternalKey.seekKey(user(from), InternalKey.MAX_SEQUENCE));
                        int deletedSeen = -1;
                        byte[] previous = null;
                        for (int steps = 0; n != ArenaSkipList.NIL && steps < 40; steps++, n = list.next(n)) {
                            byte[] k = list.key(n);
                            if (previous != null && InternalKey.compare(previous, k) >= 0) {
                                throw new AssertionError("out of order: " + show(previous) + " then "
                                        + show(k));
                            }
                            if (isPairDeletion(k)) {
                                deletedSeen = index(k);
                            } else if (isPairPut(k) && deletedSeen != index(k)) {
                                throw new AssertionError("forward: the put of " + index(k) + " without its deletion");
                            }
                            previous = k;
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        StressThreads.runAll(threads, start, failure);
        // Whole: level 0 in order, no pair left, every noise key still recorded present findable through the levels.
        int noise = 0;
        byte[] previous = null;
        for (long n = list.first(); n != ArenaSkipList.NIL; n = list.next(n)) {
            byte[] k = list.key(n);
            if (previous != null) {
                assertThat(InternalKey.compare(previous, k)).isNegative();
            }
            assertThat(isPairPut(k) || isPairDeletion(k)).as("pair left: %s", show(k)).isFalse();
            assertThat(list.find(k)).isEqualTo(n);
            noise++;
            previous = k;
        }
        assertThat(noise).isEqualTo(noiseLive.size());
        for (String name : noiseLive.keySet()) {
            assertThat(list.find(java.util.Base64.getDecoder().decode(name))).isNotEqualTo(ArenaSkipList.NIL);
        }
    }

    /** A newer put over the pair's deletion: the search's node before the deletion is of the same key; it stays. */
    @Test
    void aNewerVersionOverThePairStaysAlone() {
        for (int round = 0; round < 200; round++) { // heights vary: both the compare-and-set and the search paths
            Memtable mem = new Memtable();
            byte[] k = "k".getBytes(StandardCharsets.US_ASCII);
            mem.add("a".getBytes(StandardCharsets.US_ASCII), 1, InternalKey.KIND_PUT, new byte[1]);
            byte[] put = mem.add(k, 2, InternalKey.KIND_PUT, new byte[1]);
            byte[] deletion = mem.add(k, 3, InternalKey.KIND_DELETE, new byte[0]);
            mem.addPurgeable(put, deletion);
            mem.add(k, 4, InternalKey.KIND_PUT, new byte[] {9});
            mem.add("z".getBytes(StandardCharsets.US_ASCII), 5, InternalKey.KIND_PUT, new byte[1]);
            mem.purge(Long.MAX_VALUE, new Snapshots());
            assertThat(mem.purgedPairs()).isEqualTo(1);
            assertThat(mem.size()).isEqualTo(3);
            byte[][] got = mem.get(k, InternalKey.MAX_SEQUENCE);
            assertThat(InternalKey.sequence(got[0])).isEqualTo(4);
            assertThat(mem.get(k, 3)).isNull();
        }
    }
}
