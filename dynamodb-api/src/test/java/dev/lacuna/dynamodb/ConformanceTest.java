package dev.lacuna.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.Query;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.assertj.core.api.ThrowableAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClient;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.enhanced.dynamodb.TableSchema;
import software.amazon.awssdk.enhanced.dynamodb.model.CreateTableEnhancedRequest;
import software.amazon.awssdk.enhanced.dynamodb.model.EnhancedGlobalSecondaryIndex;
import software.amazon.awssdk.enhanced.dynamodb.model.QueryConditional;
import software.amazon.awssdk.enhanced.dynamodb.model.ReadBatch;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.AttributeValueUpdate;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.ComparisonOperator;
import software.amazon.awssdk.services.dynamodb.model.Condition;
import software.amazon.awssdk.services.dynamodb.model.ConditionCheck;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.CreateTableResponse;
import software.amazon.awssdk.services.dynamodb.model.Delete;
import software.amazon.awssdk.services.dynamodb.model.DeleteRequest;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ExpectedAttributeValue;
import software.amazon.awssdk.services.dynamodb.model.Get;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndexUpdate;
import software.amazon.awssdk.services.dynamodb.model.IndexStatus;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.LimitExceededException;
import software.amazon.awssdk.services.dynamodb.model.LocalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.Projection;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ReturnItemCollectionMetrics;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.StreamSpecification;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.dynamodb.model.Select;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.dynamodb.model.Tag;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.Update;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * DynamoDB's documented behaviour, through the real AWS SDK for Java v2, against Lacuna: every test runs twice, once
 * on the in-process client ({@link InProcessConformanceTest}) and once over HTTP ({@link HttpConformanceTest}), and
 * must see the same responses and the same errors (type, code, message) both ways.
 */
abstract class ConformanceTest {
    static final String TABLE = "Tickets";

    Target target;
    DynamoDbClient dynamo;

    abstract Target open();

    @BeforeEach
    void start() {
        target = open();
        dynamo = target.client;
    }

    @AfterEach
    void stop() {
        target.close();
    }

    static AttributeValue s(String v) {
        return AttributeValue.fromS(v);
    }

    static AttributeValue n(String v) {
        return AttributeValue.fromN(v);
    }

    /** Tickets: pk, sk; GSI1 (GSI1PK, GSI1SK), sparse; LSI ByPriority (pk, priority). */
    TableDescription createTickets() {
        CreateTableResponse r = dynamo.createTable(b -> b.tableName(TABLE)
                .attributeDefinitions(def("pk", ScalarAttributeType.S), def("sk", ScalarAttributeType.S),
                        def("GSI1PK", ScalarAttributeType.S), def("GSI1SK", ScalarAttributeType.S),
                        def("priority", ScalarAttributeType.N))
                .keySchema(key("pk", KeyType.HASH), key("sk", KeyType.RANGE))
                .globalSecondaryIndexes(GlobalSecondaryIndex.builder().indexName("GSI1")
                        .keySchema(key("GSI1PK", KeyType.HASH), key("GSI1SK", KeyType.RANGE))
                        .projection(Projection.builder().projectionType(ProjectionType.ALL).build()).build())
                .localSecondaryIndexes(LocalSecondaryIndex.builder().indexName("ByPriority")
                        .keySchema(key("pk", KeyType.HASH), key("priority", KeyType.RANGE))
                        .projection(Projection.builder().projectionType(ProjectionType.KEYS_ONLY).build()).build())
                .billingMode(BillingMode.PAY_PER_REQUEST));
        return r.tableDescription();
    }

    static AttributeDefinition def(String name, ScalarAttributeType type) {
        return AttributeDefinition.builder().attributeName(name).attributeType(type).build();
    }

    static KeySchemaElement key(String name, KeyType type) {
        return KeySchemaElement.builder().attributeName(name).keyType(type).build();
    }

    static Map<String, AttributeValue> ticket(String pk, String sk, Object... more) {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put("pk", s(pk));
        item.put("sk", s(sk));
        for (int i = 0; i < more.length; i += 2) {
            Object v = more[i + 1];
            item.put((String) more[i], v instanceof AttributeValue a ? a : v instanceof Number ? n(v.toString())
                    : s(v.toString()));
        }
        return item;
    }

    static Map<String, AttributeValue> keyOf(String pk, String sk) {
        return Map.of("pk", s(pk), "sk", s(sk));
    }

    /** Waits (at most 10 s) until the global index has applied every write acknowledged so far. */
    void awaitGsi() {
        target.db.query(TABLE, new Query("GSI1PK = :p").index("GSI1").value(":p", dev.lacuna.AttributeValue.s("-"))
                .readYourWrites(Duration.ofSeconds(10)));
    }

