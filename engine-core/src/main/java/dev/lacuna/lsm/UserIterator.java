package dev.lacuna.lsm;

import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;

/**
 * Turns a merged stream of internal entries into the user's view at one snapshot: for each user key in
 * {@code [lower, upper)}, the newest version with sequence ≤ snapshot, unless that version is a deletion.
 * Superseded versions, deletions and the puts they hide are skipped and <em>counted</em>
 * ({@link #skipped()}), so the cost of dead entries a scan pays is visible, not assumed. This is
 * LevelDB's DBIter, one direction per iterator.
 */
final class UserIterator implements AutoCloseable {
    private final InternalIterator it;
    private final long snapshot;
    private final byte[] lower; // inclusive user key, or null
    private final byte[] upper; // exclusive user key, or null
    private final boolean reverse;
    private final Runnable onClose;

    private byte[] key;
    private byte[] value;
    private long passed;   // internal entries stepped over
    private long returned; // user entries returned
    private boolean closed;

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
        return key != null;
    }

    byte[] key() {
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
            // Pass over the older versions of the key just returned.
            while (it.valid() && InternalKey.compareUserKey(it.key(), key) == 0) {
                step();
            }
            findNext();
        }
    }

    private void findNext() {
        key = null;
        value = null;
        while (it.valid()) {
            byte[] ik = it.key();
            if (upper != null && InternalKey.compareUserKey(ik, upper) >= 0) {
                return;
            }
            if (InternalKey.sequence(ik) > snapshot) {
                step(); // written after the snapshot
                continue;
            }
            if (InternalKey.isDeletion(ik)) {
                step();
                while (it.valid() && InternalKey.sameUserKey(it.key(), ik)) {
                    step(); // hidden by the deletion
                }
                continue;
            }
            key = InternalKey.userKey(ik);
            value = it.value();
            returned++;
            step();
            return;
        }
    }

    /**
     * Walking backwards, a user key's versions come oldest first; the last visible one seen before the
     * user key changes is the answer for that key.
     */
    private void findPrev() {
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
            key = InternalKey.userKey(savedKey);
            value = savedValue;
            returned++;
        }
    }

    private void step() {
        passed++;
        it.next();
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            try {
                it.close();
            } finally {
                onClose.run();
            }
        }
    }
}
