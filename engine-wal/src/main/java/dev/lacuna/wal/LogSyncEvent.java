package dev.lacuna.wal;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.EventType;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * JFR event for one fsync of the write-ahead log: a group commit, a batched sync or a sync on request. The
 * event's duration is the fsync's. Committed by the engine; a user records it with JFR as usual.
 */
@Name("dev.lacuna.LogSync")
@Label("Log Sync")
@Category({"Lacuna", "Write-Ahead Log"})
@Description("An fsync of Lacuna's write-ahead log and the group of records it made durable")
@StackTrace(false) // always the log's sync path: a stack trace would cost without telling anything
final class LogSyncEvent extends Event {
    /**
     * The type's state, read before anything is allocated: the sync path must cost nothing more while no
     * recording wants the event. Final, and only read.
     */
    static final EventType TYPE = EventType.getEventType(LogSyncEvent.class);

    @Label("Log")
    @Description("Directory of the write-ahead log")
    String log;

    @Label("Records")
    @Description("Records this fsync made durable (the group commit's size)")
    long records;

    @Label("Bytes")
    @Description("Bytes of the segment this fsync made durable")
    @DataAmount
    long bytes;
}
