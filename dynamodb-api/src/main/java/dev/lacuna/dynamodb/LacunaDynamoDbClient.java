package dev.lacuna.dynamodb;

import static dev.lacuna.dynamodb.Errors.call;

import dev.lacuna.Database;
import java.util.Objects;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.CreateTableResponse;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.DeleteTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteTableResponse;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.DescribeTimeToLiveRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTimeToLiveResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ListTablesRequest;
import software.amazon.awssdk.services.dynamodb.model.ListTablesResponse;
import software.amazon.awssdk.services.dynamodb.model.ListTagsOfResourceRequest;
import software.amazon.awssdk.services.dynamodb.model.ListTagsOfResourceResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.TagResourceRequest;
import software.amazon.awssdk.services.dynamodb.model.TagResourceResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItemsResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsResponse;
import software.amazon.awssdk.services.dynamodb.model.UntagResourceRequest;
import software.amazon.awssdk.services.dynamodb.model.UntagResourceResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateTableResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateTimeToLiveRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateTimeToLiveResponse;

/**
 * The AWS SDK for Java v2's {@link DynamoDbClient}, in-process over a Lacuna {@link Database}: SDK code (the
 * Enhanced Client and the paginators included) runs against an embedded database with no HTTP, no credentials
 * and no JVM flags.
 *
 * <pre>{@code
 * try (Database db = Database.open(Path.of("data"))) {
 *     DynamoDbClient dynamo = LacunaDynamoDbClient.create(db);
 *     dynamo.putItem(b -> b.tableName("Tickets").item(Map.of("pk", AttributeValue.fromS("TICKET#1"))));
 * }
 * }</pre>
 *
 * <p>Operations: CreateTable (with global and local indexes), DescribeTable, ListTables, DeleteTable, UpdateTable
 * (adding and dropping global indexes), PutItem, GetItem, UpdateItem, DeleteItem, Query, Scan, BatchGetItem,
 * BatchWriteItem, TransactWriteItems, TransactGetItems, UpdateTimeToLive, DescribeTimeToLive, TagResource,
 * UntagResource and ListTagsOfResource, with the legacy parameters ({@code Expected}, {@code KeyConditions}, ...).
 * The SDK's other operations throw {@link UnsupportedOperationException}, as its interface's defaults do. A table's
 * change stream is read with {@link LacunaDynamoDbStreamsClient}, the SDK's {@code DynamoDbStreamsClient}.
 *
 * <p>Errors are the SDK's exceptions as DynamoDB's service would have caused them: {@code ConditionalCheckFailedException}
 * (with the item when {@code ReturnValuesOnConditionCheckFailure=ALL_OLD}), {@code TransactionCanceledException} with
 * one reason per item, {@code ResourceNotFoundException}, {@code ResourceInUseException}, and for an invalid request
 * a {@code DynamoDbException} whose {@code awsErrorDetails().errorCode()} is {@code ValidationException}. A storage
 * failure is an {@code InternalServerErrorException}. Nothing is written by a request that fails.
 *
 * <p>Thread-safe, as the database is. {@link #close()} does nothing to the database, which its opener closes.
 */
public final class LacunaDynamoDbClient implements DynamoDbClient {
    private final Tables tables;
    private final Items items;
    private final Reads reads;
    private final Batches batches;

    private LacunaDynamoDbClient(Database db) {
        this.tables = new Tables(db);
        this.items = new Items(db, tables);
        this.reads = new Reads(db);
        this.batches = new Batches(db, tables);
    }

    /** A client over {@code db}; the database stays the caller's to close. */
    public static LacunaDynamoDbClient create(Database db) {
        return new LacunaDynamoDbClient(Objects.requireNonNull(db, "db"));
    }

    @Override
    public CreateTableResponse createTable(CreateTableRequest request) {
        return call(() -> tables.create(request));
    }

    @Override
    public DescribeTableResponse describeTable(DescribeTableRequest request) {
        return call(() -> tables.describe(request));
    }

    @Override
    public ListTablesResponse listTables(ListTablesRequest request) {
        return call(() -> tables.list(request));
    }

    @Override
    public DeleteTableResponse deleteTable(DeleteTableRequest request) {
        return call(() -> tables.delete(request));
    }

    @Override
    public UpdateTableResponse updateTable(UpdateTableRequest request) {
        return call(() -> tables.update(request));
    }

    @Override
    public UpdateTimeToLiveResponse updateTimeToLive(UpdateTimeToLiveRequest request) {
        return call(() -> tables.updateTimeToLive(request));
    }

    @Override
    public DescribeTimeToLiveResponse describeTimeToLive(DescribeTimeToLiveRequest request) {
        return call(() -> tables.describeTimeToLive(request));
    }

    @Override
    public TagResourceResponse tagResource(TagResourceRequest request) {
        return call(() -> tables.tag(request));
    }

    @Override
    public UntagResourceResponse untagResource(UntagResourceRequest request) {
        return call(() -> tables.untag(request));
    }

    @Override
    public ListTagsOfResourceResponse listTagsOfResource(ListTagsOfResourceRequest request) {
        return call(() -> tables.listTags(request));
    }

    @Override
    public GetItemResponse getItem(GetItemRequest request) {
        return call(() -> items.get(request));
    }

    @Override
    public PutItemResponse putItem(PutItemRequest request) {
        return call(() -> items.put(request));
    }

    @Override
    public UpdateItemResponse updateItem(UpdateItemRequest request) {
        return call(() -> items.update(request));
    }

    @Override
    public DeleteItemResponse deleteItem(DeleteItemRequest request) {
        return call(() -> items.delete(request));
    }

    @Override
    public QueryResponse query(QueryRequest request) {
        return call(() -> reads.query(request));
    }

    @Override
    public ScanResponse scan(ScanRequest request) {
        return call(() -> reads.scan(request));
    }

    @Override
    public BatchGetItemResponse batchGetItem(BatchGetItemRequest request) {
        return call(() -> batches.batchGet(request));
    }

    @Override
    public BatchWriteItemResponse batchWriteItem(BatchWriteItemRequest request) {
        return call(() -> batches.batchWrite(request));
    }

    @Override
    public TransactWriteItemsResponse transactWriteItems(TransactWriteItemsRequest request) {
        return call(() -> batches.transactWrite(request));
    }

    @Override
    public TransactGetItemsResponse transactGetItems(TransactGetItemsRequest request) {
        return call(() -> batches.transactGet(request));
    }

    /** {@value DynamoDbClient#SERVICE_NAME}, as the SDK's own client. */
    @Override
    public String serviceName() {
        return SERVICE_NAME;
    }

    /** Does nothing: the database is the caller's to close. */
    @Override
    public void close() {
    }
}
