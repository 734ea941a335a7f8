package dev.lacuna;

import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.s;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DatabaseTest {
    static final Path DIR = Path.of("/db");

    static DatabaseOptions mem(MemVfs vfs) {
        return DatabaseOptions.builder().vfs(vfs).build();
    }

    @Test
    void shouldCreateDescribeListAndDeleteTablesDurably() {
        MemVfs vfs = new MemVfs();
        try (Database db = Database.open(DIR, mem(vfs))) {
            db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S).partitions(8).build());
            db.createTable(TableSpec.builder("Orders").partitionKey("pk", AttributeValue.Type.S)
                    .sortKey("sk", AttributeValue.Type.S).build());
            assertThatThrownBy(() -> db.createTable(TableSpec.builder("Orders")
                    .partitionKey("pk", AttributeValue.Type.S).build())).isInstanceOf(ResourceInUseException.class);
            db.table("Tickets").putItem(Item.builder().s("pk", "TICKET#1").s("subject", "printer").build());
        }
        MemVfs crashed = vfs.crashClone();
        try (Database db = Database.open(DIR, mem(crashed))) {
            assertThat(db.listTables()).containsExactly("Orders", "Tickets");
            assertThat(db.describeTable("Tickets").spec().partitions()).isEqualTo(8);
            assertThat(db.table("Tickets").getItem(Key.of("pk", s("TICKET#1")))).isPresent();
            db.deleteTable("Tickets");
            assertThatThrownBy(() -> db.table("Tickets")).isInstanceOf(ResourceNotFoundException.class);
            db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S).build());
            assertThat(db.table("Tickets").getItem(Key.of("pk", s("TICKET#1")))).isEmpty();
        }
    }

    @Test
    void shouldRunTheWorkOrderRangeExamples() {
        try (Database db = Database.open(DIR, mem(new MemVfs()))) {
            db.createTable(TableSpec.builder("WorkOrders").partitionKey("pk", AttributeValue.Type.S)
                    .sortKey("sk", AttributeValue.Type.S).build());
            Table t = db.table("WorkOrders");
            for (String sk : List.of("STATUS#DONE#2024-01-03#w-1", "STATUS#OPEN#2024-01-01#w-2",
                    "STATUS#OPEN#2024-01-15#w-3", "STATUS#OPEN#2024-01-31#w-4", "STATUS#OPEN#2024-02-01#w-5")) {
                t.putItem(Item.builder().s("pk", "REGION#north").s("sk", sk).s("customer", "c").build());
            }
            Page all = t.query(new Query("pk = :r").value(":r", s("REGION#north")));
            assertThat(all.items()).extracting(i -> ((AttributeValue.S) i.get("sk")).value()).first()
                    .asString().startsWith("STATUS#DONE#");
            Page january = t.query(new Query("pk = :r AND sk BETWEEN :a AND :b").value(":r", s("REGION#north"))
                    .value(":a", s("STATUS#OPEN#2024-01-01")).value(":b", s("STATUS#OPEN#2024-01-31#\uFFFF")));
            assertThat(january.items()).extracting(i -> i.get("sk")).containsExactly(
                    s("STATUS#OPEN#2024-01-01#w-2"), s("STATUS#OPEN#2024-01-15#w-3"), s("STATUS#OPEN#2024-01-31#w-4"));
            Page open = t.query(new Query("pk = :r AND begins_with(sk, :p)").value(":r", s("REGION#north"))
                    .value(":p", s("STATUS#OPEN#")).scanIndexForward(false).limit(2));
            assertThat(open.items()).extracting(i -> i.get("sk")).containsExactly(
                    s("STATUS#OPEN#2024-02-01#w-5"), s("STATUS#OPEN#2024-01-31#w-4"));
            Page rest = t.query(new Query("pk = :r AND begins_with(sk, :p)").value(":r", s("REGION#north"))
                    .value(":p", s("STATUS#OPEN#")).scanIndexForward(false).exclusiveStartKey(open.lastEvaluatedKey()));
            assertThat(rest.items()).hasSize(2);
            assertThat(rest.hasMore()).isFalse();
        }
    }

    @Test
    void shouldUpdateConditionallyAndRunTransactionsAllOrNothing() {
        try (Database db = Database.open(DIR, mem(new MemVfs()))) {
            db.createTable(TableSpec.builder("Counters").partitionKey("id", AttributeValue.Type.S).build());
            Table t = db.table("Counters");
            Key a = Key.of("id", s("a"));
            Key b = Key.of("id", s("b"));
            assertThat(t.updateItem(new UpdateItem(a).update("ADD c :one").value(":one", n(1))
                    .returnValues(ReturnValues.ALL_NEW))).get().isEqualTo(Item.builder().s("id", "a").n("c", 1).build());
            assertThatThrownBy(() -> t.updateItem(new UpdateItem(a).update("SET c = c + :one").condition("c > :one")
                    .values(Map.of(":one", n(1))))).isInstanceOf(ConditionalCheckFailedException.class);
            assertThatThrownBy(() -> db.transactWriteItems(List.of(
                    new TransactWrite("Counters", new PutItem(Item.builder().s("id", "b").build())),
                    new TransactWrite("Counters", new ConditionCheck(a, "c = :two").value(":two", n(2))))))
                    .isInstanceOfSatisfying(TransactionCanceledException.class, e -> assertThat(e.reasons())
                            .extracting(CancellationReason::code).containsExactly("None", "ConditionalCheckFailed"));
            assertThat(t.getItem(b)).isEmpty();
            db.transactWriteItems(List.of(
                    new TransactWrite("Counters", new PutItem(Item.builder().s("id", "b").build())),
                    new TransactWrite("Counters", new UpdateItem(a).update("ADD c :one").value(":one", n(1)))), "tok-1");
            db.transactWriteItems(List.of(
                    new TransactWrite("Counters", new PutItem(Item.builder().s("id", "b").build())),
                    new TransactWrite("Counters", new UpdateItem(a).update("ADD c :one").value(":one", n(1)))), "tok-1");
            assertThat(t.getItem(a)).get().extracting(i -> i.get("c")).isEqualTo(n(2));
            assertThat(db.transactGetItems(List.of(new TransactGet("Counters", new GetItem(a)),
                    new TransactGet("Counters", new GetItem(b))))).allMatch(java.util.Optional::isPresent);
            Page scan = t.scan(new Scan());
            assertThat(scan.count()).isEqualTo(2);
        }
    }

    @Test
    void shouldIgnoreARemoveBelowAMissingParentOnAnItemThatDoesNotExist() {
        try (Database db = Database.open(DIR, mem(new MemVfs()))) {
            db.createTable(TableSpec.builder("Items").partitionKey("pk", AttributeValue.Type.S).build());
            Key key = Key.of("pk", s("k"));
            // DynamoDB: no item, nothing to refuse; the update creates nothing (it adds no attribute).
            db.updateItem("Items", new UpdateItem(key).update("REMOVE ghost.a, spirit[0]"));
            assertThat(db.getItem("Items", new GetItem(key))).isEmpty();
            // On an item that exists, the same path is refused.
            db.putItem("Items", new PutItem(Item.builder().s("pk", "k").build()));
            assertThatThrownBy(() -> db.updateItem("Items", new UpdateItem(key).update("REMOVE ghost.a")))
                    .isInstanceOf(ValidationException.class).hasMessageContaining("invalid for update");
        }
    }
}
