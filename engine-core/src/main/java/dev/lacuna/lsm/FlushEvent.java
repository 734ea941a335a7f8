package dev.lacuna.lsm;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** JFR event for one memtable flush into level-0 tables; its duration is the flush's. */
@Name("dev.lacuna.Flush")
@Label("Flush")
@Category({"Lacuna", "Storage"})
@Description("A memtable of one partition written to level-0 tables")
@StackTrace(false) // always the background flush: a stack trace would cost without telling anything
final class FlushEvent extends Event {
    @Label("Store")
    @Description("Directory of the store")
    String store;

    @Label("Partition")
    @Description("Number of the partition (tree) whose memtable was flushed")
    int partition;

    @Label("Entries")
    @Description("Entries in the memtable flushed")
    long entries;

    @Label("Bytes")
    @Description("Bytes written to tables")
    @DataAmount
    long bytes;

    @Label("Files")
    @Description("Tables written")
    int files;

    @Label("Reason")
    @Description("Why the memtable was frozen (MEMTABLE_FULL, DEAD_PAIRS, MEMORY_BUDGET, LOG_SIZE, KEYSPACE_FLUSH, ...)")
    String reason;
}
