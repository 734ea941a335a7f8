package dev.lacuna.engine;

import dev.lacuna.ExpiredIteratorException;
import dev.lacuna.ResourceNotFoundException;
import dev.lacuna.ShardIteratorType;
import dev.lacuna.ShardRecords;
import dev.lacuna.StreamDescription;
import dev.lacuna.StreamRecord;
import dev.lacuna.TrimmedDataAccessException;
import dev.lacuna.ValidationException;
import dev.lacuna.lsm.KvLogReader;
import dev.lacuna.lsm.LsmStore;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The Streams API's reads (DynamoDB Streams' ListStreams, DescribeStream, GetShardIterator, GetRecords): stateless
 * reads of one shard of a stream straight from the log. Unlike a {@link StreamConsumerHandle} nothing is kept
 * between calls — the position travels in the iterator ({@link ShardIterator}), each call opens a log reader and
 * closes it — so nothing keeps the log for a reader of shards but the stream's own retention: a position that
 * retention passed is refused with {@link TrimmedDataAccessException}.
 *
 * <p>A call reads at most {@link #MAX_SCANNED} log records, matching or not (a shard of a busy table, or a quiet
 * table beside a busy one, would otherwise make one call read the whole log), and its next iterator goes on after
 * what it read. The next iterator also carries where in the log (segment and offset) its position starts, so that
 * the next call reads from there instead of reading its log segment from the start up to it; only an iterator from
 * {@link #getShardIterator} lacks that hint, and pays for one such read. Thread-safe: it reads the catalog and the
 * log checkpoints, which are safe to read concurrently.
 */
final class StreamShards {
    /** The most log records one {@link #getRecords} call reads, whether or not they hold the shard's records. */
    static final int MAX_SCANNED = 4096;
    /** DynamoDB's limit on the records one GetRecords call returns. */
    static final int MAX_LIMIT = 1000;
    private static final String ARN_TABLE = ":table/";
    private static final String ARN_STREAM = "/stream/";

    private final Catalog catalog;
    private final LsmStore kv;
    private final Clock clock;

    StreamShards(Catalog catalog, LsmStore kv, Clock clock) {
        this.catalog = catalog;
        this.kv = kv;
        this.clock = clock;
    }

    /** Every table's latest stream (enabled or disabled), or only {@code table}'s; by table name. */
    List<StreamDescription> listStreams(String table) {
        kv.checkOpen();
        List<StreamDescription> out = new ArrayList<>();
        for (String name : table == null ? catalog.names() : List.of(table)) {
            TableSchema t = catalog.get(name);
            if (t.settings().stream().labelMillis() != 0) {
                out.add(describe(t, t.settings().stream()));
            }
        }
        return out;
    }

    /** The stream {@code streamArn} names: it must be its table's latest one. */
    StreamDescription describeStream(String streamArn) {
        kv.checkOpen();
        TableSchema t = tableOf(streamArn);
        return describe(t, t.settings().stream());
    }

    private StreamDescription describe(TableSchema t, StreamState s) {
        List<StreamDescription.Shard> shards = new ArrayList<>();
        Long hold = s.enabled() ? kv.logCheckpoints().get(StreamState.holdName(t.id(), s.labelMillis())) : null;
        if (hold != null) { // none once the stream is disabled (also meanwhile)
            String start = StreamRecords.sequenceNumber(hold + 1, 0);
            for (int p = 0; p < t.spec().partitions(); p++) {
                shards.add(new StreamDescription.Shard(StreamRecords.shardId(s.labelMillis(), p), start));
            }
        }
        return new StreamDescription(s.arn(t.name()), s.label(), t.name(), hold != null, s.viewType(),
                Instant.ofEpochMilli(s.labelMillis()), t.spec().partitionKey(), t.spec().sortKey(), shards);
    }

    /**
     * The table whose latest stream {@code streamArn} is: Lacuna's ARN ({@link StreamState#arn}) or any ARN of the
     * form {@code arn:...:table/NAME/stream/LABEL} (what counts is the table's name and the label, so that a layer
     * that writes ARNs in another partition or region, as the DynamoDB API does, is understood).
     */
    private TableSchema tableOf(String streamArn) {
        int table = streamArn == null ? -1 : streamArn.indexOf(ARN_TABLE);
        int at = streamArn == null ? -1 : streamArn.lastIndexOf(ARN_STREAM);
        if (table < 0 || !streamArn.startsWith("arn:") || at <= table + ARN_TABLE.length()) {
            throw new ValidationException("Invalid StreamArn: " + streamArn);
        }
        String name = streamArn.substring(table + ARN_TABLE.length(), at);
        String label = streamArn.substring(at + ARN_STREAM.length());
        TableSchema t;
        try {
            t = catalog.get(name);
        } catch (ResourceNotFoundException e) {
            throw streamNotFound(streamArn);
        }
        if (!label.equals(t.settings().stream().label())) {
            throw streamNotFound(streamArn);
        }
        return t;
    }

    private static ResourceNotFoundException streamNotFound(String streamArn) {
        return new ResourceNotFoundException("Requested resource not found: Stream: " + streamArn + " not found");
    }

    /** An iterator of shard {@code shardId} of stream {@code streamArn}, at the position {@code type} says. */
    String getShardIterator(String streamArn, String shardId, ShardIteratorType type, String sequenceNumber) {
        Objects.requireNonNull(type, "type");
        kv.checkOpen();
        TableSchema t = tableOf(streamArn);
        StreamState s = t.settings().stream();
        int partition = partitionOf(t, s, shardId);
        long hold = horizon(t, s, streamArn);
        ShardIterator it = new ShardIterator(t.name(), t.id(), s.labelMillis(), partition, hold + 1, -1, -1, -1,
                clock.millis());
        switch (type) {
            case TRIM_HORIZON -> {
            }
            case LATEST -> it = it.at(Math.max(hold + 1, kv.lastSequence() + 1), -1);
            case AT_SEQUENCE_NUMBER, AFTER_SEQUENCE_NUMBER -> {
                long[] seq = parseSequenceNumber(sequenceNumber);
                if (seq[0] > kv.lastSequence()) {
                    throw new ValidationException("Invalid SequenceNumber: " + sequenceNumber
                            + " is past the end of the stream");
                }
                int index = (int) seq[1] - (type == ShardIteratorType.AT_SEQUENCE_NUMBER ? 1 : 0);
                it = it.at(seq[0], index);
                checkNotTrimmed(it, hold);
            }
        }
        return it.encode();
    }

    private static int partitionOf(TableSchema t, StreamState s, String shardId) {
        for (int p = 0; p < t.spec().partitions(); p++) {
            if (StreamRecords.shardId(s.labelMillis(), p).equals(shardId)) {
                return p;
            }
        }
        throw new ResourceNotFoundException("Requested resource not found: Shard: " + shardId + " in stream "
                + s.arn(t.name()) + " not found");
    }

    /** The LSN and index of a sequence number ({@link StreamRecords#sequenceNumber}). */
    private static long[] parseSequenceNumber(String sequenceNumber) {
        if (sequenceNumber == null || sequenceNumber.length() != 24 || !sequenceNumber.chars().allMatch(
                c -> c >= '0' && c <= '9')) {
            throw new ValidationException("Invalid SequenceNumber: " + sequenceNumber);
        }
        return new long[] {Long.parseLong(sequenceNumber.substring(0, 20)), Long.parseLong(sequenceNumber.substring(20))};
    }

    /**
     * The stream's trim horizon: the LSN of the newest record it no longer holds.
     *
     * @throws ResourceNotFoundException if it is no longer enabled (its checkpoint gone with it)
     */
    private long horizon(TableSchema t, StreamState s, String what) {
        Long hold = s.enabled() ? kv.logCheckpoints().get(StreamState.holdName(t.id(), s.labelMillis())) : null;
        if (hold == null) {
            throw new ResourceNotFoundException("Requested resource not found: Stream: " + what
                    + " is disabled, or its table was deleted");
        }
        return hold;
    }

    private static void checkNotTrimmed(ShardIterator it, long hold) {
        if (it.lsn() <= hold) {
            throw new TrimmedDataAccessException("the stream's records up to LSN " + hold + " were trimmed (past its"
                    + " retention): the iterator's position, LSN " + it.lsn() + ", is no longer held; start again at"
                    + " TRIM_HORIZON");
        }
    }

    /** Up to {@code limit} records of the iterator's shard after its position, and the position after them. */
    ShardRecords getRecords(String shardIterator, int limit) {
        ShardIterator it = ShardIterator.decode(shardIterator);
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new ValidationException("limit must be 1 to " + MAX_LIMIT + ": " + limit);
        }
        kv.checkOpen();
        TableSchema t;
        try {
            t = catalog.get(it.table());
        } catch (ResourceNotFoundException e) {
            throw gone(it);
        }
        StreamState s = t.settings().stream();
        if (t.id() != it.tableId() || !s.enabled() || s.labelMillis() != it.labelMillis()
                || it.partition() >= t.spec().partitions()) {
            throw gone(it);
        }
        checkNotTrimmed(it, horizon(t, s, s.arn(t.name())));
        // After the trim check: a reader whose records were dropped must learn that, not merely get a new iterator.
        long now = clock.millis();
        checkNotExpired(it, now);
        it = it.issuedAt(now); // the next iterator's lifetime starts now
        if (it.lsn() > kv.lastSequence()) {
            return new ShardRecords(List.of(), it.encode()); // nothing written (visibly) since
        }
        try {
            return read(t, s, it, limit);
        } catch (RuntimeException e) {
            // Retention and a flush may have trimmed the log under the reader, or the table been deleted: say which.
            RuntimeException cause;
            try {
                if (!catalog.isLive(t)) {
                    cause = gone(it);
                } else {
                    checkNotTrimmed(it, horizon(t, catalog.get(t.name()).settings().stream(), s.arn(t.name())));
                    cause = e;
                }
            } catch (RuntimeException found) {
                cause = found; // trimmed, or the stream disabled meanwhile
            }
            if (cause != e) {
                cause.addSuppressed(e);
            }
            throw cause;
        }
    }

    /**
     * Refuses an iterator handed out more than {@link dev.lacuna.Database#SHARD_ITERATOR_LIFETIME} before {@code now}
     * (or of the version without its issue time), in DynamoDB Streams' words.
     */
    private static void checkNotExpired(ShardIterator it, long now) {
        if (it.issuedMillis() == ShardIterator.UNKNOWN_ISSUE
                || now - it.issuedMillis() > dev.lacuna.Database.SHARD_ITERATOR_LIFETIME.toMillis()) {
            throw new ExpiredIteratorException("The provided iterator exceeds the maximum age allowed.");
        }
    }

    private ShardRecords read(TableSchema t, StreamState s, ShardIterator it, int limit) {
        String shard = StreamRecords.shardId(s.labelMillis(), it.partition());
        List<StreamRecord> out = new ArrayList<>();
        ShardIterator next = it;
        // Where the log record being read starts (the iterator's hint for the first): a later call starts there.
        KvLogReader.Position start = it.where();
        try (KvLogReader log = kv.logReader(it.lsn(), start)) {
            for (int scanned = 0; scanned < MAX_SCANNED && out.size() < limit; scanned++) {
                KvLogReader.Batch b = log.next();
                if (b == null) {
                    break;
                }
                KvLogReader.Position end = log.position();
                int after = b.lsn() == it.lsn() ? it.afterIndex() : -1;
                if (StreamRecords.touches(t.id(), b)) {
                    for (StreamRecord r : StreamRecords.of(t, s, kv, b)) {
                        int index = Integer.parseInt(r.sequenceNumber().substring(20));
                        if (index <= after || !r.shardId().equals(shard)) {
                            continue;
                        }
                        if (out.size() == limit) {
                            return new ShardRecords(out, next.encode()); // the rest of this log record next time
                        }
                        out.add(r);
                        next = it.at(b.lsn(), index, start);
                    }
                }
                next = it.at(b.lsn() + 1, -1, end);
                start = end;
            }
        }
        return new ShardRecords(out, next.encode());
    }

    private static ResourceNotFoundException gone(ShardIterator it) {
        return new ResourceNotFoundException("Requested resource not found: the stream of table " + it.table()
                + " that the shard iterator reads was disabled, or its table deleted");
    }
}
