package dev.lacuna.lsm;

import java.util.Arrays;

/**
 * Log records recovery hands to one decoding task ({@link Replay.Decoder}), their payloads copied one after another
 * into one array: the log lends each payload for a call only ({@link dev.lacuna.wal.LentRecords}). The decoder takes
 * a batch back once its task is done and fills it again, so that a replay copies the log into a few arrays it
 * reuses, where an array per record was a third of what an open allocated. Not thread-safe: filled by the thread
 * recovering the log, read by one decoding thread after it is handed over.
 */
final class ReplayBatch {
    /** Records a batch takes before it is handed over. */
    static final int RECORDS = 256;
    /** Payload bytes after which a batch is handed over with fewer records: large records make few to a batch. */
    static final int BYTES = 256 * 1024;
    /**
     * A batch whose array grew past this (for a record larger than {@link #BYTES}) is not reused: the next one starts
     * small. With records up to {@code BYTES} no batch is larger.
     */
    static final int KEPT_BYTES = 2 * BYTES;

    private final long[] lsns = new long[RECORDS];
    /** Where each record's payload ends in {@link #bytes}; the next one starts there. */
    private final int[] ends = new int[RECORDS];
    private byte[] bytes = new byte[64 * 1024];
    private int count;

    /** Copies in the record {@code lsn}, whose payload is {@code b[from, from + length)}. */
    void add(long lsn, byte[] b, int from, int length) {
        int start = count == 0 ? 0 : ends[count - 1];
        if (length > bytes.length - start) {
            bytes = Arrays.copyOf(bytes, (int) Math.min(Integer.MAX_VALUE - 8,
                    Math.max(2L * bytes.length, (long) start + length)));
        }
        System.arraycopy(b, from, bytes, start, length);
        lsns[count] = lsn;
        ends[count] = start + length;
        count++;
    }

    /** Whether it is to be handed over: as many records as it takes, or {@link #BYTES} of payloads. */
    boolean full() {
        return count == RECORDS || (count > 0 && ends[count - 1] >= BYTES);
    }

    int count() {
        return count;
    }

    /** The array that holds every payload. */
    byte[] bytes() {
        return bytes;
    }

    long lsn(int i) {
        return lsns[i];
    }

    /** Where record {@code i}'s payload starts in {@link #bytes()}. */
    int from(int i) {
        return i == 0 ? 0 : ends[i - 1];
    }

    int length(int i) {
        return ends[i] - from(i);
    }

    /** Empties it for reuse; false if it is not worth keeping (its array grew for a large record). */
    boolean clear() {
        count = 0;
        return bytes.length <= KEPT_BYTES;
    }
}
