package dev.lacuna.lsm;

import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;
import java.util.Arrays;

/**
 * Turns a merged stream of internal entries into the user's view at one snapshot: for each user key in
 * {@code [lower, upper)}, the newest version with sequence ≤ snapshot, unless that version is a deletion.
 * Superseded versions, deletions and the puts they hide are skipped and <em>counted</em>
 * ({@link #skipped()}), so the cost of dead entries a scan pays is visible, not assumed. This is
 * LevelDB's DBIter, one direction per iterator.
 *
 * <p>Walking forward, once {@value #MAX_SEQUENTIAL_SKIPS} versions of one user key have been stepped over, the
 * rest are passed with one seek (LevelDB's and RocksDB's {@code max_sequential_skip_in_iterations}): a hot key
 * rewritten constantly can hold thousands of versions in memtables and level-0 tables, and a read stepping over
 * each would cost in proportion to the key's history. A seek counts as one entry passed: the count is the
 * cost paid.
 *
 * <p>Walking forward, it reads each internal key in place ({@link InternalIterator#keyBuffer()}) and, in the common
 * case, copies only the key of the entry it returns or of a deletion it passes, into a buffer of its own that it
 * reuses (a key whose versions are all newer than the snapshot, and a seek past versions, still make one each): it needs
 * that key after the iterator moved on (to pass the key's older versions), and copying every key stepped over
 * into a fresh array cost an allocation per entry besides the value's.
 */
final class UserIterator implements AutoCloseable {
    /** Versions of one user key stepped over one by one before the rest are passed with a seek. */
    static final int MAX_SEQUENTIAL_SKIPS = 8;

    private final InternalIterator it;
    private final long snapshot;
    private final byte[] lower; // inclusive user key, or null
    private final byte[] upper; // exclusive user key, or null
    private final boolean reverse;
    private final Runnable onClose;

    /**
     * The internal key of the entry returned in {@code current[0, currentLength)}, or null: its user key is copied
     * out only if asked for. Walking forward, this is {@link #held}; walking backwards, an array of its own.
     */
    private byte[] current;
    private int currentLength;
    /** Walking forward: the key of the entry returned or of the deletion being passed, copied out of the iterator. */
    private byte[] held = new byte[64];
    private byte[] key; // the user key of current, once asked for
    private byte[] value;
    private long passed;   // internal entries stepped over
    private long returned; // user entries returned
    /**
     * Set once by the first close. Atomic: a user's close and the reaper's (for a cursor the user dropped) may
     * race, and a second run of {@code onClose} would release the cursor's views twice.
     */
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

    UserIterator(InternalIterator it, long snapshot, byte[] lower, byte[] upper, boolean reverse, Runnable onClose) {
        this.it = it;
        this.snapshot = snapshot;
        this.lower = lower;
        this.upper = upper;
        this.reverse = reverse;
        this.onClose = onClose;
        if (reverse) {
            if (upper == null) {
                it.seekToLast();
            } else {
                it.seekForPrev(InternalKey.seekKey(upper, InternalKey.MAX_SEQUENCE));
            }
            findPrev();
        } else {
            if (lower == null) {
                it.seekToFirst();
            } else {
                it.seek(InternalKey.seekKey(lower, InternalKey.MAX_SEQUENCE));
            }
            findNext();
        }
    }

    boolean valid() {
        return current != null;
    }

    /** The user key: copied out of the internal key on the first call (a query reads only the values). */
    byte[] key() {
        if (key == null && current != null) {
            key = Arrays.copyOf(current, currentLength - InternalKey.TRAILER_SIZE);
        }
        return key;
    }

    byte[] value() {
        return value;
    }

    /** Internal entries passed over without being returned: older versions, deletions, hidden puts. */
    long skipped() {
        return passed - returned;
    }

    void next() {
        if (reverse) {
            findPrev(); // the internal iterator already sits before the returned key's versions
        } else {
            skipVersionsOf(current, currentLength, 0); // the older versions of the key just returned
            findNext();
        }
    }

