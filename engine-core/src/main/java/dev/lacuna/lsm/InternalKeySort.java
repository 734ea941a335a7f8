package dev.lacuna.lsm;

import dev.lacuna.base.InternalKey;
import java.util.Arrays;

/**
 * Orders recovery's internal keys ({@link InternalKey#COMPARATOR}) without a general comparison sort: a sort of
 * objects through a comparator, each step a call and two cache misses into the keys, took a quarter of an open.
 * Each key is summed up by the eight bytes of its user key that follow the prefix every key shares (zero past its
 * end), which order as the keys do wherever they differ; those longs are radix-sorted, and only keys whose eight
 * bytes are equal (versions of one key, or keys longer than the shared prefix plus eight that agree that far) are
 * compared in full. Not thread-safe; one instance per sort.
 */
final class InternalKeySort {
    /** Radix digits of 16 bits: four passes over a long, each skipped where every key has the same digit. */
    private static final int DIGIT_BITS = 16;
    private static final int BUCKETS = 1 << DIGIT_BITS;
    /** Ties up to this many are put in order by insertion; longer ones (rare) by a comparison sort. */
    private static final int INSERTION_LIMIT = 16;
    /** Fewer keys than this are sorted by comparison: clearing the radix buckets would cost more. */
    private static final int SMALL = 256;

    private InternalKeySort() {
    }

    /**
     * The order of some keys.
     *
     * @param order              indexes into the keys, from the smallest key to the largest; keys that compare equal
     *                           keep their order of the input
     * @param keyAndSequenceTwice whether two keys share a user key and a sequence (several writes of one key in one
     *                           log record, which this engine does not write)
     */
    record Result(int[] order, boolean keyAndSequenceTwice) {
    }

    /** Orders {@code keys[0, count)}. */
    static Result order(byte[][] keys, int count) {
        int[] index = new int[count];
        if (count < SMALL) {
            for (int i = 0; i < count; i++) {
                index[i] = i;
            }
            sortTies(keys, index, 0, count);
            return new Result(index, keyAndSequenceTwice(keys, index, 0, count));
        }
        int shared = sharedPrefix(keys, count);
        long[] summary = new long[count];
        for (int i = 0; i < count; i++) {
            summary[i] = summary(keys[i], shared);
            index[i] = i;
        }
        radixSort(summary, index, count);
        boolean twice = false;
        for (int from = 0; from < count; ) {
            int to = from + 1;
            while (to < count && summary[to] == summary[from]) {
                to++;
            }
            if (to - from > 1) { // keys of equal user keys tie: only here can a user key and sequence repeat
                sortTies(keys, index, from, to);
                twice = twice || keyAndSequenceTwice(keys, index, from, to);
            }
            from = to;
        }
        return new Result(index, twice);
    }

    /** Whether two neighbours of {@code index[from, to)}, in key order, share a user key and a sequence. */
    private static boolean keyAndSequenceTwice(byte[][] keys, int[] index, int from, int to) {
        for (int i = from + 1; i < to; i++) {
            byte[] a = keys[index[i - 1]];
            byte[] b = keys[index[i]];
            if (InternalKey.sameUserKey(a, b) && InternalKey.sequence(a) == InternalKey.sequence(b)) {
                return true;
            }
        }
        return false;
    }

    /** Bytes every user key starts with (no more than the shortest user key). */
    private static int sharedPrefix(byte[][] keys, int count) {
        if (count == 0) {
            return 0;
        }
        byte[] first = keys[0];
        int shared = InternalKey.userKeyLength(first);
        for (int i = 1; i < count && shared > 0; i++) {
            byte[] k = keys[i];
            int m = Arrays.mismatch(first, 0, shared, k, 0, Math.min(shared, InternalKey.userKeyLength(k)));
            if (m >= 0) {
                shared = m;
            }
        }
        return shared;
    }

    /**
     * The user key's eight bytes from {@code from}, big-endian, zero where it has ended. Unsigned, they order as the
     * user keys do where they differ: at the first byte where the summaries differ, either both keys have a byte
     * (and it decides), or one has ended (the shorter key is a prefix of the other, and the smaller); the zero
     * padding can make a summary tie keys that differ, never reverse them.
     */
    private static long summary(byte[] key, int from) {
        int end = InternalKey.userKeyLength(key);
        long s = 0;
        for (int i = from; i < from + 8; i++) {
            s = s << 8 | (i < end ? key[i] & 0xFF : 0);
        }
        return s;
    }

    /** Least-significant-digit radix sort of {@code summary} (unsigned), carrying {@code index}; stable. */
    private static void radixSort(long[] summary, int[] index, int count) {
        long[] summaryTmp = new long[count];
        int[] indexTmp = new int[count];
        int[] buckets = new int[BUCKETS];
        long[] s = summary;
        int[] x = index;
        long[] sOut = summaryTmp;
        int[] xOut = indexTmp;
        for (int shift = 0; shift < Long.SIZE; shift += DIGIT_BITS) {
            Arrays.fill(buckets, 0);
            for (int i = 0; i < count; i++) {
                buckets[(int) (s[i] >>> shift) & (BUCKETS - 1)]++;
            }
            if (count == 0 || buckets[(int) (s[0] >>> shift) & (BUCKETS - 1)] == count) {
                continue; // one digit for all: this pass would move nothing
            }
            int position = 0;
            for (int b = 0; b < BUCKETS; b++) {
                int n = buckets[b];
                buckets[b] = position;
                position += n;
            }
            for (int i = 0; i < count; i++) {
                int at = buckets[(int) (s[i] >>> shift) & (BUCKETS - 1)]++;
                sOut[at] = s[i];
                xOut[at] = x[i];
            }
            long[] ts = s;
            s = sOut;
            sOut = ts;
            int[] tx = x;
            x = xOut;
            xOut = tx;
        }
        if (s != summary) {
            System.arraycopy(s, 0, summary, 0, count);
            System.arraycopy(x, 0, index, 0, count);
        }
    }

    /** Puts {@code index[from, to)}, whose summaries tie, in key order; stable. */
    private static void sortTies(byte[][] keys, int[] index, int from, int to) {
        if (to - from <= INSERTION_LIMIT) {
            for (int i = from + 1; i < to; i++) {
                int v = index[i];
                int j = i - 1;
                while (j >= from && InternalKey.compare(keys[index[j]], keys[v]) > 0) {
                    index[j + 1] = index[j];
                    j--;
                }
                index[j + 1] = v;
            }
            return;
        }
        Integer[] run = new Integer[to - from];
        for (int i = from; i < to; i++) {
            run[i - from] = index[i];
        }
        Arrays.sort(run, (a, b) -> InternalKey.compare(keys[a], keys[b])); // stable (TimSort)
        for (int i = from; i < to; i++) {
            index[i] = run[i - from];
        }
    }
}
