package dev.lacuna.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.GetRecordsResponse;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.OperationType;
import software.amazon.awssdk.services.dynamodb.model.Record;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.Shard;
import software.amazon.awssdk.services.dynamodb.model.ShardIteratorType;
import software.amazon.awssdk.services.dynamodb.model.StreamDescription;
import software.amazon.awssdk.services.dynamodb.model.StreamStatus;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * DynamoDB Streams' API through the real SDK's {@link DynamoDbStreamsClient}, run in-process
 * ({@link InProcessStreamsConformanceTest}) and over HTTP ({@link HttpStreamsConformanceTest}): a reader of every
 * shard from TRIM_HORIZON sees every change once, an item's in write order with the right event and images;
 * LATEST and AFTER_SEQUENCE_NUMBER start where they say; errors are DynamoDB's.
 */
abstract class StreamsConformanceTest {
    private static final String TABLE = "Events";

    Target target;
    DynamoDbClient dynamo;
    DynamoDbStreamsClient streams;

    abstract Target open();

    @BeforeEach
    void start() {
        target = open();
        dynamo = target.client;
        streams = target.streams;
    }

    @AfterEach
    void stop() {
        target.close();
    }

    private static AttributeValue s(String v) {
        return AttributeValue.fromS(v);
    }

    private static AttributeValue n(String v) {
        return AttributeValue.fromN(v);
    }

    /** Events: pk (S), 4 hash partitions (Lacuna's default), a NEW_AND_OLD_IMAGES stream; its ARN. */
    private String createEvents() {
        return dynamo.createTable(b -> b.tableName(TABLE)
                .attributeDefinitions(AttributeDefinition.builder().attributeName("pk")
                        .attributeType(ScalarAttributeType.S).build())
                .keySchema(KeySchemaElement.builder().attributeName("pk").keyType(KeyType.HASH).build())
                .streamSpecification(x -> x.streamEnabled(true).streamViewType(StreamViewType.NEW_AND_OLD_IMAGES)))
                .tableDescription().latestStreamArn();
    }

    private static Map<String, AttributeValue> key(String pk) {
        return Map.of("pk", s(pk));
    }

    private void put(String pk, String v) {
        dynamo.putItem(b -> b.tableName(TABLE).item(Map.of("pk", s(pk), "v", n(v))));
    }

    private List<Shard> shards(String arn) {
        return streams.describeStream(b -> b.streamArn(arn)).streamDescription().shards();
    }

    private String iterator(String arn, String shard, ShardIteratorType type, String sequenceNumber) {
        return streams.getShardIterator(b -> b.streamArn(arn).shardId(shard).shardIteratorType(type)
                .sequenceNumber(sequenceNumber)).shardIterator();
    }

    /** Every record of the shard from {@code iterator} on, {@code limit} a call, until a call returns none. */
    private List<Record> drain(String iterator, int limit) {
        List<Record> out = new ArrayList<>();
        String it = iterator;
        while (true) {
            String from = it;
            GetRecordsResponse page = streams.getRecords(b -> b.shardIterator(from).limit(limit));
            assertThat(page.nextShardIterator()).as("shards stay open").isNotNull();
            it = page.nextShardIterator();
            if (page.records().isEmpty()) {
                return out;
            }
            out.addAll(page.records());
        }
    }

    /** One expected change: the event and the images (null if none). */
    private record Change(OperationType event, String oldV, String newV) {
    }

