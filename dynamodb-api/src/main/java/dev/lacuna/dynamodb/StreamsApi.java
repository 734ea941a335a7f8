package dev.lacuna.dynamodb;

import dev.lacuna.Database;
import dev.lacuna.ShardRecords;
import dev.lacuna.StreamDescription;
import java.nio.charset.StandardCharsets;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import software.amazon.awssdk.services.dynamodb.model.DescribeStreamRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeStreamResponse;
import software.amazon.awssdk.services.dynamodb.model.GetRecordsRequest;
import software.amazon.awssdk.services.dynamodb.model.GetRecordsResponse;
import software.amazon.awssdk.services.dynamodb.model.GetShardIteratorRequest;
import software.amazon.awssdk.services.dynamodb.model.GetShardIteratorResponse;
import software.amazon.awssdk.services.dynamodb.model.Identity;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ListStreamsRequest;
import software.amazon.awssdk.services.dynamodb.model.ListStreamsResponse;
import software.amazon.awssdk.services.dynamodb.model.Record;
import software.amazon.awssdk.services.dynamodb.model.SequenceNumberRange;
import software.amazon.awssdk.services.dynamodb.model.Shard;
import software.amazon.awssdk.services.dynamodb.model.ShardIteratorType;
import software.amazon.awssdk.services.dynamodb.model.Stream;
import software.amazon.awssdk.services.dynamodb.model.StreamRecord;

/**
 * The DynamoDB Streams operations (ListStreams, DescribeStream, GetShardIterator, GetRecords) as the SDK's requests
 * and responses over the database's stateless shard reads ({@link Database#getRecords}). A record is DynamoDB's:
 * {@code eventVersion} 1.1, {@code eventSource} aws:dynamodb, an {@code eventID} derived from the stream and the
 * sequence number (the same record read twice has the same id), {@code ApproximateCreationDateTime} rounded down
 * to the second, and for a time-to-live deletion the service's {@code userIdentity}.
 */
final class StreamsApi {
    /** The region records name: the one in the ARNs of the DynamoDB API's tables ({@link Tables#ARN_PREFIX}). */
    static final String REGION = "lacuna";
    private static final int MAX_LIST = 100;
    private static final int MAX_RECORDS = 1000;

    private final Database db;

    StreamsApi(Database db) {
        this.db = db;
    }

    ListStreamsResponse list(ListStreamsRequest r) {
        int limit = limit(r.limit(), MAX_LIST, "limit");
        List<StreamDescription> all = db.listStreams(r.tableName());
        int from = 0;
        if (r.exclusiveStartStreamArn() != null) {
            while (from < all.size() && !arn(all.get(from++)).equals(r.exclusiveStartStreamArn())) {
                // skip through the one the last page ended with
            }
        }
        List<Stream> page = new ArrayList<>();
        for (StreamDescription d : all.subList(from, Math.min(all.size(), from + limit))) {
            page.add(Stream.builder().streamArn(arn(d)).tableName(d.tableName()).streamLabel(d.streamLabel())
                    .build());
        }
        var b = ListStreamsResponse.builder().streams(page);
        if (from + limit < all.size()) {
            b.lastEvaluatedStreamArn(page.get(page.size() - 1).streamArn());
        }
        return b.build();
    }

