package dev.lacuna.secondary;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * JFR event for one batch of log records applied to a global secondary index by its background updater (the
 * records the log held when the updater came to them, applied under one lock); its duration is the apply's.
 * The lag is how far the log had gone past the batch's last record when it was applied.
 */
@Name("dev.lacuna.IndexApply")
@Label("Index Apply")
@Category({"Lacuna", "Indexes"})
@Description("A batch of log records applied to a global secondary index by its background updater")
@StackTrace(false) // always the updater's loop: a stack trace would cost without telling anything
final class IndexApplyEvent extends Event {
    @Label("Table")
    String table;

    @Label("Index")
    String index;

    @Label("Records")
    @Description("Log records in the batch")
    int records;

    @Label("Changes")
    @Description("Item changes in the batch's records (a transaction or batch write has several per record)")
    int changes;

    @Label("Entries")
    @Description("Index entries written or deleted for them")
    int entries;

    @Label("LSN")
    @Description("Log sequence number of the batch's last record")
    long lsn;

    @Label("Lag")
    @Description("Log records written after this one and not yet applied to the index when it was")
    long lagRecords;
}