    @Test
    void shouldDeliverEveryChangeOnceInWriteOrderFromEveryShard() {
        String arn = createEvents();
        Map<String, List<Change>> expected = new LinkedHashMap<>();
        for (int i = 0; i < 24; i++) {
            put("item" + i, "1");
            expected.computeIfAbsent("item" + i, k -> new ArrayList<>()).add(new Change(OperationType.INSERT, null, "1"));
        }
        for (int i = 0; i < 24; i += 2) {
            int item = i;
            dynamo.updateItem(b -> b.tableName(TABLE).key(key("item" + item)).updateExpression("SET v = :v")
                    .expressionAttributeValues(Map.of(":v", n("2"))));
            expected.get("item" + i).add(new Change(OperationType.MODIFY, "1", "2"));
        }
        put("item1", "1"); // as it was: DynamoDB writes no record
        for (int i = 0; i < 24; i += 3) {
            int item = i;
            dynamo.deleteItem(b -> b.tableName(TABLE).key(key("item" + item)));
            List<Change> changes = expected.get("item" + i);
            changes.add(new Change(OperationType.REMOVE, changes.get(changes.size() - 1).newV(), null));
        }
        put("item0", "3"); // again after its delete
        expected.get("item0").add(new Change(OperationType.INSERT, null, "3"));

        StreamDescription d = streams.describeStream(b -> b.streamArn(arn)).streamDescription();
        assertThat(d.streamArn()).isEqualTo(arn);
        assertThat(d.tableName()).isEqualTo(TABLE);
        assertThat(d.streamStatus()).isEqualTo(StreamStatus.ENABLED);
        assertThat(d.streamViewType()).isEqualTo(StreamViewType.NEW_AND_OLD_IMAGES);
        assertThat(d.keySchema()).containsExactly(KeySchemaElement.builder().attributeName("pk").keyType(KeyType.HASH)
                .build());
        assertThat(d.shards()).hasSize(4).extracting(Shard::shardId).doesNotHaveDuplicates();
        assertThat(d.shards()).allSatisfy(sh -> {
            assertThat(sh.sequenceNumberRange().startingSequenceNumber()).isNotNull();
            assertThat(sh.sequenceNumberRange().endingSequenceNumber()).isNull();
        });
        assertThat(streams.listStreams(b -> b.tableName(TABLE)).streams()).singleElement()
                .satisfies(st -> assertThat(st.streamArn()).isEqualTo(arn));

        Map<String, List<Change>> seen = new HashMap<>();
        Map<String, String> shardOf = new HashMap<>();
        Set<String> eventIds = new HashSet<>();
        int nonEmptyShards = 0;
        for (Shard shard : d.shards()) {
            List<Record> records = drain(iterator(arn, shard.shardId(), ShardIteratorType.TRIM_HORIZON, null), 5);
            nonEmptyShards += records.isEmpty() ? 0 : 1;
            assertThat(records).extracting(r -> r.dynamodb().sequenceNumber()).isSorted().doesNotHaveDuplicates();
            for (Record r : records) {
                assertThat(r.eventVersion()).isEqualTo("1.1");
                assertThat(r.eventSource()).isEqualTo("aws:dynamodb");
                assertThat(r.awsRegion()).isNotEmpty();
                assertThat(r.userIdentity()).isNull();
                assertThat(eventIds.add(r.eventID())).as("event ids are unique").isTrue();
                assertThat(r.dynamodb().streamViewType()).isEqualTo(StreamViewType.NEW_AND_OLD_IMAGES);
                assertThat(r.dynamodb().approximateCreationDateTime()).isNotNull();
                assertThat(r.dynamodb().sizeBytes()).isPositive();
                String pk = r.dynamodb().keys().get("pk").s();
                assertThat(r.dynamodb().keys()).isEqualTo(key(pk));
                assertThat(shardOf.putIfAbsent(pk, shard.shardId())).as("an item's records are in one shard")
                        .isIn(null, shard.shardId());
                seen.computeIfAbsent(pk, k -> new ArrayList<>()).add(new Change(r.eventName(),
                        image(r.dynamodb().oldImage(), pk), image(r.dynamodb().newImage(), pk)));
            }
        }

        assertThat(nonEmptyShards).as("24 items spread over the shards").isGreaterThan(1);
        assertThat(seen).isEqualTo(expected);
    }