    DescribeStreamResponse describe(DescribeStreamRequest r) {
        int limit = limit(r.limit(), MAX_LIST, "limit");
        StreamDescription d = db.describeStream(Errors.required(r.streamArn(), "streamArn"));
        List<StreamDescription.Shard> all = d.shards();
        int from = 0;
        if (r.exclusiveStartShardId() != null) {
            while (from < all.size() && !all.get(from++).shardId().equals(r.exclusiveStartShardId())) {
                // skip through the one the last page ended with
            }
        }
        List<Shard> shards = new ArrayList<>();
        for (StreamDescription.Shard s : all.subList(from, Math.min(all.size(), from + limit))) {
            shards.add(Shard.builder().shardId(s.shardId()).sequenceNumberRange(
                    SequenceNumberRange.builder().startingSequenceNumber(s.startingSequenceNumber()).build()).build());
        }
        List<KeySchemaElement> keys = new ArrayList<>();
        keys.add(KeySchemaElement.builder().attributeName(d.partitionKey().name()).keyType(KeyType.HASH).build());
        if (d.sortKey() != null) {
            keys.add(KeySchemaElement.builder().attributeName(d.sortKey().name()).keyType(KeyType.RANGE).build());
        }
        var b = software.amazon.awssdk.services.dynamodb.model.StreamDescription.builder().streamArn(arn(d))
                .streamLabel(d.streamLabel()).streamStatus(d.status()).tableName(d.tableName())
                .creationRequestDateTime(d.createdAt()).keySchema(keys).shards(shards);
        if (d.viewType() != null) {
            b.streamViewType(d.viewType().name());
        }
        if (from + limit < all.size()) {
            b.lastEvaluatedShardId(shards.get(shards.size() - 1).shardId());
        }
        return DescribeStreamResponse.builder().streamDescription(b.build()).build();
    }

    GetShardIteratorResponse shardIterator(GetShardIteratorRequest r) {
        String arn = Errors.required(r.streamArn(), "streamArn");
        String shard = Errors.required(r.shardId(), "shardId");
        ShardIteratorType type = Errors.required(Errors.enumValue(r.shardIteratorTypeAsString(), "shardIteratorType",
                ShardIteratorType.class), "shardIteratorType");
        String it = db.getShardIterator(arn, shard, dev.lacuna.ShardIteratorType.valueOf(type.name()),
                r.sequenceNumber());
        return GetShardIteratorResponse.builder().shardIterator(it).build();
    }

    GetRecordsResponse records(GetRecordsRequest r) {
        String iterator = Errors.required(r.shardIterator(), "shardIterator");
        int limit = limit(r.limit(), MAX_RECORDS, "limit");
        ShardRecords page = db.getRecords(iterator, limit);
        List<Record> records = new ArrayList<>(page.records().size());
        for (dev.lacuna.StreamRecord s : page.records()) {
            records.add(record(s));
        }
        return GetRecordsResponse.builder().records(records).nextShardIterator(page.nextShardIterator()).build();
    }

    /** The stream's ARN as the DynamoDB API writes it (DescribeTable's {@code LatestStreamArn}). */
    private static String arn(StreamDescription d) {
        return Tables.ARN_PREFIX + d.tableName() + "/stream/" + d.streamLabel();
    }

    /** DynamoDB's stream {@code Record} for Lacuna's. */
    static Record record(dev.lacuna.StreamRecord s) {
        var d = StreamRecord.builder().approximateCreationDateTime(
                s.approximateCreationDateTime().truncatedTo(ChronoUnit.SECONDS)).keys(Values.sdk(dev.lacuna.Item.of(
                s.keys()))).sequenceNumber(s.sequenceNumber()).sizeBytes(s.sizeBytes())
                .streamViewType(s.streamViewType().name());
        if (s.newImage() != null) {
            d.newImage(Values.sdk(s.newImage()));
        }
        if (s.oldImage() != null) {
            d.oldImage(Values.sdk(s.oldImage()));
        }
        String id = UUID.nameUUIDFromBytes((s.shardId() + "/" + s.sequenceNumber()).getBytes(StandardCharsets.UTF_8))
                .toString().replace("-", "");
        var b = Record.builder().eventID(id).eventName(s.eventName().name()).eventVersion("1.1")
                .eventSource("aws:dynamodb").awsRegion(REGION).dynamodb(d.build());
        if (s.userIdentity() != null) {
            b.userIdentity(Identity.builder().principalId(s.userIdentity().principalId())
                    .type(s.userIdentity().type()).build());
        }
        return b.build();
    }

    /** {@code requested} (or {@code max} if absent), checked as DynamoDB's model bounds it. */
    private static int limit(Integer requested, int max, String member) {
        if (requested == null) {
            return max;
        }
        if (requested < 1) {
            throw Errors.constraint(requested, member, "Member must have value greater than or equal to 1");
        }
        if (requested > max) {
            throw Errors.constraint(requested, member, "Member must have value less than or equal to " + max);
        }
        return requested;
    }
}
