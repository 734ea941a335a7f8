package dev.lacuna;

import java.time.Instant;

/**
 * What the time-to-live sweeper has done to one table since the database opened, as
 * {@link Database#describeTable} reports it. The sweeper reads each table with time to live enabled once per
 * pass ({@link DatabaseOptions#timeToLiveSweepInterval} apart) and deletes the items that expired.
 *
 * @param passes          passes over the table finished since the database opened
 * @param lastPassEndedAt when the last of them ended, by the database's clock; null if none has
 * @param sweeping        whether a pass over the table is under way
 * @param itemsRead       items the pass under way has read so far, or the last pass read if none is under way
 * @param itemsDeleted    items deleted because they expired, since the database opened
 */
public record TimeToLiveProgress(long passes, Instant lastPassEndedAt, boolean sweeping, long itemsRead,
                                 long itemsDeleted) {
    /** A table the sweeper has not read since the database opened. */
    public static final TimeToLiveProgress NONE = new TimeToLiveProgress(0, null, false, 0, 0);
}
