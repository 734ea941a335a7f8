package dev.lacuna;

/**
 * The state of one secondary index, as {@link Database#describeTable} reports it.
 *
 * @param name        the index's name
 * @param keyspace    the keyspace holding its entries
 * @param status      {@code CREATING} while it is being backfilled, {@code ACTIVE} after, {@code FAILED} if its
 *                    maintainer stopped on an error
 * @param itemsDone   items backfilled so far (0 if it was created with the table)
 * @param itemsTotal  items to backfill (0 if it was created with the table)
 * @param appliedLsn  every write up to this LSN is applied to the index
 * @param lagLsn      log records written but not yet applied to the index (0 for a local index)
 * @param lagMillis   the age, by the database's clock, of the oldest write not yet applied to the index: 0 if it
 *                    has applied everything. Exact while the updater holds that write; between two log records
 *                    it is bounded above by the newer of the last applied write's time and the time the index
 *                    last had applied everything (no later write can be older than either)
 * @param writeStallMillis how long, in total since the open, writers to the table were held (slowed or stalled)
 *                    because this index was too far behind ({@link DatabaseOptions#maxIndexLagRecords()})
 * @param writersHeld writers held by this index now
 * @param writeStallCause why a writer was last held (the index's lag and the limit), or null if none ever was
 */
public record IndexDescription(String name, int keyspace, IndexStatus status, long itemsDone, long itemsTotal,
                               long appliedLsn, long lagLsn, long lagMillis, long writeStallMillis, int writersHeld,
                               String writeStallCause) {
    /** A description without back-pressure: no writer ever held by the index. */
    public IndexDescription(String name, int keyspace, IndexStatus status, long itemsDone, long itemsTotal,
                            long appliedLsn, long lagLsn, long lagMillis) {
        this(name, keyspace, status, itemsDone, itemsTotal, appliedLsn, lagLsn, lagMillis, 0, 0, null);
    }
}
