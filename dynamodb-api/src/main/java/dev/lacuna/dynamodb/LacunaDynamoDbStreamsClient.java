package dev.lacuna.dynamodb;

import static dev.lacuna.dynamodb.Errors.callStreams;

import dev.lacuna.Database;
import java.util.Objects;
import software.amazon.awssdk.services.dynamodb.model.DescribeStreamRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeStreamResponse;
import software.amazon.awssdk.services.dynamodb.model.GetRecordsRequest;
import software.amazon.awssdk.services.dynamodb.model.GetRecordsResponse;
import software.amazon.awssdk.services.dynamodb.model.GetShardIteratorRequest;
import software.amazon.awssdk.services.dynamodb.model.GetShardIteratorResponse;
import software.amazon.awssdk.services.dynamodb.model.ListStreamsRequest;
import software.amazon.awssdk.services.dynamodb.model.ListStreamsResponse;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * The AWS SDK for Java v2's {@link DynamoDbStreamsClient}, in-process over a Lacuna {@link Database}: code written
 * for DynamoDB Streams (a poller of shards, the Kinesis adapter's shape) reads a table's change stream with no HTTP.
 *
 * <pre>{@code
 * DynamoDbStreamsClient streams = LacunaDynamoDbStreamsClient.create(db);
 * String arn = db.describeTable("Tickets").latestStreamArn();
 * for (Shard shard : streams.describeStream(b -> b.streamArn(arn)).streamDescription().shards()) {
 *     String it = streams.getShardIterator(b -> b.streamArn(arn).shardId(shard.shardId())
 *             .shardIteratorType(ShardIteratorType.TRIM_HORIZON)).shardIterator();
 *     GetRecordsResponse page = streams.getRecords(b -> b.shardIterator(it));
 *     // page.records(), then page.nextShardIterator()
 * }
 * }</pre>
 *
 * <p>Operations: ListStreams, DescribeStream, GetShardIterator, GetRecords ({@link Database#getRecords}). A stream
 * has one shard per hash partition of its table; shards are never split or closed while the stream is enabled, so
 * {@code EndingSequenceNumber} and {@code ParentShardId} are never set and {@code NextShardIterator} is never null.
 * Iterators are stateless and expire 15 minutes after they were handed out, by the database's clock, as DynamoDB's
 * do. Errors are the SDK's exceptions as DynamoDB Streams would cause them, their error details naming the service
 * "DynamoDbStreams" as the SDK's own client does: {@code ResourceNotFoundException} (a stream disabled, a table
 * deleted), {@code TrimmedDataAccessException} (a position past the stream's retention),
 * {@code ExpiredIteratorException} (an iterator older than 15 minutes), and a {@code DynamoDbException} whose error
 * code is {@code ValidationException} for a malformed request or iterator.
 *
 * <p>Thread-safe, as the database is. {@link #close()} does nothing to the database, which its opener closes.
 */
public final class LacunaDynamoDbStreamsClient implements DynamoDbStreamsClient {
    private final StreamsApi api;

    private LacunaDynamoDbStreamsClient(Database db) {
        this.api = new StreamsApi(db);
    }

    /** A client over {@code db}'s streams; the database stays the caller's to close. */
    public static LacunaDynamoDbStreamsClient create(Database db) {
        return new LacunaDynamoDbStreamsClient(Objects.requireNonNull(db, "db"));
    }

    @Override
    public ListStreamsResponse listStreams(ListStreamsRequest request) {
        return callStreams(() -> api.list(request));
    }

    @Override
    public DescribeStreamResponse describeStream(DescribeStreamRequest request) {
        return callStreams(() -> api.describe(request));
    }

    @Override
    public GetShardIteratorResponse getShardIterator(GetShardIteratorRequest request) {
        return callStreams(() -> api.shardIterator(request));
    }

    @Override
    public GetRecordsResponse getRecords(GetRecordsRequest request) {
        return callStreams(() -> api.records(request));
    }

    /** {@value DynamoDbStreamsClient#SERVICE_NAME}, as the SDK's own client. */
    @Override
    public String serviceName() {
        return SERVICE_NAME;
    }

    /** Does nothing: the database is the caller's to close. */
    @Override
    public void close() {
    }
}
