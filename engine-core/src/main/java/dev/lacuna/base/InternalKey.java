package dev.lacuna.base;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Comparator;

/**
 * Internal keys: a user key followed by an 8-byte trailer {@code sequence << 8 | kind}, big-endian.
 * They order by user key (unsigned bytewise), then by trailer <em>descending</em>, so the newest version
 * of a user key comes first and a seek to {@code (key, snapshot)} lands on the newest version visible at
 * that snapshot. This is LevelDB's internal key, with Lacuna's kinds.
 *
 * <p>Sequence numbers are the write-ahead log's LSNs: every entry written by one log record carries that
 * record's LSN. They are below 2<sup>56</sup>.
 */
public final class InternalKey {
    /** The entry deletes the key: older versions are hidden. */
    public static final int KIND_DELETE = 0;
    /** The entry holds a value. */
    public static final int KIND_PUT = 1;
    /**
     * The entry deletes a key that was put at most once since it was last deleted (index entries): when it
     * meets that put in a compaction or in a memtable, both vanish, whatever the level.
     */
    public static final int KIND_SINGLE_DELETE = 2;

    /** Largest sequence number; a seek with it finds the newest version. */
    public static final long MAX_SEQUENCE = (1L << 56) - 1;
    /** Bytes of the trailer. */
    public static final int TRAILER_SIZE = 8;

    /** Orders internal keys as described in the class comment. */
    public static final Comparator<byte[]> COMPARATOR = InternalKey::compare;

    private static final VarHandle BIG_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private InternalKey() {
    }

    /** Encodes {@code userKey} with a sequence number and kind. */
    public static byte[] encode(byte[] userKey, long sequence, int kind) {
        byte[] k = Arrays.copyOf(userKey, userKey.length + TRAILER_SIZE);
        putTrailer(k, userKey.length, sequence << 8 | kind);
        return k;
    }

    /** The smallest internal key of {@code userKey} visible at {@code snapshot}: seek here to read at it. */
    public static byte[] seekKey(byte[] userKey, long snapshot) {
        return encode(userKey, snapshot, 0xFF);
    }

    /** Length of the user key inside {@code internalKey}. */
    public static int userKeyLength(byte[] internalKey) {
        return internalKey.length - TRAILER_SIZE;
    }

    /** A copy of the user key. */
    public static byte[] userKey(byte[] internalKey) {
        return Arrays.copyOf(internalKey, internalKey.length - TRAILER_SIZE);
    }

    /** The trailer {@code sequence << 8 | kind}. */
    public static long trailer(byte[] internalKey) {
        return (long) BIG_LONG.get(internalKey, internalKey.length - TRAILER_SIZE);
    }

    /** The sequence number. */
    public static long sequence(byte[] internalKey) {
        return trailer(internalKey) >>> 8;
    }

    /** The kind ({@link #KIND_PUT}, {@link #KIND_DELETE}, {@link #KIND_SINGLE_DELETE}). */
    public static int kind(byte[] internalKey) {
        return internalKey[internalKey.length - 1] & 0xFF;
    }

    /** Whether the entry is a deletion of either kind. */
    public static boolean isDeletion(byte[] internalKey) {
        return kind(internalKey) != KIND_PUT;
    }

    /** Compares internal keys: user key ascending, then trailer descending. */
    public static int compare(byte[] a, byte[] b) {
        return compare(a, 0, a.length, b, 0, b.length);
    }

    /**
     * Compares internal keys held in array ranges, each at least {@link #TRAILER_SIZE} bytes, as
     * {@link #compare(byte[], byte[])} compares whole arrays: the block iterator and the table writer compare
     * keys in place, without copying them out.
     */
    public static int compare(byte[] a, int aOffset, int aLength, byte[] b, int bOffset, int bLength) {
        int aUser = aOffset + aLength - TRAILER_SIZE;
        int bUser = bOffset + bLength - TRAILER_SIZE;
        int c = Arrays.compareUnsigned(a, aOffset, aUser, b, bOffset, bUser);
        if (c != 0) {
            return c;
        }
        return Long.compareUnsigned((long) BIG_LONG.get(b, bUser), (long) BIG_LONG.get(a, aUser));
    }

    /** Compares the user-key parts of two internal keys. */
    public static int compareUserKeys(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, 0, a.length - TRAILER_SIZE, b, 0, b.length - TRAILER_SIZE);
    }

    /** Compares the user key inside {@code internalKey} with a plain user key. */
    public static int compareUserKey(byte[] internalKey, byte[] userKey) {
        return Arrays.compareUnsigned(internalKey, 0, internalKey.length - TRAILER_SIZE, userKey, 0, userKey.length);
    }

    /** Whether two internal keys carry the same user key. */
    public static boolean sameUserKey(byte[] a, byte[] b) {
        return Arrays.equals(a, 0, a.length - TRAILER_SIZE, b, 0, b.length - TRAILER_SIZE);
    }

    /*
     * The same reads on a key held in the first {@code length} bytes of an array: the user iterator compares the
     * keys it steps over in the iterators' own buffers, without copying each out.
     */

    /** The trailer of the internal key in {@code k[0, length)}. */
    public static long trailer(byte[] k, int length) {
        return (long) BIG_LONG.get(k, length - TRAILER_SIZE);
    }

    /** Compares the user key of the internal key in {@code k[0, length)} with a plain user key. */
    public static int compareUserKey(byte[] k, int length, byte[] userKey) {
        return Arrays.compareUnsigned(k, 0, length - TRAILER_SIZE, userKey, 0, userKey.length);
    }

    /** Whether the internal keys in {@code a[0, aLength)} and {@code b[0, bLength)} carry the same user key. */
    public static boolean sameUserKey(byte[] a, int aLength, byte[] b, int bLength) {
        return Arrays.equals(a, 0, aLength - TRAILER_SIZE, b, 0, bLength - TRAILER_SIZE);
    }

    private static void putTrailer(byte[] k, int offset, long trailer) {
        for (int i = 7; i >= 0; i--) {
            k[offset + i] = (byte) trailer;
            trailer >>>= 8;
        }
    }
}
