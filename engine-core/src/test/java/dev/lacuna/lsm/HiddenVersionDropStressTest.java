package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Drops of hidden versions ({@link Memtable#add} with a safe sequence) racing with readers, as the write path runs
 * them: two writers take sequences in order under a lock (where the safe sequence is advanced, as the commit lock
 * does), insert outside it in parallel, and publish in sequence order; readers register with a {@link ReadTracker}
 * before they pick the visible sequence, or read at a snapshot. Every read must find, for every key, exactly the
 * newest version at or below its sequence, and its value: walking forward, walking backward, by a point lookup.
 * Size: {@code -Dhidden.writes} (default 200,000).
 */
class HiddenVersionDropStressTest {
    private static final int KEYS = 64;
    private static final int WRITES = Integer.getInteger("hidden.writes", 200_000);
    private static final int SPAN = 8;

    private final Memtable mem = new Memtable();
    private final Snapshots snapshots = new Snapshots();
    private final ReadTracker tracker = new ReadTracker();
    private final int[] keyOf = new int[KEYS + WRITES + 1]; // by sequence; set before the sequence is published
    private final boolean[] inserted = new boolean[KEYS + WRITES + 1]; // under publish's monitor
    private final AtomicLong visible = new AtomicLong();
    private final Object order = new Object();
    private long next = 1; // under order
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicBoolean writing = new AtomicBoolean(true);
    private final AtomicLong reads = new AtomicLong();

    private static byte[] user(int key) {
        return String.format("k%02d", key).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] valueOf(long sequence) {
        return ByteBuffer.allocate(16).putLong(sequence).putLong(~sequence).array();
    }

    @Test
    void everyReadFindsTheNewestVersionAtItsSequence() throws Exception {
        Memtable.Scratch scratch = new Memtable.Scratch();
        for (int k = 0; k < KEYS; k++) {
            write(k, scratch);
        }
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        AtomicLong written = new AtomicLong(KEYS);
        for (int w = 0; w < 2; w++) {
            int id = w;
            threads.add(new Thread(() -> {
                Random random = new Random(id);
                Memtable.Scratch own = new Memtable.Scratch();
                StressThreads.await(start);
                try {
                    while (written.incrementAndGet() <= KEYS + WRITES && failure.get() == null) {
                        write(random.nextInt(KEYS), own);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                } finally {
                    writing.set(false);
                }
            }));
        }
        for (int r = 0; r < 3; r++) {
            int mode = r;
            threads.add(new Thread(() -> {
                Random random = new Random(100 + mode);
                StressThreads.await(start);
                try {
                    while (writing.get() && failure.get() == null) {
                        // Paced by the writes, not flat out: three readers spinning on two processors starve them.
                        long mark = written.get();
                        while (writing.get() && written.get() < mark + 16) {
                            Thread.onSpinWait();
                        }
                        if (random.nextInt(8) == 0) {
                            readAtASnapshot(mode, random);
                        } else {
                            long token = tracker.begin(); // before the sequence is chosen, as ReadPath
                            try {
                                read(mode, visible.get(), random);
                            } finally {
                                tracker.end(token);
                            }
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        StressThreads.runAll(threads, start, failure);
        System.out.printf("hidden version drops: %d writes, %d reads checked, %d versions dropped, %d held%n",
                WRITES, reads.get(), mem.hiddenDropped(), mem.size());
        assertThat(mem.hiddenDropped()).as("versions dropped").isGreaterThan(WRITES / 2);
    }

    /** Takes the next sequence for {@code key}, inserts it (in parallel with the other writer) and publishes it. */
    private void write(int key, Memtable.Scratch scratch) {
        long sequence;
        long safe;
        synchronized (order) {
            sequence = next++;
            keyOf[(int) sequence] = key;
            safe = tracker.advance(visible.get()); // as the commit lock's holder does
        }
        mem.add(mem.place(user(key), InternalKey.KIND_PUT, valueOf(sequence)), sequence, scratch, safe, snapshots);
        synchronized (inserted) {
            inserted[(int) sequence] = true;
            long v = visible.get();
            while (v + 1 < inserted.length && inserted[(int) v + 1]) {
                v++;
            }
            visible.set(v); // every write up to v is in: readers at v find them all
        }
    }

    /** Reads at a snapshot taken now and held over a few reads, while the writers go on. */
    private void readAtASnapshot(int mode, Random random) {
        long at;
        long token = tracker.begin(); // as LsmStore#snapshot: registered as a read until the list has it
        try {
            synchronized (snapshots) {
                at = visible.get();
                snapshots.acquire(at);
            }
        } finally {
            tracker.end(token);
        }
        try {
            for (int i = 0, n = 1 + random.nextInt(4); i < n; i++) {
                read(mode, at, random);
            }
        } finally {
            snapshots.release(at);
        }
    }

    /** Reads {@link #SPAN} keys from a random one on, as short reads do: a read holds the safe sequence back. */
    private void read(int mode, long at, Random random) {
        int from = random.nextInt(KEYS - SPAN + 1);
        switch (mode) {
            case 0 -> forward(at, from);
            case 1 -> backward(at, from);
            default -> {
                for (int k = from; k < from + SPAN; k++) {
                    byte[][] found = mem.get(user(k), at);
                    check(k, found == null ? null : found[0], found == null ? null : found[1], at, "point");
                }
            }
        }
        reads.incrementAndGet();
    }

    private void forward(long at, int from) {
        int key = from;
        try (InternalIterator it = mem.iterator()) {
            for (it.seek(InternalKey.seekKey(user(from), at)); it.valid() && key < from + SPAN; it.next()) {
                byte[] k = it.key();
                if (InternalKey.sequence(k) > at || !InternalKey.sameUserKey(k, encoded(key))) {
                    continue; // not visible at this sequence, or an older version of a key already found
                }
                check(key, k, it.value(), at, "forward");
                key++;
            }
        }
        if (key != from + SPAN) {
            throw new AssertionError("forward at " + at + ": found " + (key - from) + " of " + SPAN + " keys");
        }
    }

    private void backward(long at, int from) {
        int last = from + SPAN - 1;
        mem.beginReverseScan();
        try (InternalIterator it = mem.iterator()) {
            int key = last;
            byte[] newest = null; // the newest version at or below at of key seen so far (walking back: older first)
            byte[] value = null;
            it.seekForPrev(InternalKey.encode(user(last), 0, InternalKey.KIND_DELETE)); // its oldest version on
            for (; it.valid(); it.prev()) {
                byte[] k = it.key();
                if (!InternalKey.sameUserKey(k, encoded(key))) {
                    check(key, newest, value, at, "backward");
                    if (--key < from) {
                        break;
                    }
                    newest = null;
                    value = null;
                }
                if (InternalKey.sequence(k) <= at) {
                    newest = k;
                    value = it.value();
                }
            }
            if (key == from) {
                check(key, newest, value, at, "backward");
            } else if (key > from) {
                throw new AssertionError("backward at " + at + ": ended at key " + key);
            }
        } finally {
            mem.endReverseScan();
        }
    }

    private static byte[] encoded(int key) {
        return InternalKey.encode(user(key), 0, InternalKey.KIND_PUT);
    }

    /** {@code found} must be {@code key}'s newest version at or below {@code at}, with its value. */
    private void check(int key, byte[] found, byte[] value, long at, String how) {
        if (found == null) {
            throw new AssertionError(how + " at " + at + ": key " + key + " not found; versions held now:"
                    + heldVersions(key));
        }
        long sequence = InternalKey.sequence(found);
        if (!InternalKey.sameUserKey(found, encoded(key)) || sequence > at || keyOf[(int) sequence] != key) {
            throw new AssertionError(how + " at " + at + ": key " + key + " found as sequence " + sequence);
        }
        for (long s = sequence + 1; s <= at; s++) {
            if (keyOf[(int) s] == key) {
                throw new AssertionError(how + " at " + at + ": key " + key + " found at " + sequence
                        + ", but its newest version there is " + s + " or newer");
            }
        }
        if (!java.util.Arrays.equals(value, valueOf(sequence))) {
            throw new AssertionError(how + " at " + at + ": key " + key + " at " + sequence + " has another's value");
        }
    }

    /** The sequences of {@code key}'s versions in the memtable now, for a failure's message. */
    private String heldVersions(int key) {
        StringBuilder out = new StringBuilder();
        try (InternalIterator it = mem.iterator()) {
            for (it.seek(InternalKey.seekKey(user(key), InternalKey.MAX_SEQUENCE));
                    it.valid() && InternalKey.sameUserKey(it.key(), encoded(key)); it.next()) {
                out.append(' ').append(InternalKey.sequence(it.key()));
            }
        }
        return out.toString();
    }
}
