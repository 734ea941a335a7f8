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
 */
public record IndexDescription(String name, int keyspace, IndexStatus status, long itemsDone, long itemsTotal,
                               long appliedLsn, long lagLsn, long lagMillis) {
}