    /** The {@code v} of an image of item {@code pk} (null if there is none), checking its key. */
    private static String image(Map<String, AttributeValue> image, String pk) {
        if (image == null || image.isEmpty()) {
            return null;
        }
        assertThat(image.get("pk")).isEqualTo(s(pk));
        return image.get("v").n();
    }

    @Test
    void shouldSeeOnlyLaterWritesFromLatest() {
        String arn = createEvents();
        for (int i = 0; i < 8; i++) {
            put("before" + i, "1");
        }
        Map<String, String> latest = new LinkedHashMap<>();
        for (Shard shard : shards(arn)) {
            latest.put(shard.shardId(), iterator(arn, shard.shardId(), ShardIteratorType.LATEST, null));
        }
        for (int i = 0; i < 8; i++) {
            put("after" + i, "1");
        }
        put("before0", "2");

        List<String> seen = new ArrayList<>();
        for (String it : latest.values()) {
            for (Record r : drain(it, 1000)) {
                seen.add(r.eventName() + " " + r.dynamodb().keys().get("pk").s());
            }
        }

        assertThat(seen).containsExactlyInAnyOrder("INSERT after0", "INSERT after1", "INSERT after2", "INSERT after3",
                "INSERT after4", "INSERT after5", "INSERT after6", "INSERT after7", "MODIFY before0");
    }

    @Test
    void shouldResumeAtAndAfterASequenceNumber() {
        String arn = createEvents();
        for (int v = 1; v <= 5; v++) {
            put("one", Integer.toString(v)); // one item: one shard, five records
        }
        String shard = null;
        List<Record> all = List.of();
        for (Shard s : shards(arn)) {
            List<Record> records = drain(iterator(arn, s.shardId(), ShardIteratorType.TRIM_HORIZON, null), 2);
            if (!records.isEmpty()) {
                shard = s.shardId();
                all = records;
            }
        }
        assertThat(all).extracting(r -> r.dynamodb().newImage().get("v").n()).containsExactly("1", "2", "3", "4", "5");
        String second = all.get(1).dynamodb().sequenceNumber();

        List<Record> after = drain(iterator(arn, shard, ShardIteratorType.AFTER_SEQUENCE_NUMBER, second), 1000);
        List<Record> at = drain(iterator(arn, shard, ShardIteratorType.AT_SEQUENCE_NUMBER, second), 1000);

        assertThat(after).isEqualTo(all.subList(2, 5));
        assertThat(at).isEqualTo(all.subList(1, 5));
    }