    /** Polls {@code condition} until it holds, for at most 30 s (a state change the test can only observe). */
    static void awaitCondition(java.util.function.BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waited 30 s until " + what).isLessThan(deadline);
            java.util.concurrent.locks.LockSupport.parkNanos(5_000_000); // a polling interval; the condition decides
        }
    }

    /** Asserts that {@code call} fails with a DynamoDbException of this error code and message. */
    static void assertDynamoError(ThrowableAssert.ThrowingCallable call, Class<? extends DynamoDbException> type,
                                  String code, String message) {
        assertThatThrownBy(call).isInstanceOfSatisfying(type, e -> {
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo(code);
            assertThat(e.awsErrorDetails().errorMessage()).isEqualTo(message);
            assertThat(e.statusCode()).isEqualTo(400);
        });
    }

    static void assertValidation(ThrowableAssert.ThrowingCallable call, Consumer<String> message) {
        assertThatThrownBy(call).isInstanceOfSatisfying(DynamoDbException.class, e -> {
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException");
            assertThat(e.statusCode()).isEqualTo(400);
            message.accept(e.awsErrorDetails().errorMessage());
        });
    }

    @Test
    void shouldCreateDescribeListAndDeleteTablesAsDynamoDbDescribesThem() {
        TableDescription created = createTickets();
        assertThat(created.tableName()).isEqualTo(TABLE);
        assertThat(created.tableStatus()).isEqualTo(TableStatus.ACTIVE);
        assertThat(created.tableArn()).endsWith(":table/" + TABLE);
        assertThat(created.keySchema()).containsExactly(key("pk", KeyType.HASH), key("sk", KeyType.RANGE));
        assertThat(created.attributeDefinitions()).containsExactlyInAnyOrder(def("pk", ScalarAttributeType.S),
                def("sk", ScalarAttributeType.S), def("GSI1PK", ScalarAttributeType.S),
                def("GSI1SK", ScalarAttributeType.S), def("priority", ScalarAttributeType.N));
        assertThat(created.globalSecondaryIndexes()).singleElement().satisfies(g -> {
            assertThat(g.indexName()).isEqualTo("GSI1");
            assertThat(g.indexStatus()).isEqualTo(IndexStatus.ACTIVE);
            assertThat(g.projection().projectionType()).isEqualTo(ProjectionType.ALL);
        });
        assertThat(created.localSecondaryIndexes()).singleElement().satisfies(l -> {
            assertThat(l.indexName()).isEqualTo("ByPriority");
            assertThat(l.keySchema()).containsExactly(key("pk", KeyType.HASH), key("priority", KeyType.RANGE));
            assertThat(l.projection().projectionType()).isEqualTo(ProjectionType.KEYS_ONLY);
        });
        assertThat(created.creationDateTime()).isNotNull();

        TableDescription described = dynamo.describeTable(b -> b.tableName(TABLE)).table();
        assertThat(described.keySchema()).isEqualTo(created.keySchema());
        assertThat(described.tableId()).isEqualTo(created.tableId());
        assertThat(dynamo.listTables().tableNames()).containsExactly(TABLE);

        assertDynamoError(() -> createTickets(), ResourceInUseException.class, "ResourceInUseException",
                "Table already exists: " + TABLE);
        assertThat(dynamo.deleteTable(b -> b.tableName(TABLE)).tableDescription().tableStatus())
                .isEqualTo(TableStatus.DELETING);
        assertDynamoError(() -> dynamo.describeTable(b -> b.tableName(TABLE)), ResourceNotFoundException.class,
                "ResourceNotFoundException", "Requested resource not found: Table: " + TABLE + " not found");
        assertThat(dynamo.listTables().tableNames()).isEmpty();
    }

    @Test
    void shouldPageListTablesWithLimitAndLastEvaluatedTableName() {
        for (String name : List.of("Alpha", "Beta", "Gamma")) {
            dynamo.createTable(b -> b.tableName(name).attributeDefinitions(def("id", ScalarAttributeType.S))
                    .keySchema(key("id", KeyType.HASH)));
        }
        var first = dynamo.listTables(b -> b.limit(2));
        assertThat(first.tableNames()).containsExactly("Alpha", "Beta");
        assertThat(first.lastEvaluatedTableName()).isEqualTo("Beta");
        var second = dynamo.listTables(b -> b.limit(2).exclusiveStartTableName("Beta"));
        assertThat(second.tableNames()).containsExactly("Gamma");
        assertThat(second.lastEvaluatedTableName()).isNull();
        List<String> all = new ArrayList<>();
        dynamo.listTablesPaginator(b -> b.limit(1)).tableNames().forEach(all::add);
        assertThat(all).containsExactly("Alpha", "Beta", "Gamma");
    }

    @Test
    void shouldRefuseTableDefinitionsDynamoDbRefuses() {
        assertValidation(() -> dynamo.createTable(b -> b.tableName("T1")
                        .attributeDefinitions(def("id", ScalarAttributeType.S), def("extra", ScalarAttributeType.S))
                        .keySchema(key("id", KeyType.HASH))),
                m -> assertThat(m).startsWith("One or more parameter values were invalid: Some AttributeDefinitions"
                        + " are not used."));
        assertValidation(() -> dynamo.createTable(b -> b.tableName("T1")
                        .attributeDefinitions(def("id", ScalarAttributeType.S)).keySchema(key("other", KeyType.HASH))),
                m -> assertThat(m).startsWith("One or more parameter values were invalid: Some index key attributes"
                        + " are not defined in AttributeDefinitions."));
        assertThat(dynamo.listTables().tableNames()).isEmpty();
    }

    @Test
    void shouldRoundTripEveryAttributeType() {
        createTickets();
        Map<String, AttributeValue> item = ticket("T#1", "META",
                "s", s("text"), "n", n("-12.50"), "b", AttributeValue.fromB(SdkBytes.fromUtf8String("bin")),
                "bool", AttributeValue.fromBool(true), "nul", AttributeValue.fromNul(true),
                "l", AttributeValue.fromL(List.of(s("a"), n("1"))),
                "m", AttributeValue.fromM(Map.of("inner", s("x"))),
                "ss", AttributeValue.fromSs(List.of("a", "b")), "ns", AttributeValue.fromNs(List.of("1", "2.5")),
                "bs", AttributeValue.fromBs(List.of(SdkBytes.fromUtf8String("x"), SdkBytes.fromUtf8String("y"))),
                "empty", s(""));
        dynamo.putItem(b -> b.tableName(TABLE).item(item));
        Map<String, AttributeValue> read = dynamo.getItem(b -> b.tableName(TABLE).key(keyOf("T#1", "META"))).item();
        Map<String, AttributeValue> expected = new HashMap<>(item);
        expected.put("n", n("-12.5")); // DynamoDB normalises numbers
        assertThat(read).isEqualTo(expected);
        assertThat(dynamo.getItem(b -> b.tableName(TABLE).key(keyOf("T#9", "META"))).hasItem()).isFalse();
    }

    @Test
    void shouldUpdateWithEveryClauseAndReturnWhatWasAsked() {
        createTickets();
        dynamo.putItem(b -> b.tableName(TABLE).item(ticket("T#1", "META", "views", 1, "tags",
                AttributeValue.fromSs(List.of("a", "b")), "log", AttributeValue.fromL(List.of(s("opened"))),
                "obsolete_note", "x")));
        var updated = dynamo.updateItem(b -> b.tableName(TABLE).key(keyOf("T#1", "META"))
                .updateExpression("SET #s = :s, #log = list_append(#log, :more), #ow = if_not_exists(#ow, :o)"
                        + " REMOVE obsolete_note ADD #views :one DELETE tags :a")
                .expressionAttributeNames(Map.of("#s", "status", "#log", "log", "#views", "views", "#ow", "owner"))
                .expressionAttributeValues(Map.of(":s", s("OPEN"), ":more", AttributeValue.fromL(List.of(s("assigned"))),
                        ":o", s("ann"), ":one", n("1"), ":a", AttributeValue.fromSs(List.of("a"))))
                .returnValues(ReturnValue.UPDATED_NEW));
        assertThat(updated.attributes()).containsEntry("status", s("OPEN")).containsEntry("views", n("2"))
                .containsEntry("owner", s("ann")).containsEntry("tags", AttributeValue.fromSs(List.of("b")))
                .containsEntry("log", AttributeValue.fromL(List.of(s("opened"), s("assigned"))))
                .doesNotContainKey("pk").doesNotContainKey("obsolete_note");

        var before = dynamo.updateItem(b -> b.tableName(TABLE).key(keyOf("T#1", "META"))
                .updateExpression("SET #v = #v + :n").expressionAttributeNames(Map.of("#v", "views"))
                .expressionAttributeValues(Map.of(":n", n("10")))
                .returnValues(ReturnValue.ALL_OLD));
        assertThat(before.attributes()).containsEntry("views", n("2")).containsEntry("pk", s("T#1"));

        var created = dynamo.updateItem(b -> b.tableName(TABLE).key(keyOf("T#2", "META"))
                .updateExpression("SET subject = :s").expressionAttributeValues(Map.of(":s", s("new")))
                .returnValues(ReturnValue.ALL_NEW));
        assertThat(created.attributes()).isEqualTo(ticket("T#2", "META", "subject", "new"));

        var deleted = dynamo.deleteItem(b -> b.tableName(TABLE).key(keyOf("T#2", "META"))
                .returnValues(ReturnValue.ALL_OLD));
        assertThat(deleted.attributes()).isEqualTo(ticket("T#2", "META", "subject", "new"));
        assertThat(dynamo.deleteItem(b -> b.tableName(TABLE).key(keyOf("T#2", "META"))
                .returnValues(ReturnValue.ALL_OLD)).hasAttributes()).isFalse();
    }

    @Test
    void shouldFailConditionsAndReturnTheItemOnlyWhenAsked() {
        createTickets();
        Map<String, AttributeValue> item = ticket("T#1", "META", "status", "OPEN");
        dynamo.putItem(b -> b.tableName(TABLE).item(item).conditionExpression("attribute_not_exists(pk)"));
        assertThatThrownBy(() -> dynamo.putItem(b -> b.tableName(TABLE).item(ticket("T#1", "META"))
                .conditionExpression("attribute_not_exists(pk)")
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)))
                .isInstanceOfSatisfying(ConditionalCheckFailedException.class, e -> {
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ConditionalCheckFailedException");
                    assertThat(e.awsErrorDetails().errorMessage()).isEqualTo("The conditional request failed");
                    assertThat(e.statusCode()).isEqualTo(400);
                    assertThat(e.item()).isEqualTo(item);
                });
        assertThatThrownBy(() -> dynamo.deleteItem(b -> b.tableName(TABLE).key(keyOf("T#1", "META"))
                .conditionExpression("#s = :closed").expressionAttributeNames(Map.of("#s", "status"))
                .expressionAttributeValues(Map.of(":closed", s("CLOSED")))))
                .isInstanceOfSatisfying(ConditionalCheckFailedException.class, e -> assertThat(e.hasItem()).isFalse());
        assertThat(dynamo.getItem(b -> b.tableName(TABLE).key(keyOf("T#1", "META"))).item()).isEqualTo(item);
    }

    @Test
    void shouldEvaluateEveryConditionFunctionAndOperator() {
        createTickets();
        dynamo.putItem(b -> b.tableName(TABLE).item(ticket("T#1", "META", "status", "OPEN", "priority", 2,
                "subject", "Printer on fire", "tags", AttributeValue.fromSs(List.of("hw", "urgent")),
                "doc", AttributeValue.fromM(Map.of("line_list", AttributeValue.fromL(List.of(s("a"), s("b"))))))));
        List<String> holds = List.of(
                "#s = :open", "#s <> :closed", "priority < :three", "priority <= :two", "priority > :one",
                "priority >= :two", "priority BETWEEN :one AND :three", "#s IN (:closed, :open)",
                "#s = :open AND priority = :two", "#s = :closed OR priority = :two", "NOT #s = :closed",
                "(#s = :closed OR #s = :open) AND NOT attribute_exists(absent_attr)", "attribute_exists(subject)",
                "attribute_not_exists(assignee)", "attribute_type(tags, :ssType)", "begins_with(subject, :printer)",
                "contains(tags, :hw)", "contains(subject, :fire)", "size(subject) = :fifteen",
                "size(doc.line_list) = :two", "doc.line_list[1] = :b");
        Map<String, AttributeValue> values = Map.ofEntries(Map.entry(":open", s("OPEN")),
                Map.entry(":closed", s("CLOSED")),
                Map.entry(":one", n("1")),
                Map.entry(":two", n("2")),
                Map.entry(":three", n("3")),
                Map.entry(":ssType", s("SS")),
                Map.entry(":printer", s("Printer")),
                Map.entry(":hw", s("hw")),
                Map.entry(":fire", s("fire")),
                Map.entry(":fifteen", n("15")),
                Map.entry(":b", s("b")));
        for (String condition : holds) {
            Map<String, AttributeValue> used = new HashMap<>();
            values.forEach((k, v) -> {
                if (condition.contains(k + ")") || condition.contains(k + ",") || condition.contains(k + " ")
                        || condition.endsWith(k)) {
                    used.put(k, v);
                }
            });
            Map<String, String> names = condition.contains("#s") ? Map.of("#s", "status") : Map.of();
            dynamo.updateItem(b -> b.tableName(TABLE).key(keyOf("T#1", "META")).conditionExpression(condition)
                    .updateExpression("SET checked = :open").expressionAttributeNames(names.isEmpty() ? null : names)
                    .expressionAttributeValues(withOpen(used)));
            var scanned = dynamo.scan(b -> b.tableName(TABLE).filterExpression(condition)
                    .expressionAttributeNames(names.isEmpty() ? null : names)
                    .expressionAttributeValues(used.isEmpty() ? null : used));
            assertThat(scanned.count()).as(condition).isEqualTo(1);
        }
        assertThatThrownBy(() -> dynamo.updateItem(b -> b.tableName(TABLE).key(keyOf("T#1", "META"))
                .conditionExpression("priority > :three").updateExpression("SET checked = :three")
                .expressionAttributeValues(Map.of(":three", n("3")))))
                .isInstanceOf(ConditionalCheckFailedException.class);
    }

    private static Map<String, AttributeValue> withOpen(Map<String, AttributeValue> used) {
        Map<String, AttributeValue> m = new HashMap<>(used);
        m.put(":open", s("OPEN"));
        return m;
    }

    @Test
    void shouldProjectNestedPaths() {
        createTickets();
        dynamo.putItem(b -> b.tableName(TABLE).item(ticket("T#1", "META", "subject", "s",
                "doc", AttributeValue.fromM(Map.of("a", s("x"), "lines", AttributeValue.fromL(List.of(s("l0"), s("l1"))))))));
        var got = dynamo.getItem(b -> b.tableName(TABLE).key(keyOf("T#1", "META"))
                .projectionExpression("#d.#l[1], subject").expressionAttributeNames(Map.of("#d", "doc", "#l", "lines")));
        assertThat(got.item()).isEqualTo(Map.of("subject", s("s"),
                "doc", AttributeValue.fromM(Map.of("lines", AttributeValue.fromL(List.of(s("l1")))))));
    }

    @Test
    void shouldQueryTheTableAndBothIndexesWithThePaginators() {
        createTickets();
        for (int i = 1; i <= 7; i++) {
            int n = i;
            dynamo.putItem(b -> b.tableName(TABLE).item(ticket("CUST#1", "ORDER#" + n, "priority", 10 - n,
                    "GSI1PK", n % 2 == 0 ? "QUEUE#open" : "QUEUE#closed", "GSI1SK", "2024-01-0" + n)));
        }
        dynamo.putItem(b -> b.tableName(TABLE).item(ticket("CUST#2", "ORDER#1")));

        List<Map<String, AttributeValue>> all = new ArrayList<>();
        dynamo.queryPaginator(b -> b.tableName(TABLE).keyConditionExpression("pk = :p")
                .expressionAttributeValues(Map.of(":p", s("CUST#1"))).limit(2)).items().forEach(all::add);
        assertThat(all).extracting(m -> m.get("sk").s()).containsExactly("ORDER#1", "ORDER#2", "ORDER#3", "ORDER#4",
                "ORDER#5", "ORDER#6", "ORDER#7");
        assertThat(dynamo.queryPaginator(b -> b.tableName(TABLE).keyConditionExpression("pk = :p")
                .expressionAttributeValues(Map.of(":p", s("CUST#1"))).limit(3)).stream().count()).isEqualTo(3);

        QueryResponse range = dynamo.query(b -> b.tableName(TABLE)
                .keyConditionExpression("pk = :p AND sk BETWEEN :a AND :b")
                .expressionAttributeValues(Map.of(":p", s("CUST#1"), ":a", s("ORDER#2"), ":b", s("ORDER#4")))
                .scanIndexForward(false));
        assertThat(range.items()).extracting(m -> m.get("sk").s()).containsExactly("ORDER#4", "ORDER#3", "ORDER#2");
        assertThat(range.count()).isEqualTo(3);
        assertThat(range.scannedCount()).isEqualTo(3);
        assertThat(range.hasLastEvaluatedKey()).isFalse();

        QueryResponse first = dynamo.query(b -> b.tableName(TABLE).keyConditionExpression("pk = :p AND begins_with(sk, :o)")
                .expressionAttributeValues(Map.of(":p", s("CUST#1"), ":o", s("ORDER#"))).limit(2));
        assertThat(first.lastEvaluatedKey()).isEqualTo(keyOf("CUST#1", "ORDER#2"));

        QueryResponse counted = dynamo.query(b -> b.tableName(TABLE).keyConditionExpression("pk = :p")
                .filterExpression("priority > :five").expressionAttributeValues(Map.of(":p", s("CUST#1"), ":five", n("5")))
                .select(Select.COUNT));
        assertThat(counted.count()).isEqualTo(4);
        assertThat(counted.scannedCount()).isEqualTo(7);
        assertThat(counted.hasItems()).isFalse();

        QueryResponse byPriority = dynamo.query(b -> b.tableName(TABLE).indexName("ByPriority")
                .keyConditionExpression("pk = :p AND priority <= :five")
                .expressionAttributeValues(Map.of(":p", s("CUST#1"), ":five", n("5"))));
        assertThat(byPriority.items()).extracting(m -> m.get("sk").s())
                .containsExactly("ORDER#7", "ORDER#6", "ORDER#5");
        assertThat(byPriority.items().get(0)).containsOnlyKeys("pk", "sk", "priority");

        awaitGsi();
        List<String> open = new ArrayList<>();
        dynamo.queryPaginator(b -> b.tableName(TABLE).indexName("GSI1").keyConditionExpression("GSI1PK = :q")
                .expressionAttributeValues(Map.of(":q", s("QUEUE#open"))).limit(1))
                .items().forEach(m -> open.add(m.get("GSI1SK").s()));
        assertThat(open).containsExactly("2024-01-02", "2024-01-04", "2024-01-06");

        assertValidation(() -> dynamo.query(b -> b.tableName(TABLE).indexName("GSI1").consistentRead(true)
                .keyConditionExpression("GSI1PK = :q").expressionAttributeValues(Map.of(":q", s("QUEUE#open")))),
                m -> assertThat(m).contains("onsistent"));
    }

    @Test
    void shouldScanInSegmentsAndPages() {
        createTickets();
        for (int i = 0; i < 20; i++) {
            int n = i;
            dynamo.putItem(b -> b.tableName(TABLE).item(ticket("T#" + n, "META", "n", n)));
        }
        List<Map<String, AttributeValue>> paged = new ArrayList<>();
        dynamo.scanPaginator(b -> b.tableName(TABLE).limit(3)).items().forEach(paged::add);
        assertThat(paged).hasSize(20);
        List<String> segmented = new ArrayList<>();
        for (int segment = 0; segment < 3; segment++) {
            int seg = segment;
            dynamo.scanPaginator(b -> b.tableName(TABLE).segment(seg).totalSegments(3).limit(4)).items()
                    .forEach(m -> segmented.add(m.get("pk").s()));
        }
        assertThat(segmented).hasSize(20).doesNotHaveDuplicates();
        var filtered = dynamo.scan(b -> b.tableName(TABLE).filterExpression("n >= :ten")
                .expressionAttributeValues(Map.of(":ten", n("10"))).projectionExpression("pk"));
        assertThat(filtered.count()).isEqualTo(10);
        assertThat(filtered.scannedCount()).isEqualTo(20);
        assertThat(filtered.items()).allSatisfy(m -> assertThat(m).containsOnlyKeys("pk"));
        assertValidation(() -> dynamo.scan(b -> b.tableName(TABLE).segment(1)),
                m -> assertThat(m).isEqualTo("The TotalSegments parameter is required but was not present in the"
                        + " request when Segment parameter is present"));
    }

    @Test
    void shouldBatchWritesAndReadsAcrossTables() {
        createTickets();
        dynamo.createTable(b -> b.tableName("Agents").attributeDefinitions(def("id", ScalarAttributeType.S))
                .keySchema(key("id", KeyType.HASH)));
        List<WriteRequest> writes = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            writes.add(WriteRequest.builder().putRequest(PutRequest.builder().item(ticket("T#" + i, "META", "i", i))
                    .build()).build());
        }
        writes.add(WriteRequest.builder().deleteRequest(DeleteRequest.builder().key(keyOf("T#0", "META")).build())
                .build());
        assertValidation(() -> dynamo.batchWriteItem(b -> b.requestItems(Map.of(TABLE, writes))),
                m -> assertThat(m).isNotBlank()); // the same item twice in one batch
        writes.remove(writes.size() - 1);
        BatchWriteItemResponse written = dynamo.batchWriteItem(b -> b.requestItems(Map.of(TABLE, writes,
                "Agents", List.of(WriteRequest.builder().putRequest(PutRequest.builder()
                        .item(Map.of("id", s("ann"), "name", s("Ann"))).build()).build()))));
        assertThat(written.unprocessedItems()).isEmpty();

        List<Map<String, AttributeValue>> keys = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            keys.add(keyOf("T#" + i, "META"));
        }
        BatchGetItemResponse read = dynamo.batchGetItem(b -> b.requestItems(Map.of(
                TABLE, KeysAndAttributes.builder().keys(keys).projectionExpression("pk, #i")
                        .expressionAttributeNames(Map.of("#i", "i")).build(),
                "Agents", KeysAndAttributes.builder().keys(List.of(Map.of("id", s("ann")), Map.of("id", s("bob"))))
                        .build())));
        assertThat(read.responses().get(TABLE)).hasSize(24)
                .allSatisfy(m -> assertThat(m).containsOnlyKeys("pk", "i"));
        assertThat(read.responses().get("Agents")).containsExactly(Map.of("id", s("ann"), "name", s("Ann")));
        assertThat(read.unprocessedKeys()).isEmpty();

        List<WriteRequest> tooMany = new ArrayList<>();
        for (int i = 0; i < 26; i++) {
            tooMany.add(WriteRequest.builder().putRequest(PutRequest.builder().item(ticket("X#" + i, "META")).build())
                    .build());
        }
        assertValidation(() -> dynamo.batchWriteItem(b -> b.requestItems(Map.of(TABLE, tooMany))),
                m -> assertThat(m).isNotBlank());
        assertThat(dynamo.getItem(b -> b.tableName(TABLE).key(keyOf("X#0", "META"))).hasItem()).isFalse();
    }

    @Test
    void shouldLeaveKeysPastSixteenMegabytesUnprocessedForTheSdkToAskAgain() {
        DynamoDbEnhancedClient enhanced = DynamoDbEnhancedClient.builder().dynamoDbClient(dynamo).build();
        DynamoDbTable<TicketBean> tickets = enhanced.table("BeanTickets", TableSchema.fromBean(TicketBean.class));
        tickets.createTable();
        String big = "x".repeat(390_000); // near DynamoDB's 400 KB item limit: 43 of them fill a 16 MB response
        int count = 50;
        List<Map<String, AttributeValue>> keys = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String pk = "TICKET#" + i;
            dynamo.putItem(b -> b.tableName("BeanTickets").item(Map.of("pk", s(pk), "sk", s("META"),
                    "subject", s(big))));
            keys.add(Map.of("pk", s(pk), "sk", s("META")));
        }
        // DynamoDB: "If you request more than 100 items, or the response would exceed 16 MB, ... returns a partial
        // result ... and UnprocessedKeys" with the request's own settings, to be asked for again.
        KeysAndAttributes asked = KeysAndAttributes.builder().keys(keys).consistentRead(true)
                .projectionExpression("pk, sk, subject").build();
        BatchGetItemResponse first = dynamo.batchGetItem(b -> b.requestItems(Map.of("BeanTickets", asked)));
        int returned = first.responses().get("BeanTickets").size();
        assertThat(returned).isPositive().isLessThan(count);
        KeysAndAttributes left = first.unprocessedKeys().get("BeanTickets");
        assertThat(left.keys()).hasSize(count - returned);
        assertThat(left.consistentRead()).isTrue();
        assertThat(left.projectionExpression()).isEqualTo("pk, sk, subject");
        BatchGetItemResponse second = dynamo.batchGetItem(b -> b.requestItems(first.unprocessedKeys()));
        assertThat(second.unprocessedKeys()).isEmpty();
        assertThat(second.responses().get("BeanTickets")).hasSize(count - returned);

        // The Enhanced Client asks for unprocessed keys again by itself, page after page.
        ReadBatch.Builder<TicketBean> batch = ReadBatch.builder(TicketBean.class).mappedTableResource(tickets);
        for (int i = 0; i < count; i++) {
            batch.addGetItem(software.amazon.awssdk.enhanced.dynamodb.Key.builder().partitionValue("TICKET#" + i)
                    .sortValue("META").build());
        }
        List<String> read = new ArrayList<>();
        enhanced.batchGetItem(r -> r.readBatches(batch.build())).resultsForTable(tickets)
                .forEach(t -> read.add(t.getPk() + ":" + t.getSubject().length()));
        assertThat(read).hasSize(count).doesNotHaveDuplicates().allMatch(r -> r.endsWith(":" + big.length()));
    }

    @Test
    void shouldCommitTransactionsWholeAndCancelThemWithAReasonPerItem() {
        createTickets();
        dynamo.putItem(b -> b.tableName(TABLE).item(ticket("A", "ACCOUNT", "balance", 100)));
        dynamo.putItem(b -> b.tableName(TABLE).item(ticket("B", "ACCOUNT", "balance", 0)));
        dynamo.transactWriteItems(b -> b.transactItems(
                TransactWriteItem.builder().update(Update.builder().tableName(TABLE).key(keyOf("A", "ACCOUNT"))
                        .updateExpression("SET balance = balance - :x").conditionExpression("balance >= :x")
                        .expressionAttributeValues(Map.of(":x", n("60"))).build()).build(),
                TransactWriteItem.builder().update(Update.builder().tableName(TABLE).key(keyOf("B", "ACCOUNT"))
                        .updateExpression("SET balance = balance + :x")
                        .expressionAttributeValues(Map.of(":x", n("60"))).build()).build(),
                TransactWriteItem.builder().put(Put.builder().tableName(TABLE)
                        .item(ticket("A", "TRANSFER#1", "amount", 60)).conditionExpression("attribute_not_exists(pk)")
                        .build()).build()));

        Map<String, AttributeValue> a = ticket("A", "ACCOUNT", "balance", 40);
        assertThatThrownBy(() -> dynamo.transactWriteItems(b -> b.transactItems(
                TransactWriteItem.builder().conditionCheck(ConditionCheck.builder().tableName(TABLE)
                        .key(keyOf("B", "ACCOUNT")).conditionExpression("attribute_exists(balance)").build()).build(),
                TransactWriteItem.builder().update(Update.builder().tableName(TABLE).key(keyOf("A", "ACCOUNT"))
                        .updateExpression("SET balance = balance - :x").conditionExpression("balance >= :x")
                        .expressionAttributeValues(Map.of(":x", n("60")))
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD).build())
                        .build(),
                TransactWriteItem.builder().delete(Delete.builder().tableName(TABLE).key(keyOf("A", "TRANSFER#1"))
                        .build()).build())))
                .isInstanceOfSatisfying(TransactionCanceledException.class, e -> {
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("TransactionCanceledException");
                    assertThat(e.awsErrorDetails().errorMessage()).isEqualTo("Transaction cancelled, please refer"
                            + " cancellation reasons for specific reasons [None, ConditionalCheckFailed, None]");
                    assertThat(e.cancellationReasons()).extracting(CancellationReason::code)
                            .containsExactly("None", "ConditionalCheckFailed", "None");
                    assertThat(e.cancellationReasons().get(1).message()).isEqualTo("The conditional request failed");
                    assertThat(e.cancellationReasons().get(1).item()).isEqualTo(a);
                    assertThat(e.cancellationReasons().get(0).hasItem()).isFalse();
                });

        var got = dynamo.transactGetItems(b -> b.transactItems(
                TransactGetItem.builder().get(Get.builder().tableName(TABLE).key(keyOf("A", "ACCOUNT")).build()).build(),
                TransactGetItem.builder().get(Get.builder().tableName(TABLE).key(keyOf("B", "ACCOUNT"))
                        .projectionExpression("balance").build()).build(),
                TransactGetItem.builder().get(Get.builder().tableName(TABLE).key(keyOf("C", "ACCOUNT")).build()).build(),
                TransactGetItem.builder().get(Get.builder().tableName(TABLE).key(keyOf("A", "TRANSFER#1")).build())
                        .build()));
        assertThat(got.responses()).hasSize(4);
        assertThat(got.responses().get(0).item()).isEqualTo(a);
        assertThat(got.responses().get(1).item()).isEqualTo(Map.of("balance", n("60")));
        assertThat(got.responses().get(2).hasItem()).isFalse();
        assertThat(got.responses().get(3).item()).containsEntry("amount", n("60"));
    }

    @Test
    void shouldRepeatATransactionWithTheSameTokenWithoutWritingAgain() {
        createTickets();
        dynamo.putItem(b -> b.tableName(TABLE).item(ticket("A", "ACCOUNT", "n", 0)));
        Consumer<software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest.Builder> increment =
                b -> b.clientRequestToken("token-1").transactItems(TransactWriteItem.builder().update(Update.builder()
                        .tableName(TABLE).key(keyOf("A", "ACCOUNT")).updateExpression("ADD n :one")
                        .expressionAttributeValues(Map.of(":one", n("1"))).build()).build());
        dynamo.transactWriteItems(increment);
        dynamo.transactWriteItems(increment);
        assertThat(dynamo.getItem(b -> b.tableName(TABLE).key(keyOf("A", "ACCOUNT"))).item().get("n")).isEqualTo(n("1"));
        assertThatThrownBy(() -> dynamo.transactWriteItems(b -> b.clientRequestToken("token-1").transactItems(
                TransactWriteItem.builder().update(Update.builder().tableName(TABLE).key(keyOf("A", "ACCOUNT"))
                        .updateExpression("ADD n :two").expressionAttributeValues(Map.of(":two", n("2"))).build())
                        .build())))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorCode())
                        .isEqualTo("IdempotentParameterMismatchException"));
    }

    @Test
    void shouldSetTimeToLiveAndTags() {
        createTickets();
        assertThat(dynamo.describeTimeToLive(b -> b.tableName(TABLE)).timeToLiveDescription().timeToLiveStatus())
                .isEqualTo(TimeToLiveStatus.DISABLED);
        var spec = dynamo.updateTimeToLive(b -> b.tableName(TABLE)
                .timeToLiveSpecification(t -> t.enabled(true).attributeName("expiresAt"))).timeToLiveSpecification();
        assertThat(spec.enabled()).isTrue();
        assertThat(spec.attributeName()).isEqualTo("expiresAt");
        var ttl = dynamo.describeTimeToLive(b -> b.tableName(TABLE)).timeToLiveDescription();
        assertThat(ttl.timeToLiveStatus()).isEqualTo(TimeToLiveStatus.ENABLED);
        assertThat(ttl.attributeName()).isEqualTo("expiresAt");

        dynamo.putItem(b -> b.tableName(TABLE).item(ticket("T#old", "META", "expiresAt", java.time.Instant.now().getEpochSecond() - 3600)));
        assertThat(dynamo.getItem(b -> b.tableName(TABLE).key(keyOf("T#old", "META"))).hasItem()).isFalse();

        String arn = dynamo.describeTable(b -> b.tableName(TABLE)).table().tableArn();
        dynamo.tagResource(b -> b.resourceArn(arn).tags(Tag.builder().key("team").value("support").build(),
                Tag.builder().key("env").value("test").build()));
        assertThat(dynamo.listTagsOfResource(b -> b.resourceArn(arn)).tags()).containsExactly(
                Tag.builder().key("env").value("test").build(), Tag.builder().key("team").value("support").build());
        dynamo.untagResource(b -> b.resourceArn(arn).tagKeys("env"));
        assertThat(dynamo.listTagsOfResource(b -> b.resourceArn(arn)).tags())
                .containsExactly(Tag.builder().key("team").value("support").build());
        assertDynamoError(() -> dynamo.listTagsOfResource(b -> b.resourceArn(Tables.ARN_PREFIX + "Nope")),
                ResourceNotFoundException.class, "ResourceNotFoundException",
                "Requested resource not found: Table: Nope not found");
    }

    @Test
    void shouldAddAndDropAGlobalIndexWithUpdateTable() {
        createTickets();
        dynamo.putItem(b -> b.tableName(TABLE).item(ticket("T#1", "META", "assignee", "ann")));
        TableDescription updated = dynamo.updateTable(b -> b.tableName(TABLE)
                .attributeDefinitions(def("assignee", ScalarAttributeType.S))
                .globalSecondaryIndexUpdates(GlobalSecondaryIndexUpdate.builder().create(c -> c.indexName("ByAssignee")
                        .keySchema(key("assignee", KeyType.HASH))
                        .projection(p -> p.projectionType(ProjectionType.KEYS_ONLY))).build())).tableDescription();
        assertThat(updated.globalSecondaryIndexes()).extracting(g -> g.indexName())
                .containsExactlyInAnyOrder("GSI1", "ByAssignee");
        assertThat(updated.globalSecondaryIndexes()).filteredOn(g -> g.indexName().equals("ByAssignee"))
                .singleElement().satisfies(g -> assertThat(g.indexStatus()).isIn(IndexStatus.CREATING, IndexStatus.ACTIVE));
        // As DynamoDB's users do: poll DescribeTable until the new index is ACTIVE (its backfill done).
        awaitCondition(() -> dynamo.describeTable(b -> b.tableName(TABLE)).table().globalSecondaryIndexes().stream()
                .allMatch(g -> g.indexStatus() == IndexStatus.ACTIVE), "the index ByAssignee became ACTIVE");
        target.db.query(TABLE, new Query("assignee = :a").index("ByAssignee")
                .value(":a", dev.lacuna.AttributeValue.s("ann")).readYourWrites(Duration.ofSeconds(10)));
        var byAssignee = dynamo.query(b -> b.tableName(TABLE).indexName("ByAssignee")
                .keyConditionExpression("assignee = :a").expressionAttributeValues(Map.of(":a", s("ann"))));
        assertThat(byAssignee.items()).containsExactly(ticket("T#1", "META", "assignee", "ann"));
        dynamo.updateTable(b -> b.tableName(TABLE).globalSecondaryIndexUpdates(
                GlobalSecondaryIndexUpdate.builder().delete(d -> d.indexName("GSI1")).build()));
        assertThat(dynamo.describeTable(b -> b.tableName(TABLE)).table().globalSecondaryIndexes())
                .extracting(g -> g.indexName()).containsExactly("ByAssignee");
    }

    @Test
    void shouldRefuseMoreThanOneIndexCreatedOrDeletedPerUpdateTable() {
        createTickets();
        // DynamoDB: "You can create or delete only one global secondary index per UpdateTable operation."
        String limit = "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per"
                + " table";
        GlobalSecondaryIndexUpdate create = GlobalSecondaryIndexUpdate.builder().create(c -> c.indexName("ByAssignee")
                .keySchema(key("assignee", KeyType.HASH)).projection(p -> p.projectionType(ProjectionType.KEYS_ONLY)))
                .build();
        GlobalSecondaryIndexUpdate createOther = GlobalSecondaryIndexUpdate.builder().create(c -> c.indexName("ByStatus")
                .keySchema(key("status", KeyType.HASH)).projection(p -> p.projectionType(ProjectionType.KEYS_ONLY)))
                .build();
        GlobalSecondaryIndexUpdate delete = GlobalSecondaryIndexUpdate.builder().delete(d -> d.indexName("GSI1")).build();
        assertDynamoError(() -> dynamo.updateTable(b -> b.tableName(TABLE).attributeDefinitions(
                        def("assignee", ScalarAttributeType.S), def("status", ScalarAttributeType.S))
                        .globalSecondaryIndexUpdates(create, createOther)),
                LimitExceededException.class, "LimitExceededException", limit);
        assertDynamoError(() -> dynamo.updateTable(b -> b.tableName(TABLE).attributeDefinitions(
                        def("assignee", ScalarAttributeType.S)).globalSecondaryIndexUpdates(create, delete)),
                LimitExceededException.class, "LimitExceededException", limit);
        assertThat(dynamo.describeTable(b -> b.tableName(TABLE)).table().globalSecondaryIndexes())
                .as("nothing changed").extracting(g -> g.indexName()).containsExactly("GSI1");

        // One change per call is accepted.
        dynamo.updateTable(b -> b.tableName(TABLE).globalSecondaryIndexUpdates(delete));
        assertThat(dynamo.describeTable(b -> b.tableName(TABLE)).table().globalSecondaryIndexes()).isEmpty();
    }

    @Test
    void shouldReportApproximateItemCountsAndSizesOfTheTableAndItsIndexes() {
        TableDescription created = createTickets();
        assertThat(created.itemCount()).isZero();
        assertThat(created.tableSizeBytes()).isZero();
        String body = "b".repeat(1000);
        for (int i = 0; i < 20; i++) {
            int n = i;
            Map<String, AttributeValue> item = i < 10
                    ? ticket("T#" + n, "META", "body", body, "GSI1PK", "QUEUE", "GSI1SK", "S#" + n)
                    : ticket("T#" + n, "META", "body", body);
            if (i % 4 == 0) {
                item.put("priority", n(Integer.toString(n)));
            }
            dynamo.putItem(b -> b.tableName(TABLE).item(item));
        }
        awaitGsi();
        // DynamoDB updates these about every six hours, so they are approximate there too; Lacuna's are estimated
        // from what its files and memtables count: exact here, where nothing was overwritten or deleted.
        TableDescription t = dynamo.describeTable(b -> b.tableName(TABLE)).table();
        assertThat(t.itemCount()).isEqualTo(20);
        assertThat(t.tableSizeBytes()).as("20 items of about 1 KB").isBetween(20_000L, 40_000L);
        assertThat(t.globalSecondaryIndexes()).singleElement().satisfies(g -> {
            assertThat(g.itemCount()).isEqualTo(10);
            assertThat(g.indexSizeBytes()).isBetween(10_000L, 20_000L); // projection ALL: the whole items
        });
        assertThat(t.localSecondaryIndexes()).singleElement().satisfies(l -> {
            assertThat(l.itemCount()).isEqualTo(5);
            assertThat(l.indexSizeBytes()).isPositive().isLessThan(5_000L); // KEYS_ONLY
        });

        for (int i = 10; i < 15; i++) {
            int n = i;
            dynamo.deleteItem(b -> b.tableName(TABLE).key(keyOf("T#" + n, "META")));
        }
        TableDescription after = dynamo.describeTable(b -> b.tableName(TABLE)).table();
        assertThat(after.itemCount()).isEqualTo(15);
        assertThat(after.tableSizeBytes()).isLessThan(t.tableSizeBytes());
        assertThat(dynamo.deleteTable(b -> b.tableName(TABLE)).tableDescription().itemCount())
                .as("DeleteTable describes the table as it was").isEqualTo(15);
    }

    /** Tickets with only its key (pk, sk) and, if {@code stream} is given, that stream specification. */
    TableDescription createPlainTickets(StreamSpecification stream) {
        return dynamo.createTable(b -> b.tableName(TABLE)
                .attributeDefinitions(def("pk", ScalarAttributeType.S), def("sk", ScalarAttributeType.S))
                .keySchema(key("pk", KeyType.HASH), key("sk", KeyType.RANGE))
                .billingMode(BillingMode.PAY_PER_REQUEST).streamSpecification(stream)).tableDescription();
    }

    static final String STREAM_ARN_PREFIX = "arn:aws:dynamodb:lacuna:000000000000:table/" + TABLE + "/stream/";
    static final String LABEL = "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}";

    @Test
    void shouldCreateDescribeDisableAndReEnableAStreamAsDynamoDbDoes() {
        TableDescription created = createPlainTickets(StreamSpecification.builder().streamEnabled(true)
                .streamViewType(StreamViewType.NEW_AND_OLD_IMAGES).build());
        assertThat(created.streamSpecification()).isEqualTo(StreamSpecification.builder().streamEnabled(true)
                .streamViewType(StreamViewType.NEW_AND_OLD_IMAGES).build());
        // DynamoDB's label is the stream's creation time to the millisecond, and its ARN the table's + /stream/label.
        String label = created.latestStreamLabel();
        assertThat(label).matches(LABEL);
        assertThat(created.latestStreamArn()).isEqualTo(STREAM_ARN_PREFIX + label);
        assertThat(created.latestStreamArn()).startsWith(created.tableArn() + "/stream/");

        TableDescription described = dynamo.describeTable(b -> b.tableName(TABLE)).table();
        assertThat(described.streamSpecification()).isEqualTo(created.streamSpecification());
        assertThat(described.latestStreamLabel()).isEqualTo(label);
        assertThat(described.latestStreamArn()).isEqualTo(created.latestStreamArn());

        // Enabling again, also to change the view type, is refused: a view type changes by disabling first.
        for (StreamViewType view : List.of(StreamViewType.NEW_AND_OLD_IMAGES, StreamViewType.KEYS_ONLY)) {
            assertValidation(() -> dynamo.updateTable(b -> b.tableName(TABLE).streamSpecification(s -> s
                            .streamEnabled(true).streamViewType(view))),
                    m -> assertThat(m).isEqualTo("Table already has an enabled stream: TableName: " + TABLE));
        }
        assertValidation(() -> dynamo.updateTable(b -> b.tableName(TABLE).streamSpecification(s -> s
                        .streamEnabled(false).streamViewType(StreamViewType.KEYS_ONLY))),
                m -> assertThat(m).isEqualTo("One or more parameter values were invalid: If stream is being disabled,"
                        + " then UpdateViewType must not be specified"));

        // Disabled: StreamSpecification is left out, the latest stream's label and ARN stay.
        TableDescription disabled = dynamo.updateTable(b -> b.tableName(TABLE)
                .streamSpecification(s -> s.streamEnabled(false))).tableDescription();
        assertThat(disabled.streamSpecification()).isNull();
        assertThat(disabled.latestStreamLabel()).isEqualTo(label);
        assertThat(disabled.latestStreamArn()).isEqualTo(STREAM_ARN_PREFIX + label);
        described = dynamo.describeTable(b -> b.tableName(TABLE)).table();
        assertThat(described.streamSpecification()).isNull();
        assertThat(described.latestStreamArn()).isEqualTo(STREAM_ARN_PREFIX + label);
        assertValidation(() -> dynamo.updateTable(b -> b.tableName(TABLE).streamSpecification(s -> s
                        .streamEnabled(false))),
                m -> assertThat(m).isEqualTo("Table has no stream to disable: TableName: " + TABLE));

        // Enabled again: a new stream, with a label and ARN of its own, and the new view type.
        TableDescription again = dynamo.updateTable(b -> b.tableName(TABLE)
                .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.KEYS_ONLY)))
                .tableDescription();
        assertThat(again.streamSpecification().streamEnabled()).isTrue();
        assertThat(again.streamSpecification().streamViewType()).isEqualTo(StreamViewType.KEYS_ONLY);
        assertThat(again.latestStreamLabel()).matches(LABEL).isNotEqualTo(label);
        assertThat(again.latestStreamArn()).isEqualTo(STREAM_ARN_PREFIX + again.latestStreamLabel());
        assertThat(dynamo.describeTable(b -> b.tableName(TABLE)).table().latestStreamArn())
                .isEqualTo(again.latestStreamArn());
        // The engine has the new stream too (what its consumers read).
        assertThat(target.db.describeTable(TABLE).streamSpecification())
                .isEqualTo(dev.lacuna.StreamSpecification.enabled(dev.lacuna.StreamViewType.KEYS_ONLY));
    }

    @Test
    void shouldFeedWritesMadeThroughDynamoDbsApiToTheStreamItEnabled() throws InterruptedException {
        TableDescription created = createPlainTickets(StreamSpecification.builder().streamEnabled(true)
                .streamViewType(StreamViewType.NEW_AND_OLD_IMAGES).build());
        dynamo.putItem(b -> b.tableName(TABLE).item(ticket("T#1", "META", "status", "open")));
        dynamo.updateItem(b -> b.tableName(TABLE).key(keyOf("T#1", "META")).updateExpression("SET #s = :c")
                .expressionAttributeNames(Map.of("#s", "status")).expressionAttributeValues(Map.of(":c", s("closed"))));
        dynamo.deleteItem(b -> b.tableName(TABLE).key(keyOf("T#1", "META")));
        List<dev.lacuna.StreamRecord> records = new ArrayList<>();
        try (dev.lacuna.StreamConsumer c = target.db.streamConsumer(TABLE, "conformance")) {
            // The consumer's stream is the one DynamoDB's API described: the same label.
            assertThat(c.streamArn()).endsWith("/stream/" + created.latestStreamLabel());
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (records.size() < 3 && System.nanoTime() < deadline) {
                records.addAll(c.poll(10, Duration.ofSeconds(1)).records()); // waits for a record, not a time
            }
        }
        assertThat(records).extracting(dev.lacuna.StreamRecord::eventName).containsExactly(
                dev.lacuna.OperationType.INSERT, dev.lacuna.OperationType.MODIFY, dev.lacuna.OperationType.REMOVE);
        assertThat(records.get(0).oldImage()).isNull();
        assertThat(records.get(0).newImage().getString("status")).isEqualTo("open");
        assertThat(records.get(1).oldImage().getString("status")).isEqualTo("open");
        assertThat(records.get(1).newImage().getString("status")).isEqualTo("closed");
        assertThat(records.get(2).oldImage().getString("status")).isEqualTo("closed");
        assertThat(records.get(2).newImage()).isNull();
        assertThat(records).allSatisfy(r -> assertThat(r.streamViewType())
                .isEqualTo(dev.lacuna.StreamViewType.NEW_AND_OLD_IMAGES));
    }

    @Test
    void shouldLeaveTheStreamOutOfATableThatNeverHadOne() {
        TableDescription created = createPlainTickets(StreamSpecification.builder().streamEnabled(false).build());
        assertThat(created.streamSpecification()).isNull();
        assertThat(created.latestStreamLabel()).isNull();
        assertThat(created.latestStreamArn()).isNull();
        TableDescription described = dynamo.describeTable(b -> b.tableName(TABLE)).table();
        assertThat(described.streamSpecification()).isNull();
        assertThat(described.latestStreamArn()).isNull();
        assertThat(target.db.describeTable(TABLE).streamSpecification().streamEnabled()).isFalse();
        assertValidation(() -> dynamo.updateTable(b -> b.tableName(TABLE).streamSpecification(s -> s
                        .streamEnabled(false))),
                m -> assertThat(m).isEqualTo("Table has no stream to disable: TableName: " + TABLE));
        // Enabled later with UpdateTable, as DynamoDB allows.
        TableDescription enabled = dynamo.updateTable(b -> b.tableName(TABLE)
                .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.NEW_IMAGE)))
                .tableDescription();
        assertThat(enabled.streamSpecification().streamViewTypeAsString()).isEqualTo("NEW_IMAGE");
        assertThat(enabled.latestStreamArn()).isEqualTo(STREAM_ARN_PREFIX + enabled.latestStreamLabel());
    }

    @Test
    void shouldRefuseStreamSpecificationsDynamoDbRefuses() {
        String enumMessage = "1 validation error detected: Value 'FULL_IMAGE' at 'streamSpecification.streamViewType'"
                + " failed to satisfy constraint: Member must satisfy enum value set: [NEW_IMAGE, OLD_IMAGE,"
                + " NEW_AND_OLD_IMAGES, KEYS_ONLY]";
        assertValidation(() -> createPlainTickets(StreamSpecification.builder().streamEnabled(true)
                .streamViewType("FULL_IMAGE").build()), m -> assertThat(m).isEqualTo(enumMessage));
        assertValidation(() -> createPlainTickets(StreamSpecification.builder().streamEnabled(true).build()),
                m -> assertThat(m).isEqualTo("One or more parameter values were invalid: Table is being created with"
                        + " a stream enabled, UpdateViewType is required"));
        assertValidation(() -> createPlainTickets(StreamSpecification.builder().streamEnabled(false)
                        .streamViewType(StreamViewType.NEW_IMAGE).build()),
                m -> assertThat(m).isEqualTo("One or more parameter values were invalid: Table is being created with"
                        + " a stream disabled, UpdateViewType should not be specified"));
        assertValidation(() -> createPlainTickets(StreamSpecification.builder()
                        .streamViewType(StreamViewType.KEYS_ONLY).build()),
                m -> assertThat(m).isEqualTo("1 validation error detected: Value null at"
                        + " 'streamSpecification.streamEnabled' failed to satisfy constraint: Member must not be null"));
        assertThat(dynamo.listTables().tableNames()).isEmpty();
        createPlainTickets(null);
        assertValidation(() -> dynamo.updateTable(b -> b.tableName(TABLE).streamSpecification(s -> s
                .streamEnabled(true).streamViewType("FULL_IMAGE"))), m -> assertThat(m).isEqualTo(enumMessage));
        assertValidation(() -> dynamo.updateTable(b -> b.tableName(TABLE).streamSpecification(s -> s
                        .streamEnabled(true))),
                m -> assertThat(m).isEqualTo("One or more parameter values were invalid: If stream is being enabled"
                        + " then UpdateViewType is required"));
        assertThat(dynamo.describeTable(b -> b.tableName(TABLE)).table().streamSpecification()).isNull();
        assertThat(target.db.describeTable(TABLE).latestStreamLabel()).isNull();
    }

    @Test
    void shouldRefuseInvalidRequestsWithDynamoDbsErrors() {
        createTickets();
        assertValidation(() -> dynamo.getItem(b -> b.tableName(TABLE).key(Map.of("pk", s("x")))),
                m -> assertThat(m).isEqualTo("The provided key element does not match the schema"));
        assertValidation(() -> dynamo.putItem(b -> b.tableName(TABLE).item(Map.of("pk", s("x"), "sk", s("y"),
                        "bad", AttributeValue.builder().build()))),
                m -> assertThat(m).isEqualTo("Supplied AttributeValue is empty, must contain exactly one of the"
                        + " supported datatypes"));
        assertValidation(() -> dynamo.putItem(b -> b.tableName(TABLE).item(ticket("x", "y"))
                        .returnValues(ReturnValue.UPDATED_NEW)),
                m -> assertThat(m).startsWith("ReturnValues can only be"));
        assertValidation(() -> dynamo.putItem(b -> b.tableName(TABLE).item(ticket("x", "y", "n", n("1e400")))),
                m -> assertThat(m).isEqualTo("Number overflow. Attempting to store a number with magnitude larger"
                        + " than supported range"));
        assertValidation(() -> dynamo.query(b -> b.tableName(TABLE)),
                m -> assertThat(m).isEqualTo("Either the KeyConditions or KeyConditionExpression parameter must be"
                        + " specified in the request."));
        assertValidation(() -> dynamo.query(b -> b.tableName(TABLE).keyConditionExpression("pk = :p")
                        .expressionAttributeValues(Map.of(":p", s("x"))).limit(0)),
                m -> assertThat(m).isEqualTo("1 validation error detected: Value '0' at 'limit' failed to satisfy"
                        + " constraint: Member must have value greater than or equal to 1"));
        assertValidation(() -> dynamo.putItem(b -> b.tableName(TABLE).item(ticket("x", "y"))
                        .conditionExpression("attribute_not_exists(pk)").expressionAttributeValues(Map.of(":unused", s("u")))),
                m -> assertThat(m).contains(":unused"));
        assertDynamoError(() -> dynamo.getItem(b -> b.tableName("Missing").key(keyOf("x", "y"))),
                ResourceNotFoundException.class, "ResourceNotFoundException",
                "Requested resource not found: Table: Missing not found");
        assertThat(dynamo.scan(b -> b.tableName(TABLE)).count()).isZero();
    }

    @Test
    void shouldAcceptTheLegacyParameters() {
        createTickets();
        dynamo.putItem(b -> b.tableName(TABLE).item(ticket("T#1", "A", "status", "OPEN", "n", 1))
                .expected(Map.of("pk", ExpectedAttributeValue.builder().exists(false).build())));
        assertThatThrownBy(() -> dynamo.putItem(b -> b.tableName(TABLE).item(ticket("T#1", "A"))
                .expected(Map.of("pk", ExpectedAttributeValue.builder().exists(false).build()))))
                .isInstanceOf(ConditionalCheckFailedException.class);
        dynamo.putItem(b -> b.tableName(TABLE).item(ticket("T#1", "B", "status", "CLOSED", "n", 2)));
        dynamo.updateItem(b -> b.tableName(TABLE).key(keyOf("T#1", "A"))
                .attributeUpdates(Map.of("n", AttributeValueUpdate.builder().action("ADD").value(n("5")).build(),
                        "status", AttributeValueUpdate.builder().action("DELETE").build()))
                .expected(Map.of("status", ExpectedAttributeValue.builder().value(s("OPEN")).build())));
        assertThat(dynamo.getItem(b -> b.tableName(TABLE).key(keyOf("T#1", "A")).attributesToGet("n", "status")).item())
                .isEqualTo(Map.of("n", n("6")));
        var q = dynamo.query(b -> b.tableName(TABLE)
                .keyConditions(Map.of("pk", Condition.builder().comparisonOperator(ComparisonOperator.EQ)
                        .attributeValueList(s("T#1")).build(), "sk", Condition.builder()
                        .comparisonOperator(ComparisonOperator.BEGINS_WITH).attributeValueList(s("B")).build())));
        assertThat(q.items()).extracting(m -> m.get("sk").s()).containsExactly("B");
        var filtered = dynamo.query(b -> b.tableName(TABLE)
                .keyConditions(Map.of("pk", Condition.builder().comparisonOperator(ComparisonOperator.EQ)
                        .attributeValueList(s("T#1")).build()))
                .queryFilter(Map.of("n", Condition.builder().comparisonOperator(ComparisonOperator.GT)
                        .attributeValueList(n("3")).build())));
        assertThat(filtered.items()).extracting(m -> m.get("sk").s()).containsExactly("A");
        var scanned = dynamo.scan(b -> b.tableName(TABLE).scanFilter(Map.of("status", Condition.builder()
                .comparisonOperator(ComparisonOperator.NULL).build())));
        assertThat(scanned.items()).extracting(m -> m.get("sk").s()).containsExactly("A");
        assertValidation(() -> dynamo.getItem(b -> b.tableName(TABLE).key(keyOf("T#1", "A")).attributesToGet("n")
                        .projectionExpression("n")),
                m -> assertThat(m).isEqualTo("Can not use both expression and non-expression parameters in the same"
                        + " request: Non-expression parameters: {AttributesToGet} Expression parameters:"
                        + " {ProjectionExpression}"));
    }

    @Test
    void shouldServeTheHelpdeskQueueAccessPatterns() {
        // The helpdesk seed model: open tickets carry GSI1PK/GSI1SK, closing removes them and the ticket leaves
        // the queue; the queue reads oldest first.
        createTickets();
        for (int i = 1; i <= 5; i++) {
            int n = i;
            dynamo.putItem(b -> b.tableName(TABLE).item(ticket("TICKET#" + n, "META", "subject", "Issue " + n,
                    "status", "OPEN", "assignee", "agent" + (n % 2), "openedAt", 1_700_000_000 + n,
                    "GSI1PK", "QUEUE#open", "GSI1SK", "2024-02-0" + (6 - n))));
        }
        awaitGsi();
        QueryResponse queue = dynamo.query(b -> b.tableName(TABLE).indexName("GSI1")
                .keyConditionExpression("GSI1PK = :q").expressionAttributeValues(Map.of(":q", s("QUEUE#open"))));
        assertThat(queue.items()).extracting(m -> m.get("pk").s())
                .containsExactly("TICKET#5", "TICKET#4", "TICKET#3", "TICKET#2", "TICKET#1");

        var closed = dynamo.updateItem(b -> b.tableName(TABLE).key(keyOf("TICKET#3", "META"))
                .updateExpression("SET #s = :closed REMOVE GSI1PK, GSI1SK").conditionExpression("#s = :open")
                .expressionAttributeNames(Map.of("#s", "status"))
                .expressionAttributeValues(Map.of(":closed", s("CLOSED"), ":open", s("OPEN")))
                .returnValues(ReturnValue.ALL_NEW));
        assertThat(closed.attributes()).containsEntry("status", s("CLOSED")).doesNotContainKeys("GSI1PK", "GSI1SK");
        awaitGsi();
        assertThat(dynamo.query(b -> b.tableName(TABLE).indexName("GSI1").keyConditionExpression("GSI1PK = :q")
                .expressionAttributeValues(Map.of(":q", s("QUEUE#open")))).items()).extracting(m -> m.get("pk").s())
                .containsExactly("TICKET#5", "TICKET#4", "TICKET#2", "TICKET#1");
        assertThat(dynamo.getItem(b -> b.tableName(TABLE).key(keyOf("TICKET#3", "META"))).item().get("subject"))
                .isEqualTo(s("Issue 3"));
    }

    @Test
    void shouldRunTheEnhancedClientOnABeanWithAGlobalIndex() {
        DynamoDbEnhancedClient enhanced = DynamoDbEnhancedClient.builder().dynamoDbClient(dynamo).build();
        DynamoDbTable<TicketBean> tickets = enhanced.table("BeanTickets", TableSchema.fromBean(TicketBean.class));
        tickets.createTable(CreateTableEnhancedRequest.builder().globalSecondaryIndices(EnhancedGlobalSecondaryIndex
                .builder().indexName("GSI1").projection(p -> p.projectionType(ProjectionType.ALL)).build()).build());
        for (int i = 1; i <= 4; i++) {
            TicketBean t = new TicketBean();
            t.setPk("TICKET#" + i);
            t.setSk("META");
            t.setSubject("Issue " + i);
            t.setOpenedAt(1_700_000_000L + i);
            if (i != 2) {
                t.setQueue("QUEUE#open");
                t.setQueuedAt("2024-03-0" + (5 - i));
            }
            tickets.putItem(t);
        }
        TicketBean one = tickets.getItem(software.amazon.awssdk.enhanced.dynamodb.Key.builder()
                .partitionValue("TICKET#1").sortValue("META").build());
        assertThat(one.getSubject()).isEqualTo("Issue 1");
        assertThat(one.getOpenedAt()).isEqualTo(1_700_000_001L);

        target.db.query("BeanTickets", new Query("queue = :q").index("GSI1")
                .value(":q", dev.lacuna.AttributeValue.s("-")).readYourWrites(Duration.ofSeconds(10)));
        List<String> queue = new ArrayList<>();
        tickets.index("GSI1").query(QueryConditional.keyEqualTo(k -> k.partitionValue("QUEUE#open")))
                .forEach(page -> page.items().forEach(t -> queue.add(t.getPk())));
        assertThat(queue).containsExactly("TICKET#4", "TICKET#3", "TICKET#1");

        one.setSubject("Issue 1, reopened");
        tickets.updateItem(one);
        assertThat(tickets.getItem(one).getSubject()).isEqualTo("Issue 1, reopened");
        tickets.deleteItem(one);
        assertThat(tickets.getItem(one)).isNull();
        assertThat(tickets.scan().items().stream().map(TicketBean::getPk)).containsExactlyInAnyOrder(
                "TICKET#2", "TICKET#3", "TICKET#4");
    }

    @Test
    void shouldReportConsumedCapacityOnlyWhenAsked() {
        createTickets();
        var put = dynamo.putItem(b -> b.tableName(TABLE).item(ticket("T#1", "META", "body", "x".repeat(1500)))
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));
        assertThat(put.consumedCapacity().tableName()).isEqualTo(TABLE);
        assertThat(put.consumedCapacity().capacityUnits()).isEqualTo(2.0); // 1.5 KB: two write units
        assertThat(dynamo.putItem(b -> b.tableName(TABLE).item(ticket("T#2", "META"))).consumedCapacity()).isNull();
        var strong = dynamo.getItem(b -> b.tableName(TABLE).key(keyOf("T#1", "META")).consistentRead(true)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));
        assertThat(strong.consumedCapacity().capacityUnits()).isEqualTo(1.0);
        var eventual = dynamo.query(b -> b.tableName(TABLE).keyConditionExpression("pk = :p")
                .expressionAttributeValues(Map.of(":p", s("T#1"))).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));
        assertThat(eventual.consumedCapacity().capacityUnits()).isEqualTo(0.5);
    }

    @Test
    void shouldReportConsumedCapacityPerTableForBatchesAndTransactionsOnlyWhenAsked() {
        createTickets();
        String big = "x".repeat(1500); // 1.5 KB items: two write units each
        var batch = dynamo.batchWriteItem(b -> b.requestItems(Map.of(TABLE, List.of(
                WriteRequest.builder().putRequest(p -> p.item(ticket("T#1", "META", "body", big))).build(),
                WriteRequest.builder().putRequest(p -> p.item(ticket("T#2", "META"))).build())))
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));
        assertThat(batch.consumedCapacity()).singleElement().satisfies(c -> {
            assertThat(c.tableName()).isEqualTo(TABLE);
            assertThat(c.capacityUnits()).isEqualTo(3.0); // 2 + 1
        });
        assertThat(dynamo.batchWriteItem(b -> b.requestItems(Map.of(TABLE, List.of(WriteRequest.builder()
                .putRequest(p -> p.item(ticket("T#3", "META"))).build())))).consumedCapacity()).isEmpty();

        var gets = dynamo.batchGetItem(b -> b.requestItems(Map.of(TABLE, KeysAndAttributes.builder()
                .keys(keyOf("T#1", "META"), keyOf("T#2", "META")).consistentRead(true).build()))
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));
        assertThat(gets.consumedCapacity()).singleElement().satisfies(c -> assertThat(c.capacityUnits()).isEqualTo(2.0));
        var eventual = dynamo.batchGetItem(b -> b.requestItems(Map.of(TABLE, KeysAndAttributes.builder()
                .keys(keyOf("T#1", "META"), keyOf("T#2", "META")).build()))
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));
        assertThat(eventual.consumedCapacity()).singleElement().satisfies(c -> assertThat(c.capacityUnits()).isEqualTo(1.0));

        var transaction = dynamo.transactWriteItems(b -> b.transactItems(
                TransactWriteItem.builder().put(p -> p.tableName(TABLE).item(ticket("T#4", "META", "body", big))).build(),
                TransactWriteItem.builder().delete(d -> d.tableName(TABLE).key(keyOf("T#3", "META"))).build())
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));
        assertThat(transaction.consumedCapacity()).singleElement()
                .satisfies(c -> assertThat(c.capacityUnits()).isEqualTo(6.0)); // twice (2 + 1) in a transaction
        var transactGet = dynamo.transactGetItems(b -> b.transactItems(
                TransactGetItem.builder().get(g -> g.tableName(TABLE).key(keyOf("T#4", "META"))).build(),
                TransactGetItem.builder().get(g -> g.tableName(TABLE).key(keyOf("T#9", "META"))).build())
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));
        assertThat(transactGet.consumedCapacity()).singleElement()
                .satisfies(c -> assertThat(c.capacityUnits()).isEqualTo(4.0)); // two reads, found or not, twice
        assertThat(dynamo.transactGetItems(b -> b.transactItems(TransactGetItem.builder()
                .get(g -> g.tableName(TABLE).key(keyOf("T#4", "META"))).build())).consumedCapacity()).isEmpty();
    }

    @Test
    void shouldServeTheWorkOrdersAccessPatterns() {
        // The field-service seed model: status and date packed into the sort key, no index; closing an order moves
        // it to a new key, in one transaction so that it is never under neither status.
        createTickets();
        String[][] orders = {{"OPEN", "2024-01-30", "w-1"}, {"OPEN", "2024-01-31", "w-2"}, {"OPEN", "2024-02-01", "w-3"},
            {"DONE", "2024-01-15", "w-0"}};
        for (String[] o : orders) {
            dynamo.putItem(b -> b.tableName(TABLE).item(ticket("REGION#north", "STATUS#" + o[0] + "#" + o[1] + "#" + o[2],
                    "customer", "c-" + o[2], "engineer", "e-1")));
        }
        QueryResponse region = dynamo.query(b -> b.tableName(TABLE).keyConditionExpression("pk = :r")
                .expressionAttributeValues(Map.of(":r", s("REGION#north"))));
        assertThat(region.items()).extracting(m -> m.get("sk").s()).containsExactly("STATUS#DONE#2024-01-15#w-0",
                "STATUS#OPEN#2024-01-30#w-1", "STATUS#OPEN#2024-01-31#w-2", "STATUS#OPEN#2024-02-01#w-3");
        QueryResponse january = dynamo.query(b -> b.tableName(TABLE).keyConditionExpression("pk = :r AND sk BETWEEN :a AND :b")
                .expressionAttributeValues(Map.of(":r", s("REGION#north"), ":a", s("STATUS#OPEN#2024-01-01"),
                        ":b", s("STATUS#OPEN#2024-01-31#\uFFFF"))));
        assertThat(january.items()).extracting(m -> m.get("sk").s())
                .containsExactly("STATUS#OPEN#2024-01-30#w-1", "STATUS#OPEN#2024-01-31#w-2");

        Map<String, AttributeValue> open = keyOf("REGION#north", "STATUS#OPEN#2024-01-31#w-2");
        Map<String, AttributeValue> order = dynamo.getItem(b -> b.tableName(TABLE).key(open)).item();
        Map<String, AttributeValue> done = new HashMap<>(order);
        done.put("sk", s("STATUS#DONE#2024-01-31#w-2"));
        dynamo.transactWriteItems(b -> b.transactItems(
                TransactWriteItem.builder().delete(Delete.builder().tableName(TABLE).key(open)
                        .conditionExpression("attribute_exists(pk)").build()).build(),
                TransactWriteItem.builder().put(Put.builder().tableName(TABLE).item(done)
                        .conditionExpression("attribute_not_exists(pk)").build()).build()));
        assertThat(dynamo.query(b -> b.tableName(TABLE).keyConditionExpression("pk = :r AND begins_with(sk, :s)")
                .expressionAttributeValues(Map.of(":r", s("REGION#north"), ":s", s("STATUS#OPEN#")))).items())
                .extracting(m -> m.get("sk").s())
                .containsExactly("STATUS#OPEN#2024-01-30#w-1", "STATUS#OPEN#2024-02-01#w-3");
        assertThat(dynamo.getItem(b -> b.tableName(TABLE).key(keyOf("REGION#north", "STATUS#DONE#2024-01-31#w-2")))
                .item()).isEqualTo(done);
    }

    @Test
    void shouldServeTheContactsCrmAccessPatterns() {
        // The CRM seed model: one overloaded index answers "who is at a company" and "who has a tag".
        createTickets();
        String[][] contacts = {{"c1", "Nadia", "halden-mill"}, {"c2", "Priya", "orbit-labs"}, {"c3", "Anton", "halden-mill"}};
        for (String[] c : contacts) {
            dynamo.putItem(b -> b.tableName(TABLE).item(ticket("CONTACT#" + c[0], "PROFILE", "name", c[1],
                    "company", c[2], "GSI1PK", "COMPANY#" + c[2], "GSI1SK", c[1])));
        }
        for (String[] t : new String[][] {{"c1", "Nadia", "decision-maker"}, {"c2", "Priya", "decision-maker"},
            {"c3", "Anton", "newsletter"}}) {
            dynamo.putItem(b -> b.tableName(TABLE).item(ticket("CONTACT#" + t[0], "TAG#" + t[2],
                    "GSI1PK", "TAG#" + t[2], "GSI1SK", t[1])));
        }
        awaitGsi();
        assertThat(dynamo.query(b -> b.tableName(TABLE).indexName("GSI1").keyConditionExpression("GSI1PK = :c")
                .expressionAttributeValues(Map.of(":c", s("COMPANY#halden-mill")))).items())
                .extracting(m -> m.get("name").s()).containsExactly("Anton", "Nadia");
        assertThat(dynamo.query(b -> b.tableName(TABLE).indexName("GSI1").keyConditionExpression("GSI1PK = :t")
                .expressionAttributeValues(Map.of(":t", s("TAG#decision-maker")))).items())
                .extracting(m -> m.get("GSI1SK").s()).containsExactly("Nadia", "Priya");
        assertThat(dynamo.query(b -> b.tableName(TABLE).keyConditionExpression("pk = :p")
                .expressionAttributeValues(Map.of(":p", s("CONTACT#c1")))).items())
                .extracting(m -> m.get("sk").s()).containsExactly("PROFILE", "TAG#decision-maker");
        assertThat(dynamo.getItem(b -> b.tableName(TABLE).key(keyOf("CONTACT#c2", "PROFILE"))).item().get("company"))
                .isEqualTo(s("orbit-labs"));
    }

    @Test
    void shouldReturnItemCollectionMetricsOnSingleWritesOnlyWhenAskedOnATableWithALocalIndex() {
        createTickets();
        Map<String, AttributeValue> collection = Map.of("pk", s("T#1"));
        var put = dynamo.putItem(b -> b.tableName(TABLE).item(ticket("T#1", "A", "priority", 3, "title", "x"))
                .returnItemCollectionMetrics(ReturnItemCollectionMetrics.SIZE));
        assertThat(put.itemCollectionMetrics().itemCollectionKey()).isEqualTo(collection);
        assertThat(put.itemCollectionMetrics().sizeEstimateRangeGB()).containsExactly(0.0, 1.0);
        var update = dynamo.updateItem(b -> b.tableName(TABLE).key(keyOf("T#1", "B"))
                .updateExpression("SET priority = :p").expressionAttributeValues(Map.of(":p", n("1")))
                .returnItemCollectionMetrics(ReturnItemCollectionMetrics.SIZE));
        assertThat(update.itemCollectionMetrics().itemCollectionKey()).isEqualTo(collection);
        assertThat(update.itemCollectionMetrics().sizeEstimateRangeGB()).containsExactly(0.0, 1.0);
        var delete = dynamo.deleteItem(b -> b.tableName(TABLE).key(keyOf("T#1", "A"))
                .returnItemCollectionMetrics(ReturnItemCollectionMetrics.SIZE));
        assertThat(delete.itemCollectionMetrics().itemCollectionKey()).isEqualTo(collection);
        assertThat(delete.itemCollectionMetrics().sizeEstimateRangeGB()).containsExactly(0.0, 1.0);

        // Not asked (the default, or NONE): DynamoDB leaves the member out.
        assertThat(dynamo.putItem(b -> b.tableName(TABLE).item(ticket("T#1", "C"))).itemCollectionMetrics()).isNull();
        assertThat(dynamo.updateItem(b -> b.tableName(TABLE).key(keyOf("T#1", "C")).updateExpression("SET a = :a")
                .expressionAttributeValues(Map.of(":a", s("v")))
                .returnItemCollectionMetrics(ReturnItemCollectionMetrics.NONE)).itemCollectionMetrics()).isNull();
        assertThat(dynamo.deleteItem(b -> b.tableName(TABLE).key(keyOf("T#1", "C"))
                .returnItemCollectionMetrics(ReturnItemCollectionMetrics.NONE)).itemCollectionMetrics()).isNull();

        // A table without a local index has no item collections to report, even when asked.
        dynamo.createTable(b -> b.tableName("Agents").attributeDefinitions(def("id", ScalarAttributeType.S))
                .keySchema(key("id", KeyType.HASH)));
        assertThat(dynamo.putItem(b -> b.tableName("Agents").item(Map.of("id", s("a1")))
                .returnItemCollectionMetrics(ReturnItemCollectionMetrics.SIZE)).itemCollectionMetrics()).isNull();
        assertThat(dynamo.updateItem(b -> b.tableName("Agents").key(Map.of("id", s("a1"))).updateExpression("SET a = :a")
                .expressionAttributeValues(Map.of(":a", s("v")))
                .returnItemCollectionMetrics(ReturnItemCollectionMetrics.SIZE)).itemCollectionMetrics()).isNull();
        assertThat(dynamo.deleteItem(b -> b.tableName("Agents").key(Map.of("id", s("a1")))
                .returnItemCollectionMetrics(ReturnItemCollectionMetrics.SIZE)).itemCollectionMetrics()).isNull();
    }

    @Test
    void shouldReturnItemCollectionMetricsPerTableAndCollectionForBatchesAndTransactions() {
        createTickets();
        dynamo.createTable(b -> b.tableName("Agents").attributeDefinitions(def("id", ScalarAttributeType.S))
                .keySchema(key("id", KeyType.HASH)));
        dynamo.putItem(b -> b.tableName(TABLE).item(ticket("T#3", "A")));
        BatchWriteItemResponse batch = dynamo.batchWriteItem(b -> b.requestItems(Map.of(
                TABLE, List.of(WriteRequest.builder().putRequest(p -> p.item(ticket("T#1", "A", "priority", 2))).build(),
                        WriteRequest.builder().putRequest(p -> p.item(ticket("T#1", "B"))).build(),
                        WriteRequest.builder().deleteRequest(d -> d.key(keyOf("T#3", "A"))).build()),
                "Agents", List.of(WriteRequest.builder().putRequest(p -> p.item(Map.of("id", s("a1")))).build())))
                .returnItemCollectionMetrics(ReturnItemCollectionMetrics.SIZE));
        assertThat(batch.itemCollectionMetrics()).containsOnlyKeys(TABLE);
        assertThat(batch.itemCollectionMetrics().get(TABLE)).extracting(m -> m.itemCollectionKey())
                .containsExactlyInAnyOrder(Map.of("pk", s("T#1")), Map.of("pk", s("T#3")));
        assertThat(batch.itemCollectionMetrics().get(TABLE)).allSatisfy(m ->
                assertThat(m.sizeEstimateRangeGB()).containsExactly(0.0, 1.0));
        assertThat(dynamo.batchWriteItem(b -> b.requestItems(Map.of(TABLE, List.of(WriteRequest.builder()
                .putRequest(p -> p.item(ticket("T#1", "C"))).build())))).hasItemCollectionMetrics()).isFalse();
        assertThat(dynamo.batchWriteItem(b -> b.requestItems(Map.of("Agents", List.of(WriteRequest.builder()
                .putRequest(p -> p.item(Map.of("id", s("a2")))).build())))
                .returnItemCollectionMetrics(ReturnItemCollectionMetrics.SIZE)).hasItemCollectionMetrics()).isFalse();

        var tx = dynamo.transactWriteItems(b -> b.transactItems(
                TransactWriteItem.builder().put(Put.builder().tableName(TABLE).item(ticket("T#4", "A")).build()).build(),
                TransactWriteItem.builder().update(Update.builder().tableName(TABLE).key(keyOf("T#5", "A"))
                        .updateExpression("SET priority = :p").expressionAttributeValues(Map.of(":p", n("1"))).build())
                        .build(),
                TransactWriteItem.builder().delete(Delete.builder().tableName(TABLE).key(keyOf("T#4", "B")).build())
                        .build(),
                TransactWriteItem.builder().conditionCheck(ConditionCheck.builder().tableName(TABLE)
                        .key(keyOf("T#1", "A")).conditionExpression("attribute_exists(pk)").build()).build(),
                TransactWriteItem.builder().put(Put.builder().tableName("Agents").item(Map.of("id", s("a3"))).build())
                        .build())
                .returnItemCollectionMetrics(ReturnItemCollectionMetrics.SIZE));
        // One entry per collection written (T#4 twice, once), none for the condition check's T#1 or for Agents.
        assertThat(tx.itemCollectionMetrics()).containsOnlyKeys(TABLE);
        assertThat(tx.itemCollectionMetrics().get(TABLE)).extracting(m -> m.itemCollectionKey())
                .containsExactlyInAnyOrder(Map.of("pk", s("T#4")), Map.of("pk", s("T#5")));
        assertThat(tx.itemCollectionMetrics().get(TABLE)).allSatisfy(m ->
                assertThat(m.sizeEstimateRangeGB()).containsExactly(0.0, 1.0));
        assertThat(dynamo.transactWriteItems(b -> b.transactItems(TransactWriteItem.builder()
                .put(Put.builder().tableName(TABLE).item(ticket("T#6", "A")).build()).build()))
                .hasItemCollectionMetrics()).isFalse();
    }
}
