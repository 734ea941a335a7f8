package dev.lacuna;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * One change of one item, as a change stream delivers it (DynamoDB's stream {@code Record}). Immutable.
 *
 * <p>Records come in sequence-number order: an item's records in the order of its writes, and a transaction's
 * (or a batch write's) records adjacent, in the order of its items. A write that changed nothing (an item put
 * again as it was, a delete of an absent item) has no record.
 *
 * @param sequenceNumber   a decimal string, unique in the stream, ordering records as the writes were logged: the
 *                         write's log sequence number (LSN, 20 digits) followed by the record's place among the
 *                         table's changes in that log record (4 digits)
 * @param lsn              the log sequence number of the write
 * @param eventName        {@code INSERT}, {@code MODIFY} or {@code REMOVE}
 * @param shardId          the shard the item belongs to: one per hash partition of the table, stable for the
 *                         stream's life; an item's records are always in the same shard
 * @param approximateCreationDateTime when the write was logged, by the database's clock
 * @param keys             the item's key attributes
 * @param newImage         the item after the write, if the view type carries it (null otherwise, and for a REMOVE)
 * @param oldImage         the item before the write, if the view type carries it (null otherwise, and for an INSERT)
 * @param sizeBytes        the size of the keys and images the record carries (DynamoDB's item-size accounting)
 * @param streamViewType   the stream's view type
 * @param userIdentity     {@link StreamIdentity#TIME_TO_LIVE} for a deletion made by time to live, else null
 */
public record StreamRecord(String sequenceNumber, long lsn, OperationType eventName, String shardId,
                           Instant approximateCreationDateTime, Map<String, AttributeValue> keys, Item newImage,
                           Item oldImage, long sizeBytes, StreamViewType streamViewType, StreamIdentity userIdentity) {
    /** Copies the keys. */
    public StreamRecord {
        Objects.requireNonNull(sequenceNumber, "sequenceNumber");
        Objects.requireNonNull(eventName, "eventName");
        keys = Map.copyOf(keys);
    }
}
