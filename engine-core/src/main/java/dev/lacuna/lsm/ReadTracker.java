package dev.lacuna.lsm;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Knows, without locks on the read path, a sequence number that every in-flight read is at or above —
 * so that a memtable may physically remove a put and the deletion that killed it once no reader can still
 * need the put. Two-epoch scheme (a grace period, as in read-copy-update): a read registers in the
 * current epoch before it picks its sequence number; the writer side flips the epoch once the previous
 * one has drained, and then knows that every live read picked its sequence after the flip.
 *
 * <p>Reads that use an explicit snapshot are not covered (their sequence is older by design); the
 * snapshot list protects them.
 */
final class ReadTracker {
    private static final int STRIPES = 16;
    private static final int PAD = 8; // longs between stripes: one cache line each

    private final AtomicLong epoch = new AtomicLong();
    /** In-flight reads per epoch parity and stripe. */
    private final AtomicLongArray active = new AtomicLongArray(2 * STRIPES * PAD);
    /** Sequence visible just before the current epoch began; guarded by the caller of {@link #advance}. */
    private long currentEpochFloor;
    private long safe;

    /** Registers a read; pass the token to {@link #end(long)}. Call before choosing the read's sequence. */
    long begin() {
        int stripe = stripe();
        while (true) {
            long e = epoch.get();
            int slot = slot(e, stripe);
            active.incrementAndGet(slot);
            if (epoch.get() == e) {
                return (long) slot;
            }
            active.decrementAndGet(slot); // the epoch moved on meanwhile: register in the new one
        }
    }

    void end(long token) {
        active.decrementAndGet((int) token);
    }

    /**
     * Moves the grace period on if the previous epoch has drained, and returns a sequence number that
     * every in-flight read (without an explicit snapshot) is at or above. The caller serialises calls
     * (the commit lock) and passes the sequence visible now.
     */
    long advance(long visibleNow) {
        long e = epoch.get();
        if (drained(e - 1)) {
            // Everyone still reading registered in epoch e, after the flip to e, so read at least the
            // floor recorded then. Start the next epoch from what is visible now.
            safe = currentEpochFloor;
            currentEpochFloor = visibleNow;
            epoch.set(e + 1);
        }
        return safe;
    }

    /** What the last {@link #advance} returned; the caller serialises it with advance (the commit lock). */
    long safe() {
        return safe;
    }

    private boolean drained(long e) {
        if (e < 0) {
            return true;
        }
        for (int stripe = 0; stripe < STRIPES; stripe++) {
            if (active.get(slot(e, stripe)) != 0) {
                return false;
            }
        }
        return true;
    }

    private static int slot(long epoch, int stripe) {
        return ((int) (epoch & 1) * STRIPES + stripe) * PAD;
    }

    private static int stripe() {
        return (int) (Thread.currentThread().getId() % STRIPES);
    }
}
