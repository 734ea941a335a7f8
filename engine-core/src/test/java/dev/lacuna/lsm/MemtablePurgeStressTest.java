package dev.lacuna.lsm;

import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.junit.jupiter.api.Test;

/**
 * Adversarial review of the purge invariant on the arena memtable: puts are inserted by several threads at once,
 * deletions with no put in flight, and purges remove dead pairs (put first) while puts are inserted and readers read
 * without locks. A reader that started after a deletion was added must never see its put without it: not walking
 * forward, not walking backward (with the reverse-scan handshake), not by a point lookup or a seek.
 */
class MemtablePurgeStressTest {
    private static final int KEYS = 40_000;
    private static final int BATCH = 40; // pairs a purge removes at once

    private static byte[] user(int i) {
        return String.format("q%06d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static int index(byte[] internalKey) {
        byte[] u = InternalKey.userKey(internalKey);
        if (u.length != 7) {
            return -1; // a noise key
        }
        return Integer.parseInt(new String(u, 1, 6, StandardCharsets.US_ASCII));
    }

    @Test
    void noReaderSeesAPurgedPutWithoutItsDeletion() throws Exception {
        Memtable mem = new Memtable();
        Snapshots snapshots = new Snapshots();
        AtomicLong sequence = new AtomicLong();
        ReentrantReadWriteLock inFlight = new ReentrantReadWriteLock(); // read: a put in flight; write: a deletion
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong deletedUpTo = new AtomicLong(-1); // every q key up to this has its deletion added
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            int id = w;
            threads.add(new Thread(() -> {
                Random random = new Random(id);
                StressThreads.await(start);
                while (running.get()) {
                    // Noise right after a q key near the purger's, so that the pairs' neighbours change.
                    long near = Math.max(0, deletedUpTo.get() + random.nextInt(2 * BATCH) - BATCH);
                    byte[] noise = (new String(user((int) near), StandardCharsets.US_ASCII) + "x" + random.nextInt(4))
                            .getBytes(StandardCharsets.US_ASCII);
                    inFlight.readLock().lock();
                    try {
                        mem.add(noise, sequence.incrementAndGet(), InternalKey.KIND_PUT, new byte[random.nextInt(30)]);
                    } finally {
                        inFlight.readLock().unlock();
                    }
                }
            }));
        }
        Thread purger = new Thread(() -> {
            StressThreads.await(start);
            try {
                for (int first = 0; first < KEYS && failure.get() == null; first += BATCH) {
                    byte[][] puts = new byte[BATCH][];
                    for (int i = first; i < first + BATCH; i++) {
                        inFlight.readLock().lock();
                        try {
                            puts[i - first] = mem.add(user(i), sequence.incrementAndGet(), InternalKey.KIND_PUT,
                                    new byte[8]);
                        } finally {
                            inFlight.readLock().unlock();
                        }
                    }
                    inFlight.writeLock().lock();
                    try {
                        for (int i = first; i < first + BATCH; i++) {
                            byte[] deletion = mem.add(user(i), sequence.incrementAndGet(), InternalKey.KIND_DELETE,
                                    new byte[0]);
                            mem.addPurgeable(puts[i - first], deletion);
                        }
                        deletedUpTo.set(first + BATCH - 1);
                    } finally {
                        inFlight.writeLock().unlock();
                    }
                    mem.purge(Long.MAX_VALUE, snapshots); // puts may be in flight meanwhile
                }
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            } finally {
                running.set(false);
            }
        });
        threads.add(purger);
        for (int r = 0; r < 3; r++) {
            int mode = r;
            threads.add(new Thread(() -> {
                Random random = new Random(50 + mode);
                StressThreads.await(start);
                try {
                    while (running.get() && failure.get() == null) {
                        if (mode == 0) {
                            forward(mem, deletedUpTo.get());
                        } else if (mode == 1) {
                            // Now and then only: a reverse scan holds every purge back while it runs.
                            if (random.nextInt(20) == 0) {
                                backward(mem, deletedUpTo.get());
                            } else {
                                forward(mem, deletedUpTo.get());
                            }
                        } else {
                            point(mem, deletedUpTo.get(), random);
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        StressThreads.runAll(threads, start, failure);
        mem.purge(Long.MAX_VALUE, snapshots); // those a reverse scan held back
        try (InternalIterator it = mem.iterator()) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                if (index(it.key()) >= 0) {
                    throw new AssertionError("left after the purges: key " + index(it.key()));
                }
            }
        }
        if (mem.deadPairs() != 0 || mem.purgedPairs() != KEYS) {
            throw new AssertionError("dead pairs " + mem.deadPairs() + ", purged " + mem.purgedPairs());
        }
    }

    /** Walks forward from a key a little before the purger's: a put of a deleted key follows its deletion. */
    private static void forward(Memtable mem, long deleted) {
        try (InternalIterator it = mem.iterator()) {
            it.seek(InternalKey.seekKey(user((int) Math.max(0, deleted - BATCH)), InternalKey.MAX_SEQUENCE));
            byte[] previous = null;
            for (int steps = 0; it.valid() && steps < 200; steps++, it.next()) {
                byte[] k = it.key();
                if (previous != null && InternalKey.compare(previous, k) >= 0) {
                    throw new AssertionError("forward out of order");
                }
                int i = index(k);
                if (i >= 0 && i <= deleted && !InternalKey.isDeletion(k)) {
                    boolean afterItsDeletion = previous != null && index(previous) == i
                            && InternalKey.isDeletion(previous);
                    if (!afterItsDeletion && steps > 0) {
                        throw new AssertionError("forward: the put of deleted key " + i + " alone");
                    }
                    if (steps == 0) {
                        throw new AssertionError("forward: a seek to deleted key " + i + " found its put");
                    }
                }
                previous = k;
            }
        }
    }

    /** Walks backward (announced, as a reverse scan does): a put of a deleted key is followed by its deletion. */
    private static void backward(Memtable mem, long deleted) {
        mem.beginReverseScan();
        try (InternalIterator it = mem.iterator()) {
            it.seekForPrev(InternalKey.encode(user((int) deleted + BATCH), 0, InternalKey.KIND_DELETE));
            byte[] put = null;
            for (int steps = 0; it.valid() && steps < 200; steps++, it.prev()) {
                byte[] k = it.key();
                if (put != null) {
                    if (index(k) != index(put) || !InternalKey.isDeletion(k)) {
                        throw new AssertionError("backward: the put of deleted key " + index(put) + " alone");
                    }
                    put = null;
                }
                int i = index(k);
                if (i >= 0 && i <= deleted && !InternalKey.isDeletion(k)) {
                    put = k;
                }
            }
        } finally {
            mem.endReverseScan();
        }
    }

    private static void point(Memtable mem, long deleted, Random random) {
        if (deleted < 0) {
            return;
        }
        int i = (int) Math.max(0, deleted - random.nextInt(BATCH));
        byte[][] got = mem.get(user(i), InternalKey.MAX_SEQUENCE);
        if (got != null && !InternalKey.isDeletion(got[0])) {
            throw new AssertionError("get: the put of deleted key " + i + " alone");
        }
        if (mem.solePut(user(i)) != null) {
            throw new AssertionError("solePut: the put of deleted key " + i + " alone");
        }
    }
}
