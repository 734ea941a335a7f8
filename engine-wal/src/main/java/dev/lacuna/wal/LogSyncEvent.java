package dev.lacuna.wal;

import java.nio.file.Path;
import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
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
final class LogSyncEvent extends Event implements SyncEvents.Timing {

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

    @Override
    public void commit(Path log, long records, long bytes) {
        if (shouldCommit()) {
            this.log = log.toString();
            this.records = Math.max(records, 0);
            this.bytes = Math.max(bytes, 0);
            commit();
        }
    }
}
