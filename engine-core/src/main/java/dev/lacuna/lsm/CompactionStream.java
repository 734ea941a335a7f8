package dev.lacuna.lsm;

import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;
import java.util.Arrays;

/**
 * Decides, entry by entry, what a flush or compaction keeps. The input is a sorted internal stream; for
 * each user key its versions come newest first. Snapshots split a key's history into stripes (a stripe
 * ends at each live snapshot's sequence); within a stripe only the newest entry can ever be read, so the
 * rest are dropped. Beyond that:
 *
 * <ul>
 *   <li>a deletion that every snapshot sees, with no older version of its key below the output
 *       ({@code bottom}), is dropped: there is nothing left for it to hide;</li>
 *   <li>a single deletion that meets the put it deletes in the same stripe annihilates with it — both are
 *       dropped, at any level, which is what keeps a queue of put-once/delete-once keys (index entries)
 *       from dragging a tombstone backlog;</li>
 *   <li>because an annihilated put must not uncover an older version, the newest deletion under a put is
 *       kept (not dropped as hidden) while older versions of its key may exist — as a deletion, even if it
 *       was a single deletion: under a put it stands for "absent", which hides every older version, where a
 *       single deletion would annihilate just one older put and uncover the next;</li>
 *   <li>for the same reason a single deletion met right under an annihilated pair (written before this
 *       rule, or in the same stream) counts as a deletion.</li>
 * </ul>
 *
 * This is the logic of LevelDB's DoCompactionWork and RocksDB's CompactionIterator, reduced to the
 * three entry kinds Lacuna has.
 */
final class CompactionStream {
    /** Whether older versions of a user key may exist below the output (in levels not being compacted). */
    @FunctionalInterface
    interface Below {
        boolean mayHold(byte[] internalKey);
    }

    private final InternalIterator input;
    private final long[] snapshots; // ascending
    private final long oldestSnapshot;
    private final Below below;

    private byte[] currentUserKey;
    private int lastStripe;
    private boolean stripeTopIsPut;       // the newest entry kept in lastStripe is a put
    private boolean keptDeletionUnderPut; // and a deletion below it has been kept
    private boolean underAnnihilatedPair; // the entry now read was under a single deletion and the put it annihilated
    private byte[] key;
    private byte[] value;
    private long dropped;
    private long droppedDeletions;

    /**
     * @param input     positioned on its first entry
     * @param snapshots live snapshot sequences, ascending
     */
    CompactionStream(InternalIterator input, long[] snapshots, Below below) {
        this.input = input;
        this.snapshots = snapshots;
        this.oldestSnapshot = snapshots.length == 0 ? Long.MAX_VALUE : snapshots[0];
        this.below = below;
    }

    /** Advances to the next entry to keep; false at the end of the input. */
    boolean next() {
        while (input.valid()) {
            byte[] ik = input.key();
            if (currentUserKey == null || !InternalKey.sameUserKey(ik, currentUserKey)) {
                currentUserKey = ik;
                lastStripe = -1;
                underAnnihilatedPair = false;
            }
            boolean afterPair = underAnnihilatedPair;
            underAnnihilatedPair = false;
            long sequence = InternalKey.sequence(ik);
            int stripe = stripeOf(sequence);
            if (stripe == lastStripe) {
                // A newer entry of the same stripe hides this one from every reader. One exception: the
                // newest deletion under a put must stay while older versions may exist, because a single
                // deletion may later annihilate that put — and the older versions must not reappear then.
                // Its value is read only if it may be kept: most hidden versions are dropped (an often overwritten
                // key's in a flush), and reading one's value copies it.
                boolean mayKeep = stripeTopIsPut && !keptDeletionUnderPut && InternalKey.isDeletion(ik);
                byte[] v = mayKeep ? input.value() : null;
                input.next();
                if (mayKeep && (below.mayHold(ik) || (input.valid() && InternalKey.sameUserKey(input.key(), ik)))) {
                    keptDeletionUnderPut = true;
                    return keep(asDeletion(ik), v);
                }
                drop(ik);
                continue;
            }
            lastStripe = stripe;
            stripeTopIsPut = false;
            keptDeletionUnderPut = false;
            int kind = InternalKey.kind(ik);
            boolean seenByAll = sequence <= oldestSnapshot;
            if (kind == InternalKey.KIND_SINGLE_DELETE && afterPair) {
                ik = asDeletion(ik);
                kind = InternalKey.KIND_DELETE;
            }
            if (kind == InternalKey.KIND_SINGLE_DELETE) {
                byte[] v = input.value();
                input.next();
                // Read once: a merging input's key() is a fresh copy out of its block at every call.
                byte[] next = input.valid() ? input.key() : null;
                if (next != null && InternalKey.sameUserKey(next, ik)
                        && InternalKey.kind(next) == InternalKey.KIND_PUT
                        && stripeOf(InternalKey.sequence(next)) == stripe) {
                    drop(ik);
                    drop(next);
                    input.next();
                    // The pair is gone as if never written: the next older entry is the newest again, and
                    // must still hide what is below it (a deletion before the put, for instance).
                    lastStripe = -1;
                    underAnnihilatedPair = true;
                    continue;
                }
                if (next != null && InternalKey.sameUserKey(next, ik) && InternalKey.isDeletion(next)
                        && stripeOf(InternalKey.sequence(next)) == stripe) {
                    // A single deletion of a key already deleted adds nothing, and must not stand in for
                    // the deletion below it: it could later annihilate an older put that deletion hides.
                    drop(ik);
                    lastStripe = -1;
                    continue;
                }
                if (seenByAll && !below.mayHold(ik)) {
                    drop(ik);
                    continue;
                }
                return keep(ik, v);
            }
            if (kind == InternalKey.KIND_DELETE && seenByAll && !below.mayHold(ik)) {
                drop(ik);
                input.next();
                continue;
            }
            stripeTopIsPut = kind == InternalKey.KIND_PUT;
            byte[] v = input.value();
            input.next();
            return keep(ik, v);
        }
        key = null;
        value = null;
        return false;
    }

    byte[] key() {
        return key;
    }

    byte[] value() {
        return value;
    }

    /** Entries dropped so far. */
    long dropped() {
        return dropped;
    }

    /** Deletions among them. */
    long droppedDeletions() {
        return droppedDeletions;
    }

    /** {@code ik} as a deletion: a single deletion becomes a plain one at the same sequence. */
    private static byte[] asDeletion(byte[] ik) {
        if (InternalKey.kind(ik) != InternalKey.KIND_SINGLE_DELETE) {
            return ik;
        }
        return InternalKey.encode(InternalKey.userKey(ik), InternalKey.sequence(ik), InternalKey.KIND_DELETE);
    }

    private boolean keep(byte[] k, byte[] v) {
        key = k;
        value = v;
        return true;
    }

    private void drop(byte[] ik) {
        dropped++;
        if (InternalKey.isDeletion(ik)) {
            droppedDeletions++;
        }
    }

    /** Index of the first snapshot at or above {@code sequence}; {@code snapshots.length} if none. */
    private int stripeOf(long sequence) {
        int i = Arrays.binarySearch(snapshots, sequence);
        if (i >= 0) {
            // Several snapshots may share a sequence; the stripe is the first of them.
            while (i > 0 && snapshots[i - 1] == sequence) {
                i--;
            }
            return i;
        }
        return -i - 1;
    }
}
