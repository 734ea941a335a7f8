package dev.lacuna.lsm;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** JFR event for one writer's wait for flushes or compactions to catch up; its duration is the wait's. */
@Name("dev.lacuna.WriteStall")
@Label("Write Stall")
@Category({"Lacuna", "Storage"})
@Description("A write waited because a partition had too many memtables waiting to be flushed or too many level-0 tables")
final class WriteStallEvent extends Event {
    @Label("Store")
    @Description("Directory of the store")
    String store;

    @Label("Partition")
    @Description("Number of the partition (tree) that was full")
    int partition;

    @Label("Cause")
    @Description("MEMTABLES (flushes behind), LEVEL0_FILES (compactions behind) or MEMORY (the store's memtables over"
            + " one and a half times the memory budget, flushes behind)")
    String cause;
}
