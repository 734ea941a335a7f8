package dev.lacuna.index;

import java.util.List;

/**
 * What one log record did to one table's items.
 *
 * @param lsn     the record's log sequence number; index writes it causes are applied at this LSN
 * @param changes the items it wrote, in order (empty if it wrote none of the table's)
 */
public record ChangeRecord(long lsn, List<ItemChange> changes) {
    /** Copies the list. */
    public ChangeRecord {
        changes = List.copyOf(changes);
    }
}
