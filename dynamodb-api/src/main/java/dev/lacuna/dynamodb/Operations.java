package dev.lacuna.dynamodb;

import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import software.amazon.awssdk.core.SdkPojo;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeStreamRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTimeToLiveRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetRecordsRequest;
import software.amazon.awssdk.services.dynamodb.model.GetShardIteratorRequest;
import software.amazon.awssdk.services.dynamodb.model.ListStreamsRequest;
import software.amazon.awssdk.services.dynamodb.model.ListTablesRequest;
import software.amazon.awssdk.services.dynamodb.model.ListTagsOfResourceRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.TagResourceRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.UntagResourceRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateTimeToLiveRequest;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * The operations the endpoint serves, by the name in {@code X-Amz-Target} (DynamoDB's, and DynamoDB Streams' four
 * under their own prefix): how to build each one's SDK request
 * and which method of the in-process client runs it. One line per operation; the translation lives in the client.
 */
final class Operations {
    /** The target prefix of DynamoDB's API version 2012-08-10. */
    static final String TARGET_PREFIX = "DynamoDB_20120810.";

    /** The target prefix of DynamoDB Streams' API version 2012-08-10. */
    static final String STREAMS_TARGET_PREFIX = "DynamoDBStreams_20120810.";

    /** One operation: its request's builder and the client method that answers it. */
    record Operation(Supplier<SdkPojo> builder, Call call) {
    }

    /** Runs an operation's request on the client of its service. */
    interface Call {
        SdkPojo apply(DynamoDbClient dynamo, DynamoDbStreamsClient streams, Object request);
    }

    private static final Map<String, Operation> OPERATIONS = Map.ofEntries(
            op("CreateTable", CreateTableRequest::builder, (c, r) -> c.createTable((CreateTableRequest) r)),
            op("DescribeTable", DescribeTableRequest::builder, (c, r) -> c.describeTable((DescribeTableRequest) r)),
            op("ListTables", ListTablesRequest::builder, (c, r) -> c.listTables((ListTablesRequest) r)),
            op("DeleteTable", DeleteTableRequest::builder, (c, r) -> c.deleteTable((DeleteTableRequest) r)),
            op("UpdateTable", UpdateTableRequest::builder, (c, r) -> c.updateTable((UpdateTableRequest) r)),
            op("UpdateTimeToLive", UpdateTimeToLiveRequest::builder,
                    (c, r) -> c.updateTimeToLive((UpdateTimeToLiveRequest) r)),
            op("DescribeTimeToLive", DescribeTimeToLiveRequest::builder,
                    (c, r) -> c.describeTimeToLive((DescribeTimeToLiveRequest) r)),
            op("TagResource", TagResourceRequest::builder, (c, r) -> c.tagResource((TagResourceRequest) r)),
            op("UntagResource", UntagResourceRequest::builder, (c, r) -> c.untagResource((UntagResourceRequest) r)),
            op("ListTagsOfResource", ListTagsOfResourceRequest::builder,
                    (c, r) -> c.listTagsOfResource((ListTagsOfResourceRequest) r)),
            op("GetItem", GetItemRequest::builder, (c, r) -> c.getItem((GetItemRequest) r)),
            op("PutItem", PutItemRequest::builder, (c, r) -> c.putItem((PutItemRequest) r)),
            op("UpdateItem", UpdateItemRequest::builder, (c, r) -> c.updateItem((UpdateItemRequest) r)),
            op("DeleteItem", DeleteItemRequest::builder, (c, r) -> c.deleteItem((DeleteItemRequest) r)),
            op("Query", QueryRequest::builder, (c, r) -> c.query((QueryRequest) r)),
            op("Scan", ScanRequest::builder, (c, r) -> c.scan((ScanRequest) r)),
            op("BatchGetItem", BatchGetItemRequest::builder, (c, r) -> c.batchGetItem((BatchGetItemRequest) r)),
            op("BatchWriteItem", BatchWriteItemRequest::builder, (c, r) -> c.batchWriteItem((BatchWriteItemRequest) r)),
            op("TransactWriteItems", TransactWriteItemsRequest::builder,
                    (c, r) -> c.transactWriteItems((TransactWriteItemsRequest) r)),
            op("TransactGetItems", TransactGetItemsRequest::builder,
                    (c, r) -> c.transactGetItems((TransactGetItemsRequest) r)));

    private static final Map<String, Operation> STREAMS_OPERATIONS = Map.ofEntries(
            streamsOp("ListStreams", ListStreamsRequest::builder, (c, r) -> c.listStreams((ListStreamsRequest) r)),
            streamsOp("DescribeStream", DescribeStreamRequest::builder,
                    (c, r) -> c.describeStream((DescribeStreamRequest) r)),
            streamsOp("GetShardIterator", GetShardIteratorRequest::builder,
                    (c, r) -> c.getShardIterator((GetShardIteratorRequest) r)),
            streamsOp("GetRecords", GetRecordsRequest::builder, (c, r) -> c.getRecords((GetRecordsRequest) r)));

    private Operations() {
    }

    private static Map.Entry<String, Operation> op(String name, Supplier<?> builder,
                                                   BiFunction<DynamoDbClient, Object, SdkPojo> call) {
        return Map.entry(name, new Operation(SdkJson.pojo(builder), (d, s, r) -> call.apply(d, r)));
    }

    private static Map.Entry<String, Operation> streamsOp(String name, Supplier<?> builder,
                                                          BiFunction<DynamoDbStreamsClient, Object, SdkPojo> call) {
        return Map.entry(name, new Operation(SdkJson.pojo(builder), (d, s, r) -> call.apply(s, r)));
    }

    /**
     * The operation {@code target} names, or null if there is none (or it is neither DynamoDB's target nor DynamoDB
     * Streams').
     */
    static Operation forTarget(String target) {
        if (target == null) {
            return null;
        }
        if (target.startsWith(TARGET_PREFIX)) {
            return OPERATIONS.get(target.substring(TARGET_PREFIX.length()));
        }
        if (target.startsWith(STREAMS_TARGET_PREFIX)) {
            return STREAMS_OPERATIONS.get(target.substring(STREAMS_TARGET_PREFIX.length()));
        }
        return null;
    }
}
