package dev.lacuna.lsm;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** JFR event for one compaction (a trivial move included, with no bytes written); its duration is the compaction's. */
@Name("dev.lacuna.Compaction")
@Label("Compaction")
@Category({"Lacuna", "Storage"})
@Description("Tables of one level merged into the next (or rewritten in place to drop deletions)")
@StackTrace(false) // always the background compaction: a stack trace would cost without telling anything
final class CompactionEvent extends Event {
    @Label("Store")
    @Description("Directory of the store")
    String store;

    @Label("Partition")
    @Description("Number of the partition (tree) compacted")
    int partition;

    @Label("Level")
    @Description("Level the inputs came from")
    int level;

    @Label("Output Level")
    @Description("Level the outputs went to")
    int outputLevel;

    @Label("Reason")
    @Description("What chose this compaction")
    String reason;

    @Label("Trivial Move")
    @Description("Whether the files were moved down without being rewritten")
    boolean trivialMove;

    @Label("Input Files")
    int inputFiles;

    @Label("Input Bytes")
    @DataAmount
    long inputBytes;

    @Label("Output Files")
    int outputFiles;

    @Label("Output Bytes")
    @DataAmount
    long outputBytes;
}
