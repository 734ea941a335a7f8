package dev.lacuna.item;

import java.util.Arrays;

/**
 * The attribute names of the last item one reader decoded, by position, so that the items of a query page,
 * which nearly always hold the same names in the same order, decode each name once: the next item's
 * {@code i}-th name is compared byte for byte with the last one's and, if equal, is the same String, which
 * needs no copy and no UTF-8 check, and hashes once for every map it goes into. A cache by position needs no
 * hash of the bytes to find its entry: with one, the look-up cost what it saved (measured on a page of 40
 * tickets).
 *
 * <p>Only names the strict decoder accepted are kept, each with its exact bytes, so a name returned from
 * here is the one decoding those bytes would have made. Names past the first {@value #SLOTS} of an item, and
 * names longer than {@value #MAX_BYTES} bytes, are not kept. Not thread-safe: one per page or per reader.
 */
public final class NameCache {
    static final int SLOTS = 32;
    static final int MAX_BYTES = 64;

    private final byte[][] keys = new byte[SLOTS][];
    private final String[] names = new String[SLOTS];

    /** An empty cache. */
    public NameCache() {
    }

    /** The name kept for position {@code i} if its bytes are {@code b[offset, offset + n)}, or null. */
    String get(int i, byte[] b, int offset, int n) {
        if (i >= SLOTS) {
            return null;
        }
        byte[] k = keys[i];
        if (k == null || k.length != n) {
            return null;
        }
        // names are short: a plain loop beats the vectorised mismatch's set-up
        for (int j = 0; j < n; j++) {
            if (k[j] != b[offset + j]) {
                return null;
            }
        }
        return names[i];
    }

    /** Keeps {@code name}, which strict decoding of {@code b[offset, offset + n)} made, for position {@code i}. */
    void put(int i, byte[] b, int offset, int n, String name) {
        if (i >= SLOTS || n > MAX_BYTES) {
            return;
        }
        keys[i] = java.util.Arrays.copyOfRange(b, offset, offset + n);
        names[i] = name;
    }
}
