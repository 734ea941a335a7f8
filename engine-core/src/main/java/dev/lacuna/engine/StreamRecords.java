package dev.lacuna.engine;

import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.OperationType;
import dev.lacuna.StreamIdentity;
import dev.lacuna.StreamRecord;
import dev.lacuna.StreamViewType;
import dev.lacuna.item.ItemCodec;
import dev.lacuna.item.ItemSize;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.lsm.KvLogReader;
import dev.lacuna.lsm.LsmStore;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a log record into the stream records of one table: each put or delete of the table's items, paired
 * with the before-image the record carries (every write of a table with a stream logs one, see
 * {@link Writes}), becomes an INSERT, a MODIFY or a REMOVE — or nothing, if the item is as it was. Records
 * are numbered by the log record's LSN and their place among its records, so they are distinct and ordered.
 */
final class StreamRecords {
    private StreamRecords() {
    }

    /** The shard of hash partition {@code partition} of a stream labelled {@code label}: stable for the stream's life. */
    static String shardId(long label, int partition) {
        return String.format("shardId-%020d-%08d", label, partition);
    }

    /** The sequence number of the {@code index}th record of log record {@code lsn}: ordered as decimal strings and as numbers. */
    static String sequenceNumber(long lsn, int index) {
        return String.format("%020d%04d", lsn, index);
    }

    /** Whether {@code key} is in keyspace {@code id} (its first four bytes). */
    static boolean inTable(int id, byte[] key) {
        return key.length >= 4 && key[0] == (byte) (id >>> 24) && key[1] == (byte) (id >>> 16)
                && key[2] == (byte) (id >>> 8) && key[3] == (byte) id;
    }

    /** Whether log record {@code batch} writes an item of table {@code id} (a put or a delete, not a before-image). */
    static boolean touches(int id, KvLogReader.Batch batch) {
        for (KvLogReader.Op op : batch.ops()) {
            if (op.kind() != KvLogReader.Kind.LOG_ONLY && inTable(id, op.key())) {
                return true;
            }
        }
        return false;
    }

    /**
     * The stream records of {@code table}'s items in {@code batch}, in the record's order.
     *
     * @throws IllegalStateException if the record writes an item of the table without its before-image (a
     *                               record written before the stream was enabled: the consumer's checkpoint is
     *                               never below the stream's start, so this is damage)
     */
    static List<StreamRecord> of(TableSchema table, StreamState stream, LsmStore kv, KvLogReader.Batch batch) {
        Map<ByteBuffer, byte[]> befores = null;
        List<KvLogReader.Op> writes = new ArrayList<>();
        for (KvLogReader.Op op : batch.ops()) {
            if (!inTable(table.id(), op.key())) {
                continue;
            }
            if (op.kind() == KvLogReader.Kind.LOG_ONLY) {
                if (befores == null) {
                    befores = new HashMap<>();
                }
                befores.put(ByteBuffer.wrap(op.key()), op.value());
            } else {
                writes.add(op);
            }
        }
        if (writes.isEmpty()) {
            return List.of();
        }
        String where = "log record " + batch.lsn();
        StreamViewType view = stream.viewType();
        Instant created = Instant.ofEpochMilli(batch.writeTimeMillis());
        boolean service = (batch.flags() & WriteBatch.FLAG_SERVICE) != 0;
        List<StreamRecord> out = new ArrayList<>(writes.size());
        for (KvLogReader.Op op : writes) {
            byte[] beforeBytes = befores == null ? null : befores.get(ByteBuffer.wrap(op.key()));
            if (beforeBytes == null) {
                throw new IllegalStateException(where + " writes an item of table " + table.name()
                        + " without its before-image, which its stream needs");
            }
            Item before = beforeBytes.length == 0 ? null : ItemCodec.decode(beforeBytes, 0, beforeBytes.length, where, 0);
            Item after = op.kind() == KvLogReader.Kind.PUT ? ItemCodec.decode(op.value(), 0, op.value().length, where, 0)
                    : null;
            if (before == null ? after == null : before.equals(after)) {
                continue; // changed nothing: DynamoDB writes no record
            }
            OperationType event = before == null ? OperationType.INSERT
                    : after == null ? OperationType.REMOVE : OperationType.MODIFY;
            Item item = after != null ? after : before;
            Key key = Key.from(item, table.pkName(), table.skName());
            Item newImage = view.hasNewImage() ? after : null;
            Item oldImage = view.hasOldImage() ? before : null;
            long size = ItemSize.of(Item.of(key.attributes())) + (newImage == null ? 0 : ItemSize.of(newImage))
                    + (oldImage == null ? 0 : ItemSize.of(oldImage));
            out.add(new StreamRecord(sequenceNumber(batch.lsn(), out.size()), batch.lsn(), event,
                    shardId(stream.labelMillis(), kv.partitionOf(op.key())), created, key.attributes(), newImage,
                    oldImage, size, view, service && event == OperationType.REMOVE ? StreamIdentity.TIME_TO_LIVE : null));
        }
        return out;
    }
}
