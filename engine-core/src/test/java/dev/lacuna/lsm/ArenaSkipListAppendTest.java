package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.base.InternalKey;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Inserts of keys above all others, which start from the list's tails instead of the head
 * ({@code ArenaSkipList.spliceAtEnd}): they must land where a search from the head would put them while the tails are
 * removed, overtaken, or stale.
 */
class ArenaSkipListAppendTest {
    private static byte[] key(int pos, long sequence) {
        return InternalKey.encode(String.format("%07d", pos).getBytes(StandardCharsets.UTF_8), sequence,
                InternalKey.KIND_PUT);
    }

    private static Set<String> liveSet() {
        return ConcurrentHashMap.newKeySet();
    }

    @Test
    void appendsAfterARemovedTailABuiltListAndAnEqualKeyKeepEveryLevelInOrder() throws Exception {
        ArenaSkipList list = new ArenaSkipList();
        Set<String> live = liveSet();
        ArenaSkipList.Builder builder = new ArenaSkipList.Builder(list);
        for (int pos = 0; pos < 200; pos += 2) {
            byte[] k = key(pos, 1);
            builder.append(list.place(k, k));
            live.add(Arrays.toString(k));
        }
        builder.build();
        long last = 0;
        for (int pos = 200; pos < 400; pos++) {
            byte[] k = key(pos, 1);
            last = list.insert(k, k); // after the built list's tails, then after its own
            live.add(Arrays.toString(k));
        }
        assertThat(list.remove(last)).isTrue(); // the tail of level 0 (and of every level it had) is now deleted
        live.remove(Arrays.toString(key(399, 1)));
        for (int pos = 400; pos < 500; pos++) {
            byte[] k = key(pos, 1);
            list.insert(k, k);
            live.add(Arrays.toString(k));
        }
        byte[] equal = key(499, 1);
        list.insert(equal, new byte[] {7}); // an equal key at the end replaces the tail
        byte[] below = key(1, 1);
        list.insert(below, below); // below the tails: searched from the head
        live.add(Arrays.toString(below));
        ArenaSkipListStressTest.Levels.verify(list, live);
        assertThat(list.value(list.find(equal))).containsExactly(7);
    }

    /**
     * Three threads take ascending positions from one counter, as a sequential load's writers do, so that their inserts
     * race each other at the end; a remover removes half of them soon after (tails among them), a third thread inserts
     * keys below the end, a fourth inserts keys equal to ones just appended. After, every level is in order, holds no
     * deleted node, and holds only nodes level 0 holds; level 0 holds exactly what is live.
     */
    @Test
    void concurrentAppendsRacingRemovalsAndInsertsBelowLeaveEveryLevelConsistent() throws Exception {
        for (int round = 0; round < 5; round++) {
            ArenaSkipList list = new ArenaSkipList();
            Set<String> live = liveSet();
            AtomicInteger counter = new AtomicInteger();
            AtomicBoolean appending = new AtomicBoolean(true);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            ConcurrentLinkedQueue<long[]> toRemove = new ConcurrentLinkedQueue<>();
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> appenders = new ArrayList<>();
            int perAppender = 30_000;
            for (int t = 0; t < 3; t++) {
                appenders.add(new Thread(() -> {
                    StressThreads.await(start);
                    for (int i = 0; i < perAppender; i++) {
                        int pos = counter.getAndIncrement();
                        byte[] k = key(pos, pos);
                        live.add(Arrays.toString(k));
                        long node = list.insert(k, k);
                        if (pos % 2 == 0 && pos % 10 != 7) { // never one the equal-key thread writes again
                            toRemove.add(new long[] {node, pos});
                        }
                    }
                }));
            }
            int r = round;
            List<Thread> threads = new ArrayList<>(appenders);
            threads.add(new Thread(() -> {
                StressThreads.await(start);
                while (appending.get() || !toRemove.isEmpty()) {
                    long[] next = toRemove.poll();
                    if (next == null) {
                        Thread.onSpinWait();
                        continue;
                    }
                    live.remove(Arrays.toString(key((int) next[1], next[1])));
                    if (!list.remove(next[0])) {
                        failure.compareAndSet(null, new AssertionError("node of " + next[1] + " removed already"));
                    }
                }
            }));
            threads.add(new Thread(() -> {
                Random random = new Random(r);
                StressThreads.await(start);
                for (int i = 0; appending.get(); i++) {
                    int end = counter.get();
                    int pos = Math.max(0, end - 1 - random.nextInt(50)); // just below the end, where the tails are
                    byte[] k = key(pos, 10_000_000L + i); // a version no appender writes: unique
                    list.insert(k, k);
                    live.add(Arrays.toString(k));
                }
            }));
            threads.add(new Thread(() -> {
                StressThreads.await(start);
                while (appending.get()) {
                    int pos = counter.get() - 1;
                    pos -= Math.floorMod(pos - 7, 10); // the last position ending in 7: appended or about to be
                    if (pos >= 0) {
                        byte[] k = key(pos, pos);
                        list.insert(k, k); // equal to the appender's: one of the two replaces the other
                    }
                }
            }));
            threads.forEach(Thread::start);
            start.countDown();
            for (Thread t : appenders) {
                t.join();
            }
            appending.set(false);
            for (Thread t : threads) {
                t.join();
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            ArenaSkipListStressTest.Levels.verify(list, live);
        }
    }
}