    private void findNext() {
        current = null;
        key = null;
        value = null;
        byte[] newerKey = null; // the user key whose versions written after the snapshot are being passed
        int newer = 0;
        while (it.valid()) {
            byte[] ik = it.keyBuffer(); // rewritten by the iterator's next move
            int length = it.keyLength();
            if (upper != null && InternalKey.compareUserKey(ik, length, upper) >= 0) {
                return;
            }
            long trailer = InternalKey.trailer(ik, length);
            if (trailer >>> 8 > snapshot) {
                // Written after the snapshot: past a few of one key's, seek to its newest version the snapshot sees.
                if (newerKey != null && InternalKey.compareUserKey(ik, length, newerKey) == 0) {
                    if (++newer >= MAX_SEQUENTIAL_SKIPS) {
                        passed++;
                        it.seek(InternalKey.seekKey(newerKey, snapshot));
                        newerKey = null;
                        continue;
                    }
                } else {
                    newerKey = Arrays.copyOf(ik, length - InternalKey.TRAILER_SIZE);
                    newer = 1;
                }
                step();
                continue;
            }
            hold(ik, length);
            if ((trailer & 0xFF) != InternalKey.KIND_PUT) {
                step();
                skipVersionsOf(held, length, 1); // hidden by the deletion
                continue;
            }
            current = held;
            currentLength = length;
            value = it.value();
            returned++;
            step();
            return;
        }
    }

    /** Copies the key the iterator is on into {@link #held}, which the iterator's moves leave alone. */
    private void hold(byte[] ik, int length) {
        if (held.length < length) {
            held = new byte[Math.max(length, 2 * held.length)];
        }
        System.arraycopy(ik, 0, held, 0, length);
    }

    /**
     * Walking backwards, a user key's versions come oldest first; the last visible one seen before the
     * user key changes is the answer for that key.
     */
    private void findPrev() {
        current = null;
        key = null;
        value = null;
        byte[] savedKey = null;
        byte[] savedValue = null;
        boolean savedIsPut = false;
        while (it.valid()) {
            byte[] ik = it.key();
            if (savedKey != null && !InternalKey.sameUserKey(ik, savedKey)) {
                if (savedIsPut) {
                    break;
                }
                savedKey = null; // that key is deleted at the snapshot; carry on with this one
            }
            if (lower != null && InternalKey.compareUserKey(ik, lower) < 0) {
                break;
            }
            if (InternalKey.sequence(ik) <= snapshot) {
                savedKey = ik; // newer than any version of this key saved before
                savedIsPut = !InternalKey.isDeletion(ik);
                savedValue = savedIsPut ? it.value() : null;
            }
            passed++;
            it.prev();
        }
        if (savedKey != null && savedIsPut) {
            current = savedKey;
            currentLength = savedKey.length;
            value = savedValue;
            returned++;
        }
    }

    /**
     * Passes the versions of the user key of the internal key in {@code internalKey[0, length)} (an entry already
     * passed, whose array the iterator's moves leave alone) the iterator sits on, {@code alreadyPassed} of them
     * passed already: one by one up to {@link #MAX_SEQUENTIAL_SKIPS}, then the rest with one seek past the key.
     */
    private void skipVersionsOf(byte[] internalKey, int length, int alreadyPassed) {
        int n = alreadyPassed;
        while (it.valid() && InternalKey.sameUserKey(it.keyBuffer(), it.keyLength(), internalKey, length)) {
            if (n++ >= MAX_SEQUENTIAL_SKIPS) {
                passed++;
                // The smallest internal key of the user key: only a version at sequence 0 of the lowest kind
                // sorts at or after it, and the loop steps over that one.
                byte[] userKey = Arrays.copyOf(internalKey, length - InternalKey.TRAILER_SIZE);
                it.seek(InternalKey.encode(userKey, 0, 0));
                n = Integer.MIN_VALUE; // one seek at most
                continue;
            }
            step();
        }
    }

    private void step() {
        passed++;
        it.next();
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            try {
                it.close();
            } finally {
                onClose.run();
            }
        }
    }
}