    @Test
    void shouldPageStreamsAndShards() {
        String events = createEvents();
        dynamo.createTable(b -> b.tableName("Quiet")
                .attributeDefinitions(AttributeDefinition.builder().attributeName("pk")
                        .attributeType(ScalarAttributeType.S).build())
                .keySchema(KeySchemaElement.builder().attributeName("pk").keyType(KeyType.HASH).build()));
        String other = dynamo.createTable(b -> b.tableName("Zeta")
                .attributeDefinitions(AttributeDefinition.builder().attributeName("pk")
                        .attributeType(ScalarAttributeType.S).build())
                .keySchema(KeySchemaElement.builder().attributeName("pk").keyType(KeyType.HASH).build())
                .streamSpecification(x -> x.streamEnabled(true).streamViewType(StreamViewType.KEYS_ONLY)))
                .tableDescription().latestStreamArn();

        var first = streams.listStreams(b -> b.limit(1));
        assertThat(first.streams()).extracting(st -> st.streamArn()).containsExactly(events);
        assertThat(first.lastEvaluatedStreamArn()).isEqualTo(events);
        var second = streams.listStreams(b -> b.limit(1).exclusiveStartStreamArn(events));
        assertThat(second.streams()).extracting(st -> st.streamArn()).containsExactly(other);
        assertThat(second.lastEvaluatedStreamArn()).isNull();
        assertThat(streams.listStreams(b -> b.tableName("Quiet")).streams()).isEmpty();

        StreamDescription page1 = streams.describeStream(b -> b.streamArn(events).limit(3)).streamDescription();
        assertThat(page1.shards()).hasSize(3);
        assertThat(page1.lastEvaluatedShardId()).isEqualTo(page1.shards().get(2).shardId());
        StreamDescription page2 = streams.describeStream(b -> b.streamArn(events).limit(3)
                .exclusiveStartShardId(page1.lastEvaluatedShardId())).streamDescription();
        assertThat(page2.shards()).hasSize(1);
        assertThat(page2.lastEvaluatedShardId()).isNull();
        assertThat(page2.shards().get(0).shardId()).isEqualTo(shards(events).get(3).shardId());

        String zetaShard = shards(other).get(0).shardId();
        String zetaIterator = iterator(other, zetaShard, ShardIteratorType.TRIM_HORIZON, null);
        dynamo.updateTable(b -> b.tableName("Zeta").streamSpecification(x -> x.streamEnabled(false)));
        StreamDescription disabled = streams.describeStream(b -> b.streamArn(other)).streamDescription();
        assertThat(disabled.streamStatus()).isEqualTo(StreamStatus.DISABLED);
        assertThat(disabled.shards()).isEmpty();
        assertThat(disabled.streamViewType()).as("DynamoDB still reports a disabled stream's view type")
                .isEqualTo(StreamViewType.KEYS_ONLY);
        assertThatThrownBy(() -> iterator(other, zetaShard, ShardIteratorType.LATEST, null))
                .isInstanceOf(ResourceNotFoundException.class);
        assertThatThrownBy(() -> streams.getRecords(b -> b.shardIterator(zetaIterator)))
                .isInstanceOf(ResourceNotFoundException.class);
    }

    @Test
    void shouldRefuseAnInvalidIteratorWithValidationException() {
        String arn = createEvents();
        String real = iterator(arn, shards(arn).get(0).shardId(), ShardIteratorType.TRIM_HORIZON, null);

        for (String bad : List.of("not-an-iterator", real.substring(0, real.length() - 3))) {
            assertThatThrownBy(() -> streams.getRecords(b -> b.shardIterator(bad)))
                    .isInstanceOfSatisfying(DynamoDbException.class, e -> {
                        assertThat(e.statusCode()).isEqualTo(400);
                        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException");
                        assertThat(e.awsErrorDetails().errorMessage()).isEqualTo("Invalid ShardIterator");
                    });
        }
        assertThatThrownBy(() -> streams.getRecords(b -> b.shardIterator(real).limit(1001)))
                .isInstanceOfSatisfying(DynamoDbException.class,
                        e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException"));
        assertThatThrownBy(() -> streams.getShardIterator(b -> b.streamArn(arn).shardId("shardId-nope")
                .shardIteratorType(ShardIteratorType.TRIM_HORIZON))).isInstanceOf(ResourceNotFoundException.class);
    }

    @Test
    void shouldAnswerResourceNotFoundForADeletedTablesStream() {
        String arn = createEvents();
        String shard = shards(arn).get(0).shardId();
        String it = iterator(arn, shard, ShardIteratorType.TRIM_HORIZON, null);
        dynamo.deleteTable(b -> b.tableName(TABLE));

        assertThatThrownBy(() -> streams.getRecords(b -> b.shardIterator(it)))
                .isInstanceOfSatisfying(ResourceNotFoundException.class, e -> assertThat(e.statusCode()).isEqualTo(400));
        assertThatThrownBy(() -> streams.describeStream(b -> b.streamArn(arn)))
                .isInstanceOf(ResourceNotFoundException.class);
        assertThatThrownBy(() -> iterator(arn, shard, ShardIteratorType.LATEST, null))
                .isInstanceOf(ResourceNotFoundException.class);
        assertThat(streams.listStreams(b -> { }).streams()).isEmpty();
    }
}
