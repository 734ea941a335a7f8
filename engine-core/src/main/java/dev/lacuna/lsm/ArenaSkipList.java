package dev.lacuna.lsm;

import dev.lacuna.base.InternalKey;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A concurrent skip list of internal keys ({@link InternalKey#COMPARATOR} order) and their values, whose nodes live
 * in a few large byte arrays (an arena, as RocksDB's memtable) instead of as objects.
 *
 * <p>Why: a memtable lives for seconds to minutes, so every entry in it survives young collections. Held as objects
 * (a skip-list node, an index node now and then, a key array and a value array per entry), a 64 MB memtable is
 * millions of objects the collector copies from survivor space to survivor space at every young pause: with G1 at
 * 30,000 writes/s the pauses copied ~70 MB each and lasted 60–130 ms, and the index's lag followed them. Here an
 * entry is a stretch of bytes in a chunk; chunks grow to {@value #LARGE_CHUNK} bytes, which G1 (regions of 1–8 MB)
 * allocates as humongous objects and never copies, and the small first chunks are copied as a memcpy each.
 *
 * <p>A node at an 8-aligned offset: a header (height, key length, value length), {@code height} links, the key, the
 * value. A link is the next node's address ({@code chunk << 32 | offset}, {@link #NIL} ending the list) with its top
 * bit the deletion mark. Inserts are lock-free (compare-and-set on the links, as Java's
 * {@link java.util.concurrent.ConcurrentSkipListMap} and Fraser's skip list); a removal first marks a node's links,
 * top level first, so that no insert can link after it, then unlinks it, and any insert that meets a marked node on
 * its way unlinks it too. A node is deleted once its level-0 link is marked; readers skip deleted nodes and never
 * write. Removed nodes keep their bytes until the list is dropped (the memtable counts bytes added, not held), so an
 * address never names another node and a reader standing on a removed node still walks on from it.
 *
 * <p>Equal keys: an insert of a key already present puts the new node after the old one and then removes the old,
 * so that the last value wins, as a batch that writes a key twice expects. After, not before: a search for the last
 * node before a deleted one must not pass a live node of the same key.
 */
final class ArenaSkipList {
    /** The most links a node has; with a branching factor of 4, enough for 4^12 (16 million) entries. */
    static final int MAX_HEIGHT = 12;
    /** The end of the list, as a link. */
    static final long NIL = 0;
    /** The head, which has no key and {@link #MAX_HEIGHT} links (held in {@link #head}); never a link's value. */
    private static final long HEAD = -1;
    /** A link's deletion mark: its node is being removed. Addresses never set this bit. */
    private static final long MARK = Long.MIN_VALUE;
    private static final int FIRST_CHUNK = 16 << 10;
    /**
     * The largest chunk: 4 MB less room for an array's header, so that with G1's 4 MB regions (heaps of 8–16 GB) a
     * chunk fills one humongous region, and with smaller regions spans whole ones, instead of leaving most of an extra
     * region empty.
     */
    static final int LARGE_CHUNK = (4 << 20) - 64;
    /** An entry larger than this gets a chunk of its own, so that one large value does not waste a chunk's rest. */
    private static final int OWN_CHUNK = LARGE_CHUNK / 4;
    private static final int HEADER = 8;
    private static final int MAX_KEY = (1 << 26) - 1;

    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());
    /** An internal key's trailer, read in place (big-endian, as {@link InternalKey} writes it; unaligned). */
    private static final VarHandle BIG_ENDIAN_LONG = MethodHandles.byteArrayViewVarHandle(long[].class,
            ByteOrder.BIG_ENDIAN);
    private static final VarHandle HEAD_LINK = MethodHandles.arrayElementVarHandle(long[].class);
    /**
     * The first index of a byte array at which an 8-byte atomic access is aligned: 0 where arrays' data begins at an
     * 8-aligned address (HotSpot up to JDK 23), otherwise found once by trying.
     */
    private static final int ALIGN = firstAlignedIndex();
    /** Steps a search from a tail may walk forward at a level (past inserts that raced it) before it gives up. */
    private static final int TAIL_STEPS = 4;

    private final long[] head = new long[MAX_HEIGHT];
    /**
     * Per level, the node an insert last linked there at the list's end ({@link #HEAD} at first): where an insert of a
     * key above all others starts, instead of searching from the head (see {@link #spliceAtEnd}). Read and written
     * through {@link #HEAD_LINK}; a stale entry only costs the full search.
     */
    private final long[] tails = newTails();
    /** The chunks, slot 0 unused so that no address is {@link #NIL}; replaced by a longer copy when full. */
    private volatile byte[][] chunks = new byte[4][];
    // The chunk being filled, its slot and the next free offset in it: under this object's monitor.
    private byte[] current;
    private int currentSlot;
    private int used;
    private int slots = 1;
    private long chunkBytes;
    /** The next chunk's length, as {@link #expectTotal} left it (0: twice the last). Under the monitor. */
    private long expected;

    private static long[] newTails() {
        long[] tails = new long[MAX_HEIGHT];
        Arrays.fill(tails, HEAD);
        return tails;
    }

    private static int firstAlignedIndex() {
        byte[] probe = new byte[16];
        for (int i = 0; i < 8; i++) {
            try {
                LONG.getAcquire(probe, i);
                return i;
            } catch (IllegalStateException misaligned) {
                // try the next byte
            }
        }
        throw new ExceptionInInitializerError("no aligned 8-byte access in a byte array");
    }

    /** Bytes of the chunks allocated so far. */
    synchronized long chunkBytes() {
        return chunkBytes;
    }

    /**
     * Tells the list that it will hold about {@code bytes} in all: its next chunk is what its chunks lack of that (at
     * least {@value #FIRST_CHUNK}, at most {@value #LARGE_CHUNK} bytes) instead of twice the last; told no more than
     * they hold, it doubles again. Recovery knows the log it replays ({@link ChunkShares}): a memtable it rebuilds
     * from megabytes of log takes most of them in one chunk (which G1 allocates as humongous and never copies when it
     * is half a region or more), instead of doubling through chunks that young collections during the replay copied.
     * Under the monitor, so that the room lacking is counted against the chunks as they are.
     */
    synchronized void expectTotal(long bytes) {
        expected = Math.max(0, bytes - chunkBytes);
    }

    /** The bytes a node for an internal key and a value of these lengths takes, with a typical height. */
    static long typicalNodeBytes(int internalKeyLength, int valueLength) {
        // Two links: the mean height, 4/3 with a branching factor of 4, rounded up (~5 bytes a node over).
        return (HEADER + 16 + internalKeyLength + valueLength + 7) & ~7L;
    }

    /**
     * Inserts {@code key} (an internal key) with {@code value}; safe with concurrent inserts, removals and readers.
     * Returns the new node's address.
     */
    long insert(byte[] key, byte[] value) {
        long node = place(key, value);
        link(node, key, new long[MAX_HEIGHT], new long[MAX_HEIGHT]);
        return node;
    }

    /**
     * The first half of an insert: a new node for {@code key} and {@code value}, written but not in the list until
     * {@link #link}. A commit places its entries before it appends its log record, so that running out of memory
     * (the copy of a large value) fails the write before anything is logged; linking allocates nothing.
     */
    long place(byte[] key, byte[] value) {
        if (key.length > MAX_KEY) {
            throw new IllegalArgumentException("key of " + key.length + " bytes");
        }
        int height = randomHeight();
        long node = allocate(HEADER + 8 * height + key.length + value.length);
        byte[] c = chunk(node);
        int at = offset(node);
        LONG.set(c, at, ((long) height << 58) | ((long) key.length << 32) | (value.length & 0xffffffffL));
        int keyAt = at + HEADER + 8 * height;
        System.arraycopy(key, 0, c, keyAt, key.length);
        System.arraycopy(value, 0, c, keyAt + key.length, value.length);
        return node;
    }

    /**
     * {@link #place(byte[], byte[])} for the internal key of {@code userKey} with {@code trailer} (its sequence shifted
     * left by 8, or-ed with its kind), written into the node without an array of its own, with the whole of
     * {@code value}. Recovery uses {@link #place(byte[], long, byte[], int, int)}, the value where it lies in the log
     * record, from several threads at once; this form is that one over a whole array (tests build lists with it).
     */
    long place(byte[] userKey, long trailer, byte[] value) {
        return place(userKey, trailer, value, 0, value.length);
    }

    /**
     * {@link #place(byte[], long, byte[])} with the value {@code source[valueAt, valueAt + valueLength)}: recovery
     * copies it from the log record's payload, where it lies, rather than into an array of its own first.
     */
    long place(byte[] userKey, long trailer, byte[] source, int valueAt, int valueLength) {
        int keyLength = userKey.length + InternalKey.TRAILER_SIZE;
        if (keyLength > MAX_KEY) {
            throw new IllegalArgumentException("key of " + keyLength + " bytes");
        }
        int height = randomHeight();
        long node = allocate(HEADER + 8 * height + keyLength + valueLength);
        byte[] c = chunk(node);
        int at = offset(node);
        LONG.set(c, at, ((long) height << 58) | ((long) keyLength << 32) | (valueLength & 0xffffffffL));
        int keyAt = at + HEADER + 8 * height;
        System.arraycopy(userKey, 0, c, keyAt, userKey.length);
        BIG_ENDIAN_LONG.set(c, keyAt + userKey.length, trailer);
        System.arraycopy(source, valueAt, c, keyAt + keyLength, valueLength);
        return node;
    }

    /**
     * Gives back the room of {@code node}, {@link #place placed} and never linked, where it can: a node in a chunk of
     * its own (the chunk is dropped) or the last one allocated (the next allocation reuses its room). A commit whose
     * log write failed undoes its placements, last first, so that retried failing writes do not fill the heap.
     *
     * @return the bytes not given back: 0, or the node's size when another allocation followed it in its chunk
     */
    synchronized long unplace(long node) {
        int slot = (int) (node >>> 32);
        int at = offset(node);
        long header = (long) LONG.get(chunks[slot], at);
        int aligned = (HEADER + 8 * (int) (header >>> 58) + keyLengthIn(header) + (int) header + 7) & ~7;
        if (aligned > OWN_CHUNK) {
            chunkBytes -= chunks[slot].length;
            chunks[slot] = null; // no link ever led into it: no reader can reach it
            return 0;
        }
        if (slot == currentSlot && at + aligned == used) {
            used = at;
            return 0;
        }
        return aligned;
    }

    /**
     * Overwrites the last {@code count} bytes of the key of {@code node}, {@link #place placed} and not linked yet,
     * with those of {@code key}: an internal key's trailer, whose sequence is known only once the log has the record.
     */
    void rewriteKeyEnd(long node, byte[] key, int count) {
        byte[] c = chunk(node);
        int at = offset(node);
        long header = (long) LONG.get(c, at);
        int keyEnd = keyStart(at, header) + keyLengthIn(header);
        System.arraycopy(key, key.length - count, c, keyEnd - count, count);
    }

    /**
     * The second half of an insert: links {@code node}, {@link #place placed} with {@code key} (its key as it is
     * now), into the list; safe with concurrent inserts, removals and readers. {@code preds} and {@code succs}:
     * {@link #MAX_HEIGHT} slots each, for the search. Allocates nothing.
     */
    void link(long node, byte[] key, long[] preds, long[] succs) {
        byte[] c = chunk(node);
        int at = offset(node);
        int height = height(node);
        long replaced;
        while (true) {
            if (spliceAtEnd(key, height, preds, succs)) {
                replaced = NIL; // every key before it is lower
            } else {
                findSplice(key, true, preds, succs);
                replaced = preds[0] != HEAD && compareKey(preds[0], key) == 0 ? preds[0] : NIL;
            }
            LONG.set(c, at + HEADER, succs[0]); // published by the compare-and-set below
            if (casLink(preds[0], 0, succs[0], node)) {
                break;
            }
        }
        if (succs[0] == NIL) {
            HEAD_LINK.setRelease(tails, 0, node);
        }
        for (int level = 1; level < height; level++) {
            while (true) {
                long mine = link(node, level);
                if (mine < 0 || !casLink(node, level, mine, succs[level])) {
                    break; // removed meanwhile: it must not be linked higher
                }
                if (casLink(preds[level], level, succs[level], node)) {
                    if (succs[level] == NIL) {
                        HEAD_LINK.setRelease(tails, level, node);
                    }
                    break;
                }
                findSplice(key, true, preds, succs);
            }
            if (link(node, level) < 0) {
                break;
            }
        }
        if (link(node, 0) < 0) {
            // Removed while this linked it higher (the memtable never does that): unlink it above too, so that it does
            // not stay linked, marked, until another search passes it.
            findSplice(key, false, preds, succs);
        }
        if (replaced != NIL) {
            remove(replaced, key, preds, succs); // an equal key: the search for it finds the replaced node too
        }
    }

    /**
     * {@link #findSplice findSplice(key, true, ...)} for the levels below {@code height}, found from the {@link #tails}
     * instead of the head, for a key above every key at those levels but the few linked since their tail: keys
     * written in ascending order (a sequential load, time-ordered keys) meet the list's end each time, and a search
     * from the head compared ~40 keys to find it (15 % of a two-thread sequential load's time, profiled). False,
     * with nothing to trust in {@code preds} and {@code succs}, when it cannot tell: a tail not below the key, removed,
     * or more than {@link #TAIL_STEPS} nodes behind it, a deleted node on the way, or an equal key. Correct with
     * concurrent inserts and removals for the reason a search from the head is: each level's pair starts from a node
     * linked at that level (a tail is recorded once linked, and is unlinked only after its link there is marked,
     * which sends this back to the full search), and the compare-and-set that links checks the pair is still
     * adjacent. Levels are found apart: a pair need only be adjacent and bracket the key at its own level.
     */
    private boolean spliceAtEnd(byte[] key, int height, long[] preds, long[] succs) {
        for (int level = 0; level < height; level++) {
            long x = (long) HEAD_LINK.getAcquire(tails, level);
            if (x != HEAD && compareKey(x, key) >= 0) {
                return false; // not above the tail: an insert elsewhere in the list
            }
            long next = link(x, level);
            for (int steps = 0; ; steps++) {
                if (next < 0) {
                    return false; // x is being removed
                }
                if (next == NIL) {
                    break;
                }
                long after = link(next, level);
                int c;
                if (after < 0 || steps == TAIL_STEPS || (c = compareKey(next, key)) == 0) {
                    return false; // a deleted node to unlink, too far behind, or an equal key to replace
                }
                if (c > 0) {
                    break;
                }
                x = next;
                next = after;
            }
            preds[level] = x;
            succs[level] = next;
        }
        return true;
    }

    /**
     * Removes the node at {@code node}; safe with concurrent inserts, removals and readers. Returns false if it was
     * removed already.
     */
    boolean remove(long node) {
        return remove(node, key(node), new long[MAX_HEIGHT], new long[MAX_HEIGHT]);
    }

    /**
     * {@link #remove(long)} of a node whose key equals {@code key} (the caller's: nothing is copied), searching with
     * {@code preds} and {@code succs}.
     */
    boolean remove(long node, byte[] key, long[] preds, long[] succs) {
        if (!mark(node)) {
            return false;
        }
        // Unlinks it: the search unlinks every marked node it meets on its way to the key.
        findSplice(key, false, preds, succs);
        return true;
    }

    /**
     * {@link #remove(long)} of {@code node}, whose key equals {@code key}, found right after {@code pred} at level 0:
     * a node of one level is unlinked there with one compare-and-set instead of a search from the head (a memtable
     * drops an overwritten key's hidden versions this way, one per write). Searches as {@link #remove(long)} when it
     * cannot: a taller node, or {@code pred} no longer linking to it (an insert between them, or {@code pred} being
     * removed). Allocates nothing.
     */
    boolean removeAfter(long pred, long node, byte[] key, long[] preds, long[] succs) {
        if (!mark(node)) {
            return false;
        }
        if (height(node) == 1 && casLink(pred, 0, node, link(node, 0) & ~MARK)) {
            return true;
        }
        findSplice(key, false, preds, succs);
        return true;
    }

    /**
     * Marks {@code node}'s links, top level first, so that no insert links after it any more; false if another
     * removal marked its level 0 first.
     */
    private boolean mark(long node) {
        int height = height(node);
        for (int level = height - 1; level >= 0; level--) {
            while (true) {
                long next = link(node, level);
                if (next < 0) {
                    if (level == 0) {
                        return false; // another removal marked it first
                    }
                    break;
                }
                if (casLink(node, level, next, next | MARK)) {
                    break;
                }
            }
        }
        return true;
    }

    /**
     * For every level, the last node before {@code key} and the first at or after it ({@code afterEqual}: the last
     * node at or before it and the first after it), unlinking the marked nodes met on the way.
     */
    private void findSplice(byte[] key, boolean afterEqual, long[] preds, long[] succs) {
        retry:
        while (true) {
            long x = HEAD;
            for (int level = MAX_HEIGHT - 1; level >= 0; level--) {
                long next = link(x, level);
                while (true) {
                    if (next < 0) {
                        continue retry; // x is being removed: start again from the head
                    }
                    if (next == NIL) {
                        break;
                    }
                    long after = link(next, level);
                    if (after < 0) {
                        long unlinked = after & ~MARK;
                        if (!casLink(x, level, next, unlinked)) {
                            continue retry;
                        }
                        next = unlinked;
                        continue;
                    }
                    int c = compareKey(next, key);
                    if (c > 0 || (c == 0 && !afterEqual)) {
                        break;
                    }
                    x = next;
                    next = after;
                }
                preds[level] = x;
                succs[level] = next;
            }
            return;
        }
    }

    /** The first node that is not deleted, or {@link #NIL}. */
    long first() {
        return live(link(HEAD, 0) & ~MARK);
    }

    /** The node after {@code node} that is not deleted, or {@link #NIL}. */
    long next(long node) {
        return live(link(node, 0) & ~MARK);
    }

    /** {@code node} if it is not deleted, else the first node after it that is not; {@link #NIL} passes through. */
    private long live(long node) {
        while (node != NIL) {
            long next = link(node, 0);
            if (next >= 0) {
                return node;
            }
            node = next & ~MARK;
        }
        return NIL;
    }

    /** The first node not deleted whose key is ≥ {@code key}, or {@link #NIL}. */
    long seekAtLeast(byte[] key) {
        long x = descend(key, false, false);
        long next = link(x, 0) & ~MARK;
        while (next != NIL && compareKey(next, key) < 0) {
            x = next;
            next = link(x, 0) & ~MARK;
        }
        return live(next);
    }

    /**
     * The last node not deleted whose key is &lt; {@code key} ({@code orEqual}: ≤), or {@link #NIL}; {@code key}
     * null: the last node.
     */
    long seekBelow(byte[] key, boolean orEqual) {
        byte[] bound = key;
        boolean inclusive = orEqual;
        while (true) {
            long x = descend(bound, bound == null, inclusive);
            // Level 0: the last node below the bound that was not deleted when its link was read. A deleted node's
            // link still leads on, to the equal key that replaced it among others (linked before it was marked):
            // judging x only by a second look after the walk could pass that key, live all along.
            long link = link(x, 0);
            boolean found = x == HEAD || link >= 0;
            long last = x;
            long next = link & ~MARK;
            while (next != NIL && (bound == null || below(next, bound, inclusive))) {
                long after = link(next, 0);
                if (after >= 0) {
                    found = true;
                    last = next;
                }
                next = after & ~MARK;
            }
            if (found) {
                return last == HEAD ? NIL : last;
            }
            bound = key(x); // x and all after it below the bound deleted: the last live one is before it
            inclusive = false;
        }
    }

    /**
     * Walks the levels above 0 to the last node before {@code key} ({@code orEqual}: at or before; {@code toEnd}: the
     * last), stepping over nodes whose link at the level is marked instead of onto them: a deleted node's lower links
     * are frozen, and it can still be linked above after it was unlinked at level 0 (marked while its insert linked
     * it higher), so that going down through it would pass nodes inserted in its place since.
     */
    private long descend(byte[] key, boolean toEnd, boolean orEqual) {
        long x = HEAD;
        for (int level = MAX_HEIGHT - 1; level >= 1; level--) {
            long next = link(x, level) & ~MARK;
            while (next != NIL) {
                long after = link(next, level);
                if (after < 0) {
                    next = after & ~MARK;
                    continue;
                }
                if (!toEnd && !below(next, key, orEqual)) {
                    break;
                }
                x = next;
                next = after;
            }
        }
        return x;
    }

    private boolean below(long node, byte[] key, boolean orEqual) {
        int c = compareKey(node, key);
        return c < 0 || (orEqual && c == 0);
    }

    /** The node whose key equals {@code key} and is not deleted, or {@link #NIL}. */
    long find(byte[] key) {
        long node = seekAtLeast(key);
        return node != NIL && compareKey(node, key) == 0 ? node : NIL;
    }

    /**
     * {@link #find(byte[])}, also telling in {@code before[0]} the node the search found linked to it at level 0 (the
     * head included), for {@link #removeAfter}; {@link #NIL} there if it found deleted nodes between the two. That node
     * may be deleted itself, or no longer linked to it, by the time it is used: removeAfter then searches.
     */
    long find(byte[] key, long[] before) {
        long x = descend(key, false, false);
        long next = link(x, 0) & ~MARK;
        while (next != NIL && compareKey(next, key) < 0) {
            x = next;
            next = link(x, 0) & ~MARK;
        }
        long node = live(next);
        before[0] = node == next ? x : NIL;
        return node != NIL && compareKey(node, key) == 0 ? node : NIL;
    }

    /** Compares the key of {@code node} with {@code key}, as {@link InternalKey#compare(byte[], byte[])}. */
    int compareKey(long node, byte[] key) {
        byte[] c = chunk(node);
        int at = offset(node);
        long header = (long) LONG.get(c, at);
        int keyAt = keyStart(at, header);
        return InternalKey.compare(c, keyAt, keyLengthIn(header), key, 0, key.length);
    }

    /**
     * Compares the user key of {@code node} with {@code userKey} (a plain user key), as
     * {@link InternalKey#compareUserKey(byte[], byte[])}, without copying the node's key.
     */
    int compareUserKey(long node, byte[] userKey) {
        byte[] c = chunk(node);
        int at = offset(node);
        long header = (long) LONG.get(c, at);
        int keyAt = keyStart(at, header);
        return Arrays.compareUnsigned(c, keyAt, keyAt + keyLengthIn(header) - InternalKey.TRAILER_SIZE, userKey, 0,
                userKey.length);
    }

    /**
     * The trailer of {@code node}'s internal key (its sequence shifted left by 8, or-ed with its kind), without copying
     * the key.
     */
    long trailer(long node) {
        byte[] c = chunk(node);
        int at = offset(node);
        long header = (long) LONG.get(c, at);
        return (long) BIG_ENDIAN_LONG.get(c, keyStart(at, header) + keyLengthIn(header)
                - InternalKey.TRAILER_SIZE);
    }

    /** Whether {@code node}'s user key is that of {@code internalKey}, compared in place. */
    boolean sameUserKey(long node, byte[] internalKey) {
        byte[] c = chunk(node);
        int at = offset(node);
        long header = (long) LONG.get(c, at);
        int keyAt = keyStart(at, header);
        return Arrays.equals(c, keyAt, keyAt + keyLengthIn(header) - InternalKey.TRAILER_SIZE, internalKey, 0,
                internalKey.length - InternalKey.TRAILER_SIZE);
    }

    /** Whether nodes {@code a} and {@code b} hold the same user key, compared in place. */
    boolean sameUserKey(long a, long b) {
        byte[] ca = chunk(a);
        int atA = offset(a);
        long headerA = (long) LONG.get(ca, atA);
        int keyA = keyStart(atA, headerA);
        byte[] cb = chunk(b);
        int atB = offset(b);
        long headerB = (long) LONG.get(cb, atB);
        int keyB = keyStart(atB, headerB);
        return Arrays.equals(ca, keyA, keyA + keyLengthIn(headerA) - InternalKey.TRAILER_SIZE, cb, keyB,
                keyB + keyLengthIn(headerB) - InternalKey.TRAILER_SIZE);
    }

    /** The kind of {@code node}'s internal key ({@link InternalKey#kind}), without copying the key. */
    int kind(long node) {
        byte[] c = chunk(node);
        int at = offset(node);
        long header = (long) LONG.get(c, at);
        return c[keyStart(at, header) + keyLengthIn(header) - 1] & 0xff;
    }

    /** The key of {@code node}, copied. */
    byte[] key(long node) {
        byte[] out = new byte[keyLength(node)];
        copyKey(node, out);
        return out;
    }

    /** The length of {@code node}'s key. */
    int keyLength(long node) {
        return keyLengthIn((long) LONG.get(chunk(node), offset(node)));
    }

    /** Copies {@code node}'s key to the start of {@code out}, which must be long enough. */
    void copyKey(long node, byte[] out) {
        byte[] c = chunk(node);
        int at = offset(node);
        long header = (long) LONG.get(c, at);
        System.arraycopy(c, keyStart(at, header), out, 0, keyLengthIn(header));
    }

    /** The length of {@code node}'s value. */
    int valueLength(long node) {
        return (int) (long) LONG.get(chunk(node), offset(node));
    }

    /**
     * The array holding {@code node}'s key, which starts at {@link #keyOffset} and is {@link #keyLength} bytes long:
     * recovery's sort reads keys where they lie ({@link InternalKeySort}).
     */
    byte[] keyChunk(long node) {
        return chunk(node);
    }

    /** Where {@code node}'s key starts in {@link #keyChunk}. */
    int keyOffset(long node) {
        int at = offset(node);
        return keyStart(at, (long) LONG.get(chunk(node), at));
    }

    /** The value of {@code node}, copied. */
    byte[] value(long node) {
        byte[] c = chunk(node);
        int at = offset(node);
        long header = (long) LONG.get(c, at);
        int valueAt = keyStart(at, header) + keyLengthIn(header);
        byte[] out = new byte[(int) header];
        System.arraycopy(c, valueAt, out, 0, out.length);
        return out;
    }

    /** Where the key of the node at {@code at} whose header is {@code header} begins in its chunk. */
    private static int keyStart(int at, long header) {
        return at + HEADER + 8 * (int) (header >>> 58);
    }

    private static int keyLengthIn(long header) {
        return (int) (header >>> 32) & MAX_KEY;
    }

    private int height(long node) {
        return (int) ((long) LONG.get(chunk(node), offset(node)) >>> 58);
    }

    private long link(long node, int level) {
        if (node == HEAD) {
            return (long) HEAD_LINK.getAcquire(head, level);
        }
        return (long) LONG.getAcquire(chunk(node), offset(node) + HEADER + 8 * level);
    }

    private boolean casLink(long node, int level, long expected, long update) {
        if (node == HEAD) {
            return HEAD_LINK.compareAndSet(head, level, expected, update);
        }
        return LONG.compareAndSet(chunk(node), offset(node) + HEADER + 8 * level, expected, update);
    }

    private byte[] chunk(long node) {
        return chunks[(int) (node >>> 32)];
    }

    private static int offset(long node) {
        return (int) node;
    }

    private static int randomHeight() {
        // Each level with probability 1/4: two random bits per level.
        int bits = ThreadLocalRandom.current().nextInt();
        int height = 1;
        while (height < MAX_HEIGHT && (bits & 3) == 0) {
            height++;
            bits >>>= 2;
        }
        return height;
    }

    /** Room for a node of {@code size} bytes; returns its address. */
    private synchronized long allocate(int size) {
        int aligned = (size + 7) & ~7;
        if (aligned > OWN_CHUNK) {
            return (long) addChunk(new byte[ALIGN + aligned]) << 32 | ALIGN;
        }
        if (current == null || used + aligned > current.length) {
            int length = expected > 0 ? (int) Math.max(FIRST_CHUNK, Math.min(LARGE_CHUNK, expected))
                    : current == null ? FIRST_CHUNK : Math.min(LARGE_CHUNK, current.length * 2);
            while (length < ALIGN + aligned) {
                length *= 2; // from a length under OWN_CHUNK + ALIGN: within LARGE_CHUNK
            }
            byte[] chunk = new byte[length];
            currentSlot = addChunk(chunk); // may run out of memory growing the table: current stays as it was
            current = chunk;
            used = ALIGN;
            expected = 0; // told for this chunk; the one after doubles it unless told again
        }
        long node = (long) currentSlot << 32 | used;
        used += aligned;
        return node;
    }

    /** Adds a chunk; returns its slot. Under the monitor. */
    private int addChunk(byte[] chunk) {
        byte[][] all = chunks;
        if (slots == all.length) {
            all = java.util.Arrays.copyOf(all, all.length * 2);
        }
        all[slots] = chunk;
        chunks = all; // a reader reaches a node in this chunk only through a link set after this write
        chunkBytes += chunk.length;
        return slots++;
    }

    /**
     * Links nodes {@link #place placed} in this list, not yet linked, given in {@link InternalKey#COMPARATOR} order,
     * no two equal: each after the last at every level of its height, linear, no key compared. Recovery places the
     * writes it decodes, sorts their nodes and links them here. For a list not yet shared (its publication orders
     * the plain writes before any reader's).
     */
    static final class Builder {
        private final ArenaSkipList list;
        private final long[] last = new long[MAX_HEIGHT];

        Builder(ArenaSkipList list) {
            this.list = list;
            java.util.Arrays.fill(last, HEAD);
        }

        void append(long node) {
            int height = list.height(node);
            for (int level = 0; level < height; level++) {
                list.setLink(last[level], level, node);
                last[level] = node;
            }
        }

        /** The list, for publication (which orders its plain writes before any reader's). */
        ArenaSkipList build() {
            System.arraycopy(last, 0, list.tails, 0, MAX_HEIGHT); // the next insert in order appends after them
            VarHandle.releaseFence();
            return list;
        }
    }

    private void setLink(long node, int level, long value) {
        if (node == HEAD) {
            HEAD_LINK.set(head, level, value);
        } else {
            LONG.set(chunk(node), offset(node) + HEADER + 8 * level, value);
        }
    }
}
