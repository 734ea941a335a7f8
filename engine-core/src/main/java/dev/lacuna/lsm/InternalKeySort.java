package dev.lacuna.lsm;

import dev.lacuna.base.InternalKey;
import java.util.Arrays;

/**
 * Orders recovery's writes, nodes placed in a memtable's arena ({@link ArenaSkipList#place}) and not linked yet, by
 * their internal keys ({@link InternalKey#COMPARATOR}) without a general comparison sort: a sort of objects through a
 * comparator, each step a call and two cache misses into the keys, took a quarter of an open. Each key is summed up
 * by the eight bytes of its user key that follow the prefix every key shares (zero past its end), which order as the
 * keys do wherever they differ; those longs are radix-sorted, and only keys whose eight bytes are equal (versions of
 * one key, or keys longer than the shared prefix plus eight that agree that far) are compared in full. Keys are read
 * where they lie in the arena. Not thread-safe; one instance per sort.
 */
final class InternalKeySort {
    /** Radix digits of 8 bits: eight passes over a long, each skipped where every key has the same digit. */
    private static final int DIGIT_BITS = 8;
    private static final int BUCKETS = 1 << DIGIT_BITS;
    private static final int DIGITS = Long.SIZE / DIGIT_BITS;
    /** Ties up to this many are put in order by insertion; longer ones (rare) by a comparison sort. */
    private static final int INSERTION_LIMIT = 16;
    /** Fewer keys than this are sorted by comparison: the radix sort's buckets and passes would cost more. */
    private static final int SMALL = 256;

    private final ArenaSkipList list;

    private InternalKeySort(ArenaSkipList list) {
        this.list = list;
    }

    /**
     * The order of some nodes.
     *
     * @param order               the nodes, from the smallest key to the largest; nodes whose keys compare equal keep
     *                            their order of the input
     * @param keyAndSequenceTwice whether two keys share a user key and a sequence (several writes of one key in one
     *                            log record, which this engine does not write)
     */
    record Result(long[] order, boolean keyAndSequenceTwice) {
    }

    /** Orders {@code nodes[0, count)}, nodes of {@code list}; {@code nodes} is left as it was. */
    static Result order(ArenaSkipList list, long[] nodes, int count) {
        return new InternalKeySort(list).order(nodes, count);
    }

    private Result order(long[] nodes, int count) {
        long[] sorted = Arrays.copyOf(nodes, count);
        if (count < SMALL) {
            sortTies(sorted, 0, count);
            return new Result(sorted, keyAndSequenceTwice(sorted, 0, count));
        }
        int shared = sharedPrefix(sorted, count);
        long[] summary = new long[count];
        for (int i = 0; i < count; i++) {
            summary[i] = summary(sorted[i], shared);
        }
        radixSort(summary, sorted, count);
        boolean twice = false;
        for (int from = 0; from < count; ) {
            int to = from + 1;
            while (to < count && summary[to] == summary[from]) {
                to++;
            }
            if (to - from > 1) { // keys of equal user keys tie: only here can a user key and sequence repeat
                sortTies(sorted, from, to);
                twice = twice || keyAndSequenceTwice(sorted, from, to);
            }
            from = to;
        }
        return new Result(sorted, twice);
    }

    /** Whether two neighbours of {@code nodes[from, to)}, in key order, share a user key and a sequence. */
    private boolean keyAndSequenceTwice(long[] nodes, int from, int to) {
        for (int i = from + 1; i < to; i++) {
            if (list.trailer(nodes[i - 1]) >>> 8 == list.trailer(nodes[i]) >>> 8
                    && list.sameUserKey(nodes[i - 1], nodes[i])) {
                return true;
            }
        }
        return false;
    }

    private int userKeyLength(long node) {
        return list.keyLength(node) - InternalKey.TRAILER_SIZE;
    }

    /** Bytes every user key starts with (no more than the shortest user key). */
    private int sharedPrefix(long[] nodes, int count) {
        if (count == 0) {
            return 0;
        }
        byte[] first = list.keyChunk(nodes[0]);
        int firstAt = list.keyOffset(nodes[0]);
        int shared = userKeyLength(nodes[0]);
        for (int i = 1; i < count && shared > 0; i++) {
            shared = sharedWith(first, firstAt, shared, nodes[i]);
        }
        return shared;
    }

