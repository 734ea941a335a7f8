package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Review of b6feb27: recovery's decoder threads place writes into one {@link ArenaSkipList} at once
 * ({@link ArenaSkipList#place(byte[], long, byte[])}), the arena's allocation under its monitor, each node written
 * with plain writes, and the chunk table replaced by a longer copy while other threads write into chunks. Here
 * several threads place small writes and, now and then, one larger than a chunk's quarter (a chunk of its own: the
 * chunk table grows from 4 slots to over 64 under the placements); once every thread is taken back through its
 * Future (as Replay.Decoder does), each node must hold exactly what was placed, and the memtable built from the
 * sorted nodes must equal one built by {@link Memtable#add} in sequence order, statistics included.
 */
class ReplayPlaceConcurrencyReviewTest {
    private static final int THREADS = 4;
    private static final int PER_THREAD = 20_000;

    @Test
    void shouldKeepEveryWritePlacedByConcurrentDecoders() throws Exception {
        ArenaSkipList list = new ArenaSkipList();
        CyclicBarrier start = new CyclicBarrier(THREADS);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        List<Future<long[]>> placed = new ArrayList<>();
        try {
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                placed.add(pool.submit(() -> {
                    start.await();
                    long[] nodes = new long[PER_THREAD];
                    for (int i = 0; i < PER_THREAD; i++) {
                        nodes[i] = list.place(userKey(thread, i), trailer(thread, i), value(thread, i));
                    }
                    return nodes;
                }));
            }
            long[][] byThread = new long[THREADS][];
            for (int t = 0; t < THREADS; t++) {
                byThread[t] = placed.get(t).get();
            }

            // Every node as placed, read on this thread.
            long[] all = new long[THREADS * PER_THREAD];
            int n = 0;
            for (int t = 0; t < THREADS; t++) {
                for (int i = 0; i < PER_THREAD; i++) {
                    long node = byThread[t][i];
                    assertThat(list.key(node)).as("key of write %d of thread %d", i, t)
                            .isEqualTo(InternalKey.encode(userKey(t, i), trailer(t, i) >>> 8, (int) trailer(t, i) & 0xff));
                    assertThat(list.value(node)).as("value of write %d of thread %d", i, t).isEqualTo(value(t, i));
                    all[n++] = node;
                }
            }

            InternalKeySort.Result order = InternalKeySort.order(list, all, n);
            assertThat(order.keyAndSequenceTwice()).isFalse();
            Memtable recovered = Memtable.recovered(list, order.order());

            Memtable added = new Memtable();
            for (int i = 0; i < PER_THREAD; i++) { // sequence order: i, then thread
                for (int t = 0; t < THREADS; t++) {
                    long trailer = trailer(t, i);
                    added.add(userKey(t, i), trailer >>> 8, (int) trailer & 0xff, value(t, i));
                }
            }
            assertThat(entries(recovered)).isEqualTo(entries(added));
            assertThat(recovered.bytes()).isEqualTo(added.bytes());
            assertThat(recovered.added()).isEqualTo(added.added());
            assertThat(recovered.deletionsAdded()).isEqualTo(added.deletionsAdded());
            assertThat(recovered.deadPairs()).isEqualTo(added.deadPairs());
            assertThat(recovered.minSequence()).isEqualTo(added.minSequence());
            assertThat(recovered.maxSequence()).isEqualTo(added.maxSequence());
        } finally {
            pool.shutdownNow();
        }
    }

    /** Keys shared by the threads (versions of one key from several threads), some prefixes of others. */
    private static byte[] userKey(int thread, int i) {
        int k = (i * 7 + thread * 13) % 3_000;
        byte[] base = ByteBuffer.allocate(4).putInt(k).array();
        return k % 5 == 0 ? Arrays.copyOf(base, 3 + k % 9) : base;
    }

    /** Sequence i * THREADS + thread + 1: one per write; a deletion now and then. */
    private static long trailer(int thread, int i) {
        long sequence = (long) i * THREADS + thread + 1;
        int kind = (i + thread) % 11 == 0 ? InternalKey.KIND_DELETE
                : (i + thread) % 17 == 0 ? InternalKey.KIND_SINGLE_DELETE : InternalKey.KIND_PUT;
        return sequence << 8 | kind;
    }

    private static byte[] value(int thread, int i) {
        if ((trailer(thread, i) & 0xff) != InternalKey.KIND_PUT) {
            return new byte[0];
        }
        // One write in 1,000 larger than a quarter chunk: a chunk of its own, so the chunk table grows.
        int length = i % 1_000 == 999 ? ArenaSkipList.LARGE_CHUNK / 4 + 8 : new Random(i * 31L + thread).nextInt(200);
        byte[] v = new byte[length];
        new Random(i * 131L + thread).nextBytes(v);
        return v;
    }

    private static List<String> entries(Memtable mem) {
        List<String> out = new ArrayList<>();
        try (InternalIterator it = mem.iterator()) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                out.add(Arrays.toString(it.key()) + "=" + Arrays.hashCode(it.value()) + "/" + it.value().length);
            }
        }
        return out;
    }
}
