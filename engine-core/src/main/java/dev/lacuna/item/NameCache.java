package dev.lacuna.item;

import dev.lacuna.AttributeValue;
import dev.lacuna.base.CheckedNames;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
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
 *
 * <p>It also keeps, by position, the last item's string values of up to {@value #MAX_BYTES} bytes, which a
 * page's items often share: the partition key of a query's index or table is the same in every item, and so
 * is a status or a type for many. A value equal byte for byte is the same {@code AttributeValue} (immutable),
 * with no copy, no UTF-8 check and no allocation. A position whose value once differs from the last item's
 * (an id, a timestamp) is not compared again, so a value that changes from item to item costs one
 * comparison per page.
 */
public final class NameCache {
    /** Eight bytes of an array at a time, as one long (also the decoder's ASCII check). */
    static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    static final int SLOTS = 32;
    static final int MAX_BYTES = 64;

    private final byte[][] keys = new byte[SLOTS][];
    private final String[] names = new String[SLOTS];
    private final byte[][] valueKeys = new byte[SLOTS][];
    private final AttributeValue[] values = new AttributeValue[SLOTS];
    /** Positions whose string value differed once from the last item's: not kept any more. */
    private int varying;
    /** The names of the last item decoded with this cache, for the next item of the same names, or null. */
    private CheckedNames.Shape shape;

    /** The decoder of the items decoded with this cache, made at the first; null until then. */
    private ItemDecoder decoder;

    /** An empty cache. */
    public NameCache() {
    }

    /** The name kept for position {@code i} if its bytes are {@code b[offset, offset + n)}, or null. */
    String get(int i, byte[] b, int offset, int n) {
        if (i >= SLOTS) {
            return null;
        }
        byte[] k = keys[i];
        return k != null && equal(k, b, offset, n) ? names[i] : null;
    }

    /**
     * Whether {@code k} is {@code b[offset, offset + n)}. Names and these values are short, where the vectorised
     * mismatch's set-up costs more than it saves, and a byte loop costs a compare and a bounds check a byte: 8
     * bytes at a time, the last 8 (or 4) overlapping the ones before, never reading outside either range.
     */
    private static boolean equal(byte[] k, byte[] b, int offset, int n) {
        if (k.length != n) {
            return false;
        }
        if (n >= 8) {
            int last = n - 8;
            for (int j = 0; j < last; j += 8) {
                if ((long) LONGS.get(k, j) != (long) LONGS.get(b, offset + j)) {
                    return false;
                }
            }
            return (long) LONGS.get(k, last) == (long) LONGS.get(b, offset + last);
        }
        if (n >= 4) {
            return (int) INTS.get(k, 0) == (int) INTS.get(b, offset)
                    && (int) INTS.get(k, n - 4) == (int) INTS.get(b, offset + n - 4);
        }
        for (int j = 0; j < n; j++) {
            if (k[j] != b[offset + j]) {
                return false;
            }
        }
        return true;
    }

    /**
     * The string value kept for attribute position {@code i} if its bytes are {@code b[offset, offset + n)}, or
     * null.
     */
    AttributeValue value(int i, byte[] b, int offset, int n) {
        if (i >= SLOTS || (varying & 1 << i) != 0) {
            return null;
        }
        byte[] k = valueKeys[i];
        return k != null && equal(k, b, offset, n) ? values[i] : null;
    }

    /**
     * Keeps {@code value}, the string value strict decoding made of {@code b[offset, offset + n)}, for attribute
     * position {@code i}, which {@link #value} did not have: if another value was kept there, the position's
     * values vary and it keeps none from now on.
     */
    void putValue(int i, byte[] b, int offset, int n, AttributeValue value) {
        if (i >= SLOTS || (varying & 1 << i) != 0) {
            return;
        }
        if (valueKeys[i] != null || n > MAX_BYTES) {
            varying |= 1 << i;
            valueKeys[i] = null;
            values[i] = null;
            return;
        }
        valueKeys[i] = Arrays.copyOfRange(b, offset, offset + n);
        values[i] = value;
    }

    /** The one decoder of the items decoded with this cache. */
    ItemDecoder decoder() {
        if (decoder == null) {
            decoder = ItemDecoder.forPage(this);
        }
        return decoder;
    }

    /** The DynamoDB size ({@link ItemSize#of}) of the item decoded last with this cache. */
    public long lastItemSize() {
        return decoder == null ? 0 : decoder.size();
    }

    /** Whether no string value is kept for position {@code i}: it differed from item to item, or is past the slots. */
    boolean varies(int i) {
        return i >= SLOTS || (varying & 1 << i) != 0;
    }

    /** The names of the last item decoded, or null. */
    CheckedNames.Shape shape() {
        return shape;
    }

    /** Keeps the names of the item just decoded, for the next one. */
    void shape(CheckedNames.Shape names) {
        shape = names;
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
