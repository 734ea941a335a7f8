package dev.lacuna.storage;

/**
 * Counters of a log since it was opened; a consistent-enough snapshot (each counter is read atomically,
 * not all together).
 *
 * @param appends          records appended
 * @param appendedBytes    payload bytes appended
 * @param fsyncs           fsyncs issued for durability (group commits, batched syncs, segment rolls)
 * @param syncedRecords    records made durable by those fsyncs; {@code syncedRecords / fsyncs} is the mean
 *                         group size
 * @param largestGroup     the most records made durable by one fsync
 * @param segmentsCreated  segments created
 * @param segmentsDeleted  segments deleted by retention
 */
public record WalStats(long appends, long appendedBytes, long fsyncs, long syncedRecords, long largestGroup,
                       long segmentsCreated, long segmentsDeleted) {
    /** Mean number of records per fsync, or 0 before the first fsync. */
    public double meanGroupSize() {
        return fsyncs == 0 ? 0 : (double) syncedRecords / fsyncs;
    }
}
