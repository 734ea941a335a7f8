package dev.lacuna.lsm;

import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The in-memory write buffer of one LSM tree: a concurrent skip list of internal keys whose entries are held in
 * large byte arrays ({@link ArenaSkipList}: a young collection does not copy them entry by entry). Puts may be inserted
 * by several writers at once (each after the commit lock gave it its sequence number, see {@link WritePath});
 * deletions are inserted under the commit lock with no put in flight into this memtable. Readers iterate
 * concurrently without locks. Once full it is frozen
 * ({@link #freeze(FlushReason)}) and handed to a flush, while a new memtable takes the writes.
 *
 * <p>An entry is removed only once no reader can read it: a put and the deletion that killed it ({@link #purge}), a put
 * a newer put hides ({@link #dropHidden}). A reader standing on a removed entry still reads it and walks on.
 */
final class Memtable {
    /**
     * The per-entry cost counted beside the key and value. The arena's own (a header and 1⅓ links on average, 8-byte
     * aligned) is about 24 bytes; 64, what the skip list of objects before it cost, is kept so that a memtable holds as
     * many entries as before and flushes as often.
     */
    private static final int ENTRY_OVERHEAD = 64;
    /** Reads an internal key's trailer in one step (InternalKey.sequence assembles it byte by byte). */
    private static final java.lang.invoke.VarHandle BIG_ENDIAN_LONG = java.lang.invoke.MethodHandles
            .byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.BIG_ENDIAN);
    /** Fields that concurrent puts update: {@link #added}, {@link #minSequence}, {@link #maxSequence}. */
    private static final java.lang.invoke.VarHandle ADDED;
    private static final java.lang.invoke.VarHandle MIN_SEQUENCE;
    private static final java.lang.invoke.VarHandle MAX_SEQUENCE;
    private static final java.lang.invoke.VarHandle HIDDEN_DROPPED;
    /** Versions {@link #dropHidden} removes or keeps for a snapshot at one add, at most. */
    private static final int MAX_DROPS_PER_ADD = 4;
    /**
     * Versions newer than the safe sequence {@link #dropHidden} passes, at most, to find the one that hides the rest:
     * a key written at every write (one item moved at full speed) has as many as writes run during a read, and it
     * finds them side by side in the arena (written one after another).
     */
    private static final int MAX_PASSED_PER_ADD = 32;

    static {
        try {
            java.lang.invoke.MethodHandles.Lookup lookup = java.lang.invoke.MethodHandles.lookup();
            ADDED = lookup.findVarHandle(Memtable.class, "added", long.class);
            MIN_SEQUENCE = lookup.findVarHandle(Memtable.class, "minSequence", long.class);
            MAX_SEQUENCE = lookup.findVarHandle(Memtable.class, "maxSequence", long.class);
            HIDDEN_DROPPED = lookup.findVarHandle(Memtable.class, "hiddenDropped", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ArenaSkipList entries;
    private final AtomicLong bytes = new AtomicLong();
    private volatile long minSequence = Long.MAX_VALUE;
    private volatile long maxSequence;
    private volatile boolean frozen;
    private volatile FlushReason frozenFor;
    private int deadPairs; // deletions that found a put of their key in this memtable; under the commit lock
    // Entries and deletions added, for size estimates (the skip list's size() walks it); entries counted
    // atomically (concurrent puts), deletions under the commit lock; read by anyone. Like bytes, never reduced by a purge, which removes a put with its deletion.
    private volatile long added;
    private volatile long deletionsAdded;

    /** A put and the deletion that killed it, removable once no reader can need the put. */
    private record DeadPair(byte[] put, byte[] deletion, long putSequence, long deleteSequence) {
    }

    private final ArrayDeque<DeadPair> purgeable = new ArrayDeque<>(); // under the commit lock
    /**
     * Reverse scans of this memtable in progress: walking backwards, a reader meets a put before its
     * deletion, so removing both under its feet could show it the put alone; no purge runs while one is
     * open. With {@link #purging}, a Dekker-style handshake (both volatile): each side announces itself,
     * then looks at the other.
     */
    private final AtomicInteger reverseScans = new AtomicInteger();
    private volatile boolean purging;
    private long purgedPairs;
    /** Versions {@link #dropHidden} removed; updated atomically (concurrent puts). */
    private volatile long hiddenDropped;
    /**
     * Set on a memtable frozen by {@link #carryNewerThan}: the keys whose newest version here is above it were
     * copied whole into the next memtable, and its flush leaves them out. -1: none.
     */
    private volatile long carryAbove = -1;
    /**
     * Set on a memtable frozen by {@link #carryLive}: the keys whose only version here was a put (that put), copied
     * into the next memtable, in key order; its flush leaves them out. Null: none carried so.
     */
    private volatile byte[][] carriedKeys;
    /**
     * Whether a logged write went in (a table's; an index's entries are applied unlogged, and recovered from the
     * log by their updater, not by a replay): only a memtable without one may carry keys ({@link #carryLive}).
     */
    private volatile boolean logged;
    /** With {@link #carryLive}: the lowest sequence of the puts carried (its flush settles the log below it). */
    private volatile long lowestCarried = Long.MAX_VALUE;
    /**
     * A carry made and not yet confirmed ({@link #confirmCarry}): what {@link #carryAbove}, {@link #carriedKeys}
     * and {@link #lowestCarried} become once the new memtable has taken this one's place. Set first and confirmed
     * last, so that a failure between the copy and the switch (an OutOfMemoryError) leaves this memtable as if no
     * carry had been made, and its flush writes every key (review of 09e6cfd).
     */
    private long pendingCarryAbove = -1;
    private byte[][] pendingCarriedKeys;
    private long pendingLowestCarried = Long.MAX_VALUE;
    /**
     * The frozen memtable this one took keys from ({@link #carryNewerThan}, {@link #carryLive}) while it is still
     * read: until it leaves the tree no pair is purged here, or a reader would find the carried put in it alone.
     */
    private volatile Memtable carriedFrom;
    /** Set once this frozen memtable's flush is installed and it left its tree's view. */
    private volatile boolean flushedOut;
    /** Tree views ({@link Tree.View}) holding this memtable that are not released yet. */
    private final AtomicInteger views = new AtomicInteger();

    /** An empty memtable. */
    Memtable() {
        this(new ArenaSkipList());
    }

    private Memtable(ArenaSkipList entries) {
        this.entries = entries;
    }

    /**
     * Adds an entry and returns its internal key: {@link #place} and {@link #add(Placed, long, Scratch)} in one step.
     */
    byte[] add(byte[] userKey, long sequence, int kind, byte[] value) {
        return add(place(userKey, kind, value), sequence, new Scratch(), 0, null);
    }

    /**
     * The arrays an {@link #add(Placed, long, Scratch)} searches with, allocated before the log append: one serves
     * every add of a commit (they run one after another).
     */
    static final class Scratch {
        final long[] preds = new long[ArenaSkipList.MAX_HEIGHT];
        final long[] succs = new long[ArenaSkipList.MAX_HEIGHT];
    }

    /**
     * An entry written into this memtable's memory but not in it yet: {@link #add(Placed, long)} makes it part of the
     * memtable once its log record has its sequence.
     */
    static final class Placed {
        final byte[] internalKey; // its trailer's sequence set by add
        final int kind;
        final long node;
        final boolean killsPut; // a deletion whose key's newest entry here is a put
        /** A deletion's: the internal key of the put that is its key's only entry here, else null. */
        final byte[] solePut;
        final long bytes;

        private Placed(byte[] internalKey, int kind, long node, boolean killsPut, byte[] solePut, long bytes) {
            this.internalKey = internalKey;
            this.kind = kind;
            this.node = node;
            this.killsPut = killsPut;
            this.solePut = solePut;
            this.bytes = bytes;
        }
    }

    /**
     * The first half of {@link #add(byte[], long, int, byte[])}, everything that allocates but the {@link Scratch}:
     * the internal key, and the entry's copy in the memtable's memory (a large value's may not fit in the heap). A commit places its entries
     * before it appends its log record, so that an {@link OutOfMemoryError} fails the write before any of it is
     * logged: once the record is in the log, the caller must not be told the write failed while a reopen replays it,
     * nor may part of the batch be visible. A deletion is placed under the commit lock with no put in flight into
     * this memtable, as it is added. An entry placed and never added is given back ({@link #unplace}).
     */
    Placed place(byte[] userKey, int kind, byte[] value) {
        assert !frozen;
        byte[] internalKey = InternalKey.encode(userKey, 0, kind);
        long node = entries.place(internalKey, value);
        try {
            return placed(userKey, internalKey, kind, node, entryBytes(userKey, value));
        } catch (RuntimeException | Error e) {
            // Out of memory in the search for a deletion's put (a key copy): the caller gives back only what it was
            // handed, so the node goes back here, or counts, as unplace() does (review of 47e9248).
            bytes.addAndGet(entries.unplace(node));
            throw e;
        }
    }

    /** The {@link Placed} of {@code node}, placed in this memtable's list and not linked. */
    private Placed placed(byte[] userKey, byte[] internalKey, int kind, long node, long bytes) {
        boolean killsPut = false;
        byte[] solePut = null;
        if (kind != InternalKey.KIND_PUT) {
            // One search answers both (an index's updater deletes an entry for nearly every one it writes).
            long newest = entries.seekAtLeast(InternalKey.seekKey(userKey, InternalKey.MAX_SEQUENCE));
            killsPut = newest != ArenaSkipList.NIL && entries.compareUserKey(newest, userKey) == 0
                    && entries.kind(newest) == InternalKey.KIND_PUT;
            if (killsPut) {
                long next = entries.next(newest);
                solePut = next != ArenaSkipList.NIL && entries.compareUserKey(next, userKey) == 0 ? null
                        : entries.key(newest);
            }
        }
        return new Placed(internalKey, kind, node, killsPut, solePut, bytes);
    }

    /**
     * Undoes {@link #place} of an entry that will not be added (its write failed): its memory is given back, or, where
     * the arena cannot (an entry placed after it), counted in {@link #bytes} like an entry's, so that it brings the
     * flush that frees it as near as an added entry would.
     *
     * @return the bytes counted (to add to the store's memory in use), 0 if all was given back
     */
    long unplace(Placed entry) {
        long kept = entries.unplace(entry.node);
        if (kept > 0) {
            bytes.addAndGet(kept);
        }
        return kept;
    }

    /**
     * Adds a {@link #place placed} entry with {@code sequence} and returns its internal key; allocates nothing. Puts
     * may be added concurrently; the caller serialises deletions with every other add (the commit lock, no put in
     * flight) and never adds to a frozen memtable. Bytes are counted as added and never given back by a purge: the
     * memtable is flushed after the same volume of writes either way, which bounds the log it holds back.
     *
     * <p>Then drops the versions of the entry's key that no reader can read any more ({@link #dropHidden}): every
     * in-flight read without a snapshot reads at or above {@code safe} (0: drop nothing), and {@code snapshots} holds
     * the others.
     */
    byte[] add(Placed entry, long sequence, Scratch scratch, long safe, Snapshots snapshots) {
        assert !frozen;
        if (entry.kind != InternalKey.KIND_PUT) {
            if (entry.killsPut) {
                deadPairs++;
            }
            deletionsAdded = deletionsAdded + 1; // one writer (the commit lock)
        }
        ADDED.getAndAdd(this, 1L);
        byte[] internalKey = entry.internalKey;
        BIG_ENDIAN_LONG.set(internalKey, internalKey.length - InternalKey.TRAILER_SIZE, sequence << 8 | entry.kind);
        entries.rewriteKeyEnd(entry.node, internalKey, InternalKey.TRAILER_SIZE);
        entries.link(entry.node, internalKey, scratch.preds, scratch.succs);
        bytes.addAndGet(entry.bytes);
        long min;
        while (sequence < (min = minSequence) && !MIN_SEQUENCE.compareAndSet(this, min, sequence)) {
            // another put lowered it meanwhile: compare again
        }
        long max;
        while (sequence > (max = maxSequence) && !MAX_SEQUENCE.compareAndSet(this, max, sequence)) {
            // another put raised it meanwhile: compare again
        }
        if (safe > 0) {
            dropHidden(entry.node, internalKey, safe, snapshots, scratch);
        }
        return internalKey;
    }

    /**
     * Removes the puts of {@code internalKey}'s user key that an older put than {@code node}'s hides from every reader:
     * the newest version at or below {@code safe} (every read without a snapshot sees it or a newer one), if it is a
     * put, hides the puts under it that no snapshot falls between; one a snapshot reads stays and hides those under
     * it in turn. A key overwritten in a loop then holds two or three versions here, not thousands: a table
     * whose 10,000 items IndexLagBenchmark overwrites held ~450,000 versions of ~2,500 keys per 64 MB memtable, and
     * the flush that walked them all took 250–500 ms of a processor, the index's updater slowed behind it. The flush
     * would drop them anyway ({@link CompactionStream}: a version hidden by a newer one in its stripe), so nothing it
     * writes changes. Only puts under a put: a deletion stays (it may hide versions in files, and the dead pairs'
     * purge counts it), and so does every version under it. The newest version is never removed (a reader finds it
     * or a newer one), nor one a reader may still stand on for lack of a newer visible one. Safe with concurrent
     * inserts and readers ({@link ArenaSkipList#removeAfter}); a reader standing on a removed node reads it and walks on.
     * Allocates nothing: the key searched with is {@code internalKey}, its trailer set to the removed version's and
     * put back.
     *
     * <p>For logged writes only: a version at or below {@code safe} must have been in the list before every read in
     * flight began, which the log's order of publication gives ({@link InsertOrder}) and an unlogged apply, at
     * sequences already visible, does not. A forward cursor resting on a removed node walks on by its link as it
     * was when the node was removed; a version linked since, behind a node removed in turn, it would never reach.
     */
    private void dropHidden(long node, byte[] internalKey, long safe, Snapshots snapshots, Scratch scratch) {
        // The hiding put: the newest older version at or below safe. Those above it stay (a read may not see them yet).
        long newer = node;
        long newerTrailer;
        int above = 0;
        do {
            newer = entries.next(newer);
            if (newer == ArenaSkipList.NIL || !entries.sameUserKey(newer, internalKey) || above++ == MAX_PASSED_PER_ADD) {
                return; // the key's first version here (the common case of a key written once), or few are safe yet
            }
            newerTrailer = entries.trailer(newer);
            if ((newerTrailer & 0xff) != InternalKey.KIND_PUT) {
                return; // a deletion: it and every version under it stay (review of ef43bf8)
            }
        } while (newerTrailer >>> 8 > safe);
        long newerSequence = newerTrailer >>> 8;
        int trailerAt = internalKey.length - InternalKey.TRAILER_SIZE;
        long own = (long) BIG_ENDIAN_LONG.get(internalKey, trailerAt);
        try {
            // Bounded: a backlog (left while a long read held the safe sequence back) goes a few versions per write.
            for (int i = 0; i < MAX_DROPS_PER_ADD; i++) {
                long older = entries.next(newer);
                if (older == ArenaSkipList.NIL || !entries.sameUserKey(older, internalKey)) {
                    return;
                }
                long olderTrailer = entries.trailer(older);
                if ((olderTrailer & 0xff) != InternalKey.KIND_PUT) {
                    return;
                }
                if (snapshots.anyIn(olderTrailer >>> 8, newerSequence)) {
                    // A snapshot reads it: it stays, and hides the puts under it in turn (a stripe, as in a flush).
                    newer = older;
                    newerSequence = olderTrailer >>> 8;
                    continue;
                }
                BIG_ENDIAN_LONG.set(internalKey, trailerAt, olderTrailer);
                if (entries.removeAfter(newer, older, internalKey, scratch.preds, scratch.succs)) {
                    HIDDEN_DROPPED.getAndAdd(this, 1L);
                }
            }
        } finally {
            BIG_ENDIAN_LONG.set(internalKey, trailerAt, own);
        }
    }

    /** The bytes {@link #add} counts for an entry of {@code userKey} and {@code value}. */
    static long entryBytes(byte[] userKey, byte[] value) {
        return userKey.length + InternalKey.TRAILER_SIZE + value.length + ENTRY_OVERHEAD;
    }

    /** Whether dead pairs wait for {@link #purge}. Under the commit lock. */
    boolean hasPurgeable() {
        return !purgeable.isEmpty();
    }

    /**
     * Recovery's bulk build ({@link Replay}): a memtable as an empty one would be after {@link #add} of each entry in
     * sequence order, at a fraction of the cost. Recovery places each write it decodes in {@code list} as a node
     * ({@link ArenaSkipList#place(byte[], long, byte[])}) and sorts the nodes ({@link InternalKeySort}); here they are
     * linked in key order in one pass ({@link ArenaSkipList.Builder}, linear, no key compared), where adding them one
     * by one, even in key order, searched the list for each (a fifth of an open's time). The writes are held once, in
     * the memory the memtable keeps, and the collector has no object per write to copy while the log is read.
     * {@code sorted} lists every node placed in {@code list} in {@link InternalKey#COMPARATOR} order; no two may share
     * a user key and a sequence (what {@link #add} would then count depends on the order within a batch: the caller
     * adds those one by one).
     */
    static Memtable recovered(ArenaSkipList list, long[] sorted) {
        ArenaSkipList.Builder entries = new ArenaSkipList.Builder(list);
        RecoveredCounts counts = new RecoveredCounts(list);
        int count = sorted.length;
        for (int i = 0; i < count; i++) {
            entries.append(sorted[i]);
            counts.add(sorted[i], i + 1 < count ? sorted[i + 1] : ArenaSkipList.NIL);
        }
        Memtable mem = new Memtable(entries.build());
        mem.deadPairs = counts.deadPairs;
        mem.bytes.set(counts.added);
        mem.added = count; // the counts add() keeps for size estimates
        mem.deletionsAdded = counts.deletions;
        mem.minSequence = counts.min;
        mem.maxSequence = counts.max;
        return mem;
    }

    /**
     * The counts {@link #add} keeps, taken node by node in key order. A method per node: called once per tree, a loop
     * doing this in its own body ran interpreted through the whole of a small log's first open.
     */
    private static final class RecoveredCounts {
        private final ArenaSkipList list;
        int deadPairs;
        long added;
        long deletions;
        long min = Long.MAX_VALUE;
        long max;

        RecoveredCounts(ArenaSkipList list) {
            this.list = list;
        }

        /** Counts {@code node}, followed in key order by {@code next} ({@link ArenaSkipList#NIL} if none). */
        void add(long node, long next) {
            long trailer = list.trailer(node);
            if ((int) (trailer & 0xFF) != InternalKey.KIND_PUT) {
                deletions++;
                // add() counts a deletion whose key's newest entry then was a put: the next entry in key order is
                // the key's newest older one, and every older one was added before it.
                if (next != ArenaSkipList.NIL && list.kind(next) == InternalKey.KIND_PUT
                        && list.sameUserKey(node, next)) {
                    deadPairs++;
                }
            }
            added += list.keyLength(node) + list.valueLength(node) + ENTRY_OVERHEAD;
            long sequence = trailer >>> 8;
            min = Math.min(min, sequence);
            max = Math.max(max, sequence);
        }
    }

    /**
     * Recovery's build of writes it cannot sort into one order ({@link Replay}: a log record that writes one key
     * twice, which this engine does not write): the nodes placed in {@code list}, {@code nodes[0, count)} in log
     * order, added one by one as {@link #add} adds them, the last write of an equal key winning. Nothing is copied
     * but each key: the writes stay where they were placed, so the open holds them once, as the sorted build does.
     */
    static Memtable recoveredInLogOrder(ArenaSkipList list, long[] nodes, int count) {
        Memtable mem = new Memtable(list);
        Scratch scratch = new Scratch();
        for (int i = 0; i < count; i++) {
            long node = nodes[i];
            byte[] internalKey = list.key(node);
            byte[] userKey = InternalKey.userKey(internalKey);
            int kind = InternalKey.kind(internalKey);
            Placed entry = mem.placed(userKey, internalKey, kind, node,
                    internalKey.length + list.valueLength(node) + ENTRY_OVERHEAD);
            mem.add(entry, InternalKey.sequence(internalKey), scratch, 0, null);
        }
        return mem;
    }

    /**
     * The internal key of the put that is the only entry of {@code userKey} in this memtable, or null
     * (no entry, several, or a deletion).
     */
    byte[] solePut(byte[] userKey) {
        // Looked at in the arena, not copied out. A commit learns the same from place() (Placed.solePut).
        long node = entries.seekAtLeast(InternalKey.seekKey(userKey, InternalKey.MAX_SEQUENCE));
        if (node == ArenaSkipList.NIL || entries.compareUserKey(node, userKey) != 0
                || entries.kind(node) != InternalKey.KIND_PUT) {
            return null;
        }
        long next = entries.next(node);
        return next != ArenaSkipList.NIL && entries.compareUserKey(next, userKey) == 0 ? null : entries.key(node);
    }

    /**
     * Records that {@code deletion} killed {@code put}, the only version of its key anywhere in the tree:
     * once no reader can need the put, both can be removed and scans stop paying for them.
     */
    void addPurgeable(byte[] put, byte[] deletion) {
        purgeable.add(new DeadPair(put, deletion, InternalKey.sequence(put), InternalKey.sequence(deletion)));
    }

    /**
     * Removes the dead pairs no reader can need: every in-flight read without a snapshot reads at or above
     * {@code safeSequence}, and no live snapshot falls between a pair's put and its deletion. Called under
     * the commit lock.
     */
    void purge(long safeSequence, Snapshots snapshots) {
        if (purgeable.isEmpty() || purgeable.peek().deleteSequence() > safeSequence) {
            return;
        }
        Memtable from = carriedFrom;
        if (from != null) {
            if (!from.flushedOut || from.views.get() > 0) {
                return; // it still holds the carried puts, and a reader may see it: see carriedFrom
            }
            carriedFrom = null;
        }
        Scratch scratch = new Scratch(); // one pair of search arrays for every removal; before the flag, which must clear
        purging = true;
        try {
            if (reverseScans.get() > 0) {
                return;
            }
            while (!purgeable.isEmpty()) {
                DeadPair pair = purgeable.peek();
                if (pair.deleteSequence() > safeSequence
                        || snapshots.anyIn(pair.putSequence(), pair.deleteSequence())) {
                    return; // in order of deletion: the rest are younger still
                }
                purgeable.poll();
                removePair(pair, scratch);
                deadPairs--;
                purgedPairs++;
            }
        } finally {
            purging = false;
        }
    }

    /**
     * Removes a dead pair, the put first: a forward reader or a point lookup that still finds the deletion skips the
     * key, one that finds neither skips it too; none can find the put alone. The put is the node right after its
     * deletion (no version of the key came between: it was the key's only one when the deletion went in), and is
     * unlinked there ({@link ArenaSkipList#removeAfter}), and the deletion after the node the search for it found
     * before it: one search, where finding and unlinking each by its key took four (a fifth of an index updater's
     * processor time went to purges in IndexLagProfile). Each by its key if they are not side by side.
     */
    private void removePair(DeadPair pair, Scratch scratch) {
        long deletion = entries.find(pair.deletion(), scratch.preds);
        long before = scratch.preds[0]; // the removals below search with the same arrays
        long put = deletion == ArenaSkipList.NIL ? ArenaSkipList.NIL : entries.next(deletion);
        if (put != ArenaSkipList.NIL && entries.compareKey(put, pair.put()) == 0) {
            entries.removeAfter(deletion, put, pair.put(), scratch.preds, scratch.succs);
            if (before != ArenaSkipList.NIL) {
                entries.removeAfter(before, deletion, pair.deletion(), scratch.preds, scratch.succs);
            } else {
                entries.remove(deletion, pair.deletion(), scratch.preds, scratch.succs);
            }
            return;
        }
        remove(pair.put(), scratch);
        remove(pair.deletion(), scratch);
    }

    private void remove(byte[] internalKey, Scratch scratch) {
        long node = entries.find(internalKey);
        if (node != ArenaSkipList.NIL) {
            entries.remove(node, internalKey, scratch.preds, scratch.succs); // the node's key: no copy of it
        }
    }

    /**
     * Copies into a new memtable every key whose newest version here is above {@code keepAbove}, all its
     * versions and the dead pairs among them, and marks this memtable so that its flush
     * ({@link #flushIterator}) leaves those keys out: a derived keyspace's checkpoint at {@code keepAbove} then
     * writes only the keys its log records up to there settle, and a queue's entries opened (and about to be
     * closed) since stay in memory, where their deletions annihilate them, instead of reaching a file where
     * each would leave a tombstone over a put. Called under the commit lock, just before this memtable is
     * frozen; walks it whole.
     */
    Memtable carryNewerThan(long keepAbove) {
        Memtable young = carry(newest -> InternalKey.sequence(newest) > keepAbove, false);
        pendingCarryAbove = keepAbove;
        return young;
    }

    /**
     * Copies into a new memtable every key whose only version here is a put, and marks this memtable so that its
     * flush leaves those keys out: it writes the rest, deletions and keys with a history here. For a freeze called by
     * dead entries ({@link FlushReason#DEAD_PAIRS}, {@link FlushReason#SCAN_DEAD_ENTRIES}): frozen whole, a queue's
     * memtable pushed its open entries into a file, where each one's deletion a moment later left a tombstone over a
     * put at the queue's head, so that the next scan met dead entries again and froze the next memtable: under
     * IndexLagBenchmark's moving queue, a scan-triggered flush every ~0.3 s once it began, and each read of the head
     * stepping over ~500 dead entries. A queue's entries are put once: only a sole put is carried, so that no version
     * is dropped or left behind. Carried with its history (a deletion and the put before it), a live key took its
     * dead entries into each next memtable, and every scan over them froze it again (review of 58c0be3,
     * {@code CarryLiveReviewTest}).
     *
     * <p>Only for a memtable that holds no logged write ({@link #logged}: an index's, whose entries their updater
     * derives again from the log after a crash, from a checkpoint that flushes them all first): in a logged keyspace
     * the flush records the partition flushed only below the lowest carried put, so a reopen replays the writes it
     * put in a file into memory a second time, and a single deletion then annihilates the copy in memory and uncovers
     * the one in the file ({@code CarryLiveCrashTest}: a deleted key back). Called under the commit lock, just before
     * this memtable is frozen; walks it whole.
     */
    Memtable carryLive() {
        Memtable young = carry(newest -> !InternalKey.isDeletion(newest), true);
        pendingLowestCarried = young.minSequence(); // MAX_VALUE if nothing was carried
        return young;
    }

    /**
     * The new memtable of {@link #carryNewerThan} and {@link #carryLive}: the keys whose newest version passes, with
     * all their versions and the dead pairs among them ({@code soleOnly}: only keys with one version here).
     */
    private Memtable carry(java.util.function.Predicate<byte[]> byNewest, boolean soleOnly) {
        Memtable young = new Memtable();
        java.util.List<byte[]> keys = new java.util.ArrayList<>();
        ArenaSkipList list = new ArenaSkipList();
        long[] nodes = new long[16];
        int placed = 0;
        boolean carrying = false;
        byte[] user = null;
        for (long node = entries.first(); node != ArenaSkipList.NIL; node = entries.next(node)) {
            byte[] ik = entries.key(node);
            if (user == null || InternalKey.compareUserKey(ik, user) != 0) {
                user = InternalKey.userKey(ik);
                carrying = byNewest.test(ik); // the newest version comes first
                if (carrying && soleOnly) {
                    long next = entries.next(node);
                    carrying = next == ArenaSkipList.NIL || entries.compareUserKey(next, user) != 0;
                }
            }
            if (carrying) {
                if (soleOnly) {
                    keys.add(ik);
                }
                if (placed == nodes.length) {
                    nodes = Arrays.copyOf(nodes, placed * 2);
                }
                nodes[placed++] = list.place(ik, entries.value(node));
            }
        }
        // In key order: carried() searches it.
        byte[][] carried = soleOnly ? keys.toArray(new byte[0][]) : null;
        if (placed > 0) {
            // In key order already, as the walk found them: the bulk build takes them as they are.
            young = recovered(list, Arrays.copyOf(nodes, placed));
            for (DeadPair pair : purgeable) {
                if (young.entries.find(pair.put()) != ArenaSkipList.NIL) {
                    young.purgeable.add(pair);
                }
            }
            young.carriedFrom = this;
        }
        young.logged = logged;
        // Marked only once the copy is made and the switch done (confirmCarry): had the copy run out of memory with
        // the mark set, this memtable would stay active as if carried from, and its flush would leave those keys
        // out (review of 664970d).
        pendingCarriedKeys = carried;
        return young;
    }

    /**
     * The new memtable of {@link #carryNewerThan} or {@link #carryLive} has taken this one's place in its tree: from
     * now on this one's flush leaves the carried keys out. Under the tree's monitor, with the switch, so that no
     * flush takes this memtable before it is marked. Allocates nothing.
     */
    void confirmCarry() {
        if (pendingCarriedKeys != null) {
            lowestCarried = pendingLowestCarried;
            carriedKeys = pendingCarriedKeys;
        } else if (pendingCarryAbove >= 0) {
            carryAbove = pendingCarryAbove;
        }
    }

    /** Whether {@code internalKey}, this memtable's newest version of its key, was carried into the next one. */
    boolean carried(byte[] internalKey) {
        byte[][] sole = carriedKeys;
        if (sole != null) {
            return java.util.Arrays.binarySearch(sole, internalKey, InternalKey.COMPARATOR) >= 0;
        }
        long above = carryAbove;
        return above >= 0 && InternalKey.sequence(internalKey) > above;
    }

    void viewOpened() {
        views.incrementAndGet();
    }

    void viewClosed() {
        views.decrementAndGet();
    }

    /** Marks this frozen memtable as flushed and gone from its tree's view. */
    void flushedOut() {
        flushedOut = true;
    }

    /** The LSN a flush of this memtable writes everything up to (for the manifest's record of it). */
    long flushedUpTo() {
        if (carriedKeys != null) {
            // The carried puts are in no file: a reopen must replay them (and replays the deletions written above
            // them again, as the same entries at the same sequences).
            return Math.min(lowestCarried - 1, maxSequence);
        }
        long above = carryAbove;
        return above >= 0 ? Math.min(above, maxSequence) : maxSequence;
    }

    /**
     * What a flush writes: every entry, less the keys {@link #carryNewerThan} or {@link #carryLive} copied into the
     * next memtable. Forward only (seekToFirst and next).
     */
    InternalIterator flushIterator() {
        InternalIterator all = iterator();
        if (carryAbove < 0 && carriedKeys == null) {
            return all;
        }
        return new InternalIterator() {
            @Override
            public boolean valid() {
                return all.valid();
            }

            @Override
            public void seekToFirst() {
                all.seekToFirst();
                skipCarried();
            }

            @Override
            public void next() {
                byte[] user = InternalKey.userKey(all.key());
                all.next();
                if (all.valid() && InternalKey.compareUserKey(all.key(), user) != 0) {
                    skipCarried();
                }
            }

            /** At a key's newest version: passes every version of the keys carried from here on. */
            private void skipCarried() {
                while (all.valid() && carried(all.key())) {
                    byte[] user = InternalKey.userKey(all.key());
                    do {
                        all.next();
                    } while (all.valid() && InternalKey.compareUserKey(all.key(), user) == 0);
                }
            }

            @Override
            public void seekToLast() {
                throw new UnsupportedOperationException("a flush reads forward");
            }

            @Override
            public void seek(byte[] target) {
                throw new UnsupportedOperationException("a flush reads forward");
            }

            @Override
            public void seekForPrev(byte[] target) {
                throw new UnsupportedOperationException("a flush reads forward");
            }

            @Override
            public void prev() {
                throw new UnsupportedOperationException("a flush reads forward");
            }

            @Override
            public byte[] key() {
                return all.key();
            }

            @Override
            public byte[] value() {
                return all.value();
            }

            @Override
            public void close() {
                all.close();
            }
        };
    }

    /**
     * Entries held: those added less those purged and dropped, without walking the skip list as {@link #size} does.
     * Exact under the commit lock with no insert in flight, or once frozen.
     */
    long liveEntries() {
        return added - 2 * purgedPairs - hiddenDropped;
    }

    /** Hidden versions removed so far ({@link #dropHidden}). */
    long hiddenDropped() {
        return hiddenDropped;
    }

    /** Dead pairs removed so far. */
    long purgedPairs() {
        return purgedPairs;
    }

    /** Announces a reverse scan of this memtable; pair with {@link #endReverseScan()}. */
    void beginReverseScan() {
        reverseScans.incrementAndGet();
        while (purging) {
            Thread.onSpinWait(); // a purge that began before we announced ourselves: microseconds
        }
    }

    void endReverseScan() {
        reverseScans.decrementAndGet();
    }

    /**
     * The newest entry for {@code userKey} with sequence ≤ {@code snapshot}, or null.
     *
     * @return {internalKey, value}
     */
    byte[][] get(byte[] userKey, long snapshot) {
        long node = entries.seekAtLeast(InternalKey.seekKey(userKey, snapshot));
        if (node == ArenaSkipList.NIL) {
            return null;
        }
        byte[] key = entries.key(node);
        if (InternalKey.compareUserKey(key, userKey) != 0) {
            return null;
        }
        return new byte[][] {key, entries.value(node)};
    }

    /** Deletions that found a put of their key here and were not purged: entries a scan steps over. */
    int deadPairs() {
        return deadPairs;
    }

    /** Approximate bytes added (not reduced by purges). */
    long bytes() {
        return bytes.get();
    }

    /** Entries added, deletions included (not reduced by purges). */
    long added() {
        return added;
    }

    /** Deletion entries added (not reduced by purges). */
    long deletionsAdded() {
        return deletionsAdded;
    }

    boolean isEmpty() {
        return entries.first() == ArenaSkipList.NIL;
    }

    /** Entries held, counted by walking them. */
    int size() {
        int n = 0;
        for (long node = entries.first(); node != ArenaSkipList.NIL; node = entries.next(node)) {
            n++;
        }
        return n;
    }

    /** Smallest sequence number held, {@link Long#MAX_VALUE} if empty. */
    long minSequence() {
        return minSequence;
    }

    /** Largest sequence number held, 0 if empty. */
    long maxSequence() {
        return maxSequence;
    }

    /** A logged write went in (or the memtable was rebuilt from the log). */
    void markLogged() {
        if (!logged) {
            logged = true; // read first: the writers in parallel would otherwise contend for its cache line
        }
    }

    /** Whether a logged write went in; see {@link #markLogged}. */
    boolean logged() {
        return logged;
    }

    /** Marks the memtable read-only, ready for flushing, for {@code reason}. */
    void freeze(FlushReason reason) {
        frozenFor = reason;
        frozen = true;
        // A frozen memtable never purges, which is all carriedFrom is for: kept, each memtable frozen after a carry
        // held the one it was carried from, and so on, every flushed arena reachable (review of 664970d).
        carriedFrom = null;
    }

    /** Why the memtable was frozen, or null while it is active. */
    FlushReason frozenFor() {
        return frozenFor;
    }

    boolean isFrozen() {
        return frozen;
    }

    /** An iterator over every entry; see {@link InternalIterator}. */
    InternalIterator iterator() {
        return new MemtableIterator(entries);
    }

    /**
     * Walks the list's level 0 forward; moves backward, rarer, by a search from the head for the last key before the
     * current one (as RocksDB's memtable iterator). Copies each key it stands on into one buffer it keeps.
     */
    private static final class MemtableIterator implements InternalIterator {
        private final ArenaSkipList list;
        private long node = ArenaSkipList.NIL;
        private byte[] key = new byte[64];
        private int keyLength;

        MemtableIterator(ArenaSkipList list) {
            this.list = list;
        }

        @Override
        public boolean valid() {
            return node != ArenaSkipList.NIL;
        }

        @Override
        public void seekToFirst() {
            at(list.first());
        }

        @Override
        public void seekToLast() {
            at(list.seekBelow(null, false));
        }

        @Override
        public void seek(byte[] target) {
            at(list.seekAtLeast(target));
        }

        @Override
        public void seekForPrev(byte[] target) {
            at(list.seekBelow(target, true));
        }

        @Override
        public void next() {
            at(list.next(node));
        }

        @Override
        public void prev() {
            at(list.seekBelow(key(), false));
        }

        @Override
        public byte[] key() {
            return Arrays.copyOf(key, keyLength);
        }

        @Override
        public byte[] keyBuffer() {
            return key;
        }

        @Override
        public int keyLength() {
            return keyLength;
        }

        @Override
        public byte[] value() {
            return list.value(node);
        }

        @Override
        public void close() {
            node = ArenaSkipList.NIL;
        }

        private void at(long next) {
            node = next;
            if (next != ArenaSkipList.NIL) {
                int length = list.keyLength(next);
                if (length > key.length) {
                    key = new byte[Math.max(length, 2 * key.length)];
                }
                list.copyKey(next, key);
                keyLength = length;
            }
        }
    }
}
