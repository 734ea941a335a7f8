package dev.lacuna.index;

import java.util.List;

/**
 * What one log record did to one table's items.
 *
 * @param lsn     the record's log sequence number; index writes it causes are applied at this LSN
 * @param changes the items it wrote, in order (empty if it wrote none of the table's)
 * @param writeTimeMillis when it was written, by the store's clock (epoch milliseconds; 0 for a record of a log
 *                written before records carried a write time)
 */
public record ChangeRecord(long lsn, List<ItemChange> changes, long writeTimeMillis) {
    /** Copies the list. */
    public ChangeRecord {
        changes = List.copyOf(changes);
    }

    /** A record without a write time. */
    public ChangeRecord(long lsn, List<ItemChange> changes) {
        this(lsn, changes, 0);
    }
}
