package dev.lacuna.wal;

import dev.lacuna.storage.Durability;

/**
 * A record {@link Wal#reserve reserved} in the log: it has its LSN and is buffered, and is written by the next
 * grouped write ({@link Wal#write(ReservedRecord)}), or cut from the log if that write fails.
 */
public final class ReservedRecord {
    final long lsn;
    final int length;
    final Durability durability;
    // Guarded by the log's write lock.
    boolean written;
    /** Why the record was cut from the log unwritten; null unless it was. */
    Throwable cut;

    ReservedRecord(long lsn, int length, Durability durability) {
        this.lsn = lsn;
        this.length = length;
        this.durability = durability;
    }

    /** The record's LSN. */
    public long lsn() {
        return lsn;
    }
}
