package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.base.InternalKey;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The arena skip list against a sorted map, alone and under concurrent inserts, removals and reads. */
class ArenaSkipListTest {
    private static byte[] key(String user, long sequence) {
        return InternalKey.encode(user.getBytes(StandardCharsets.UTF_8), sequence, InternalKey.KIND_PUT);
    }

    /** Everything the list holds, in its order. */
    private static List<byte[]> keys(ArenaSkipList list) {
        List<byte[]> out = new ArrayList<>();
        for (long n = list.first(); n != ArenaSkipList.NIL; n = list.next(n)) {
            out.add(list.key(n));
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void shouldAgreeWithASortedMapUnderRandomOperations(long seed) {
        Random random = new Random(seed);
        ArenaSkipList list = new ArenaSkipList();
        TreeMap<byte[], byte[]> model = new TreeMap<>(InternalKey.COMPARATOR);
        for (int step = 0; step < 4_000; step++) {
            byte[] user = ("k" + random.nextInt(300)).getBytes(StandardCharsets.UTF_8);
            byte[] k = InternalKey.encode(user, random.nextInt(4), random.nextInt(3)); // a put or a deletion
            int op = random.nextInt(10);
            if (op < 5) {
                byte[] value = new byte[random.nextInt(3) == 0 ? random.nextInt(2_000) : random.nextInt(20)];
                random.nextBytes(value);
                list.insert(k, value); // an equal key: the new value wins
                model.put(k, value);
            } else if (op < 7) {
                long[] before = new long[ArenaSkipList.MAX_HEIGHT];
                long[] succs = new long[ArenaSkipList.MAX_HEIGHT];
                long node = list.find(k, before);
                assertThat(node).isEqualTo(list.find(k));
                assertThat(node != ArenaSkipList.NIL).isEqualTo(model.containsKey(k));
                if (node != ArenaSkipList.NIL) {
                    int how = random.nextInt(3);
                    boolean removed = how == 0 ? list.remove(node) : how == 1 ? list.remove(node, k, before, succs)
                            : before[0] != ArenaSkipList.NIL ? list.removeAfter(before[0], node, k, before, succs)
                            : list.remove(node); // the search found no node linked to it
                    assertThat(removed).isTrue();
                    assertThat(list.remove(node)).as("removed twice").isFalse();
                    model.remove(k);
                }
            } else if (op < 8) {
                long node = list.seekAtLeast(k);
                Map.Entry<byte[], byte[]> e = model.ceilingEntry(k);
                assertNode(list, node, e);
                if (node != ArenaSkipList.NIL) { // read in place as on the copy
                    byte[] copy = list.key(node);
                    assertThat(Integer.signum(list.compareUserKey(node, user)))
                            .isEqualTo(Integer.signum(InternalKey.compareUserKey(copy, user)));
                    assertThat(list.kind(node)).isEqualTo(InternalKey.kind(copy));
                    assertThat(list.trailer(node) >>> 8).isEqualTo(InternalKey.sequence(copy));
                    assertThat(list.sameUserKey(node, k)).isEqualTo(InternalKey.sameUserKey(copy, k));
                }
            } else if (op < 9) {
                boolean orEqual = random.nextBoolean();
                long node = list.seekBelow(k, orEqual);
                assertNode(list, node, orEqual ? model.floorEntry(k) : model.lowerEntry(k));
            } else {
                assertNode(list, list.seekBelow(null, false), model.lastEntry());
                assertNode(list, list.first(), model.firstEntry());
            }
        }
        List<byte[]> held = keys(list);
        assertThat(held).hasSize(model.size());
        int i = 0;
        for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
            assertThat(held.get(i++)).isEqualTo(e.getKey());
            assertThat(list.value(list.find(e.getKey()))).isEqualTo(e.getValue());
        }
    }

    private static void assertNode(ArenaSkipList list, long node, Map.Entry<byte[], byte[]> expected) {
        if (expected == null) {
            assertThat(node).isEqualTo(ArenaSkipList.NIL);
            return;
        }
        assertThat(node).isNotEqualTo(ArenaSkipList.NIL);
        assertThat(list.key(node)).isEqualTo(expected.getKey());
        assertThat(list.value(node)).isEqualTo(expected.getValue());
    }

    @Test
    void shouldBuildFromSortedEntriesAsInsertsWould() {
        int n = 5_000;
        byte[][] keys = new byte[n][];
        byte[][] values = new byte[n][];
        Integer[] boxed = new Integer[n];
        for (int i = 0; i < n; i++) {
            keys[i] = key("user" + (i * 7919 % n), i);
            values[i] = ("v" + i).getBytes(StandardCharsets.UTF_8);
            boxed[i] = i;
        }
        Arrays.sort(boxed, (a, b) -> InternalKey.compare(keys[a], keys[b]));
        int[] order = Arrays.stream(boxed).mapToInt(Integer::intValue).toArray();
        ArenaSkipList built = new ArenaSkipList();
        long[] nodes = new long[n];
        for (int i = 0; i < n; i++) { // placed in input order, linked in key order, as recovery does
            nodes[i] = built.place(keys[i], values[i]);
        }
        ArenaSkipList.Builder builder = new ArenaSkipList.Builder(built);
        for (int i : order) {
            builder.append(nodes[i]);
        }
        builder.build();
        List<byte[]> held = keys(built);
        assertThat(held).hasSize(n);
        for (int i = 0; i < n; i++) {
            assertThat(held.get(i)).isEqualTo(keys[order[i]]);
            long node = built.find(keys[i]); // through the upper levels
            assertThat(built.value(node)).isEqualTo(values[i]);
        }
        built.insert(key("user0", 100_000), new byte[1]); // and takes inserts after
        assertThat(keys(built)).hasSize(n + 1);
    }

    @Test
    void shouldHoldLargeEntriesInTheirOwnChunks() {
        ArenaSkipList list = new ArenaSkipList();
        byte[] big = new byte[3 << 20];
        big[big.length - 1] = 7;
        list.insert(key("a", 1), new byte[10]);
        list.insert(key("b", 1), big);
        list.insert(key("c", 1), new byte[10]);
        byte[] longKey = new byte[64 * 1024];
        Arrays.fill(longKey, (byte) 'z');
        list.insert(InternalKey.encode(longKey, 1, InternalKey.KIND_PUT), new byte[5]);
        assertThat(list.value(list.find(key("b", 1)))).isEqualTo(big);
        assertThat(keys(list)).hasSize(4);
        // The small entries share the first chunk; the large value did not take a doubled chunk with it.
        assertThat(list.chunkBytes()).isLessThan(big.length + (1 << 20));
    }

    /**
     * A failed write gives back what it placed: a large entry's own chunk, and the last allocation of the current
     * chunk; an entry with another allocation after it cannot be given back, and its size is returned to be counted.
     */
    @Test
    void shouldGiveBackThePlacesOfEntriesNeverLinked() {
        ArenaSkipList list = new ArenaSkipList();
        list.insert(key("a", 1), new byte[10]);
        long chunks = list.chunkBytes();
        long big = list.place(key("b", 2), new byte[3 << 20]);
        assertThat(list.chunkBytes()).isGreaterThan(chunks + (3 << 20) - 1);
        long small = list.place(key("c", 2), new byte[100]);
        assertThat(list.unplace(small)).as("the last allocation").isZero();
        assertThat(list.unplace(big)).as("a chunk of its own").isZero();
        assertThat(list.chunkBytes()).isEqualTo(chunks);

        long first = list.place(key("d", 3), new byte[100]);
        long second = list.place(key("e", 3), new byte[100]);
        assertThat(list.unplace(first)).as("followed by another: kept, its size returned")
                .isBetween(100L + 2 * 8 + 8, 100L + 12 * 8 + 16 + 8);
        list.link(second, key("e", 3), new long[ArenaSkipList.MAX_HEIGHT], new long[ArenaSkipList.MAX_HEIGHT]);
        long again = list.place(key("f", 3), new byte[100]);
        assertThat(list.unplace(again)).isZero();
        long reused = list.place(key("g", 3), new byte[100]);
        assertThat(reused).as("the room given back is used again").isEqualTo(again);
        assertThat(keys(list)).containsExactly(key("a", 1), key("e", 3));
    }

    /**
     * Writers insert disjoint keys while one thread removes keys already inserted and a reader scans, checking the
     * order it sees: at the end the list holds exactly the keys inserted and not removed, each found from the head.
     */
    @ParameterizedTest
    @ValueSource(longs = {11, 12, 13})
    void shouldStaySortedAndCompleteUnderConcurrentInsertsRemovalsAndReads(long seed) throws Exception {
        ArenaSkipList list = new ArenaSkipList();
        int writers = 3;
        int perWriter = 20_000;
        ConcurrentLinkedQueue<byte[]> toRemove = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<byte[]> removed = new ConcurrentLinkedQueue<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean writing = new AtomicBoolean(true);
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int writer = w;
            threads.add(new Thread(() -> {
                Random random = new Random(seed * 31 + writer);
                await(start);
                for (int i = 0; i < perWriter; i++) {
                    byte[] k = key(String.format("%08d-%d", random.nextInt(1_000_000), writer), i);
                    list.insert(k, k);
                    if (i % 3 == 0) {
                        toRemove.add(k);
                    }
                }
            }));
        }
        Thread remover = new Thread(() -> {
            await(start);
            while (writing.get() || !toRemove.isEmpty()) {
                byte[] k = toRemove.poll();
                if (k == null) {
                    Thread.onSpinWait();
                    continue;
                }
                long node = list.find(k);
                if (node == ArenaSkipList.NIL || !list.remove(node)) {
                    failure.compareAndSet(null, new AssertionError("inserted key not found to remove"));
                    return;
                }
                removed.add(k);
            }
        });
        Thread reader = new Thread(() -> {
            await(start);
            while (writing.get()) {
                byte[] previous = null;
                for (long n = list.first(); n != ArenaSkipList.NIL; n = list.next(n)) {
                    byte[] k = list.key(n);
                    if (previous != null && InternalKey.compare(previous, k) >= 0) {
                        failure.compareAndSet(null, new AssertionError("out of order"));
                        return;
                    }
                    if (!Arrays.equals(list.value(n), k)) {
                        failure.compareAndSet(null, new AssertionError("value of another key"));
                        return;
                    }
                    previous = k;
                }
            }
        });
        threads.forEach(Thread::start);
        remover.start();
        reader.start();
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        writing.set(false);
        remover.join();
        reader.join();
        assertThat(failure.get()).isNull();
        TreeMap<byte[], Boolean> expected = new TreeMap<>(InternalKey.COMPARATOR);
        // Every key is unique: writer and sequence are in it.
        threads.clear();
        for (int w = 0; w < writers; w++) {
            Random random = new Random(seed * 31 + w);
            for (int i = 0; i < perWriter; i++) {
                expected.put(key(String.format("%08d-%d", random.nextInt(1_000_000), w), i), true);
            }
        }
        for (byte[] k : removed) {
            expected.remove(k);
            assertThat(list.find(k)).isEqualTo(ArenaSkipList.NIL);
        }
        List<byte[]> held = keys(list);
        assertThat(held).hasSize(expected.size());
        int i = 0;
        for (byte[] k : expected.keySet()) {
            assertThat(held.get(i++)).isEqualTo(k);
            assertThat(list.find(k)).isNotEqualTo(ArenaSkipList.NIL);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