    /**
     * How many of the first {@code shared} bytes at {@code first[firstAt]} {@code node}'s user key starts with. A
     * method per node: {@link #sharedPrefix} is called once per tree, and a loop doing this in its own body ran
     * interpreted through the whole of a small log's first open.
     */
    private int sharedWith(byte[] first, int firstAt, int shared, long node) {
        int at = list.keyOffset(node);
        int m = Arrays.mismatch(first, firstAt, firstAt + shared, list.keyChunk(node), at,
                at + Math.min(shared, userKeyLength(node)));
        return m >= 0 ? m : shared;
    }

    /**
     * The user key's eight bytes from {@code from}, big-endian, zero where it has ended. Unsigned, they order as the
     * user keys do where they differ: at the first byte where the summaries differ, either both keys have a byte
     * (and it decides), or one has ended (the shorter key is a prefix of the other, and the smaller); the zero
     * padding can make a summary tie keys that differ, never reverse them.
     */
    private long summary(long node, int from) {
        byte[] c = list.keyChunk(node);
        int at = list.keyOffset(node);
        int end = userKeyLength(node);
        long s = 0;
        for (int i = from; i < from + 8; i++) {
            s = s << 8 | (i < end ? c[at + i] & 0xFF : 0);
        }
        return s;
    }

    /**
     * Least-significant-digit radix sort of {@code summary} (unsigned), carrying {@code nodes}; stable. The digits'
     * counts are taken in one pass over the keys, and a digit every key shares is not sorted by.
     */
    private static void radixSort(long[] summary, long[] nodes, int count) {
        int[] buckets = new int[DIGITS * BUCKETS];
        for (int i = 0; i < count; i++) {
            countDigits(buckets, summary[i]);
        }
        long[] s = summary;
        long[] x = nodes;
        long[] sOut = new long[count];
        long[] xOut = new long[count];
        for (int digit = 0; digit < DIGITS; digit++) {
            int shift = digit * DIGIT_BITS;
            int base = digit * BUCKETS;
            if (buckets[base + ((int) (s[0] >>> shift) & (BUCKETS - 1))] == count) {
                continue; // one value of this digit for all: this pass would move nothing
            }
            int position = 0;
            for (int b = base; b < base + BUCKETS; b++) {
                int n = buckets[b];
                buckets[b] = position;
                position += n;
            }
            for (int i = 0; i < count; i++) {
                int at = buckets[base + ((int) (s[i] >>> shift) & (BUCKETS - 1))]++;
                sOut[at] = s[i];
                xOut[at] = x[i];
            }
            long[] ts = s;
            s = sOut;
            sOut = ts;
            long[] tx = x;
            x = xOut;
            xOut = tx;
        }
        if (s != summary) {
            System.arraycopy(s, 0, summary, 0, count);
            System.arraycopy(x, 0, nodes, 0, count);
        }
    }

    /** Counts each of {@code s}'s digits in its own buckets. */
    private static void countDigits(int[] buckets, long s) {
        for (int digit = 0; digit < DIGITS; digit++) {
            buckets[digit * BUCKETS + ((int) (s >>> (digit * DIGIT_BITS)) & (BUCKETS - 1))]++;
        }
    }

    /** Puts {@code nodes[from, to)}, whose summaries tie, in key order; stable. */
    private void sortTies(long[] nodes, int from, int to) {
        if (to - from <= INSERTION_LIMIT) {
            for (int i = from + 1; i < to; i++) {
                long v = nodes[i];
                int j = i - 1;
                while (j >= from && compare(nodes[j], v) > 0) {
                    nodes[j + 1] = nodes[j];
                    j--;
                }
                nodes[j + 1] = v;
            }
            return;
        }
        Long[] run = new Long[to - from];
        for (int i = from; i < to; i++) {
            run[i - from] = nodes[i];
        }
        Arrays.sort(run, this::compare); // stable (TimSort)
        for (int i = from; i < to; i++) {
            nodes[i] = run[i - from];
        }
    }

    private int compare(long a, long b) {
        return InternalKey.compare(list.keyChunk(a), list.keyOffset(a), list.keyLength(a), list.keyChunk(b),
                list.keyOffset(b), list.keyLength(b));
    }
}
