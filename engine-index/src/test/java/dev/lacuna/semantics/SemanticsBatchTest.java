package dev.lacuna.semantics;

import dev.lacuna.AttributeValue;
import dev.lacuna.BatchGetItem;
import dev.lacuna.BatchGetResult;
import dev.lacuna.BatchWriteItem;
import dev.lacuna.Database;
import dev.lacuna.GetItem;
import dev.lacuna.Item;
import dev.lacuna.Query;
import dev.lacuna.ResourceNotFoundException;
import dev.lacuna.Scan;
import dev.lacuna.Table;
import dev.lacuna.TransactWrite;
import dev.lacuna.ValidationException;
import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.s;
import static dev.lacuna.semantics.SemanticsFixtures.filler;
import static dev.lacuna.semantics.SemanticsFixtures.key;
import static dev.lacuna.semantics.SemanticsFixtures.memDb;
import static dev.lacuna.semantics.SemanticsFixtures.stringTable;
import static dev.lacuna.semantics.SemanticsFixtures.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.item.ItemSize;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * batchGetItem and batchWriteItem as DynamoDB defines them: across tables, missing items simply absent,
 * deletes of absent items fine, and a request DynamoDB would reject as a whole (too many keys, one key
 * twice, a key not matching the schema, an unknown table) rejected before anything is written.
 */
class SemanticsBatchTest {
    private Database db;
    private Table tickets;
    private Table orders;

    @BeforeEach
    void open() {
        db = memDb();
        tickets = table(db, "Tickets", AttributeValue.Type.S, null);
        orders = stringTable(db, "Orders");
    }

    @AfterEach
    void close() {
        db.close();
    }

    private static Item ticket(String id, String subject) {
        return Item.builder().s("pk", id).s("subject", subject).build();
    }

    private static Item order(String region, String sk) {
        return Item.builder().s("pk", region).s("sk", sk).n("qty", 1).build();
    }

    @Test
    void shouldWriteAndDeleteAcrossTablesInOneBatch() {
        tickets.putItem(ticket("T1", "old"));
        orders.putItem(order("R1", "o1"));
        List<TransactWrite> unprocessed = db.batchWriteItem(new BatchWriteItem()
                .put("Tickets", ticket("T1", "new"))
                .put("Tickets", ticket("T2", "second"))
                .put("Orders", order("R1", "o2"))
                .delete("Orders", key("R1", "o1"))
                .delete("Tickets", key("T-absent")));
        assertThat(unprocessed).isEmpty();
        assertThat(tickets.getItem(key("T1"))).contains(ticket("T1", "new"));
        assertThat(tickets.getItem(key("T2"))).contains(ticket("T2", "second"));
        assertThat(tickets.getItem(key("T-absent"))).isEmpty();
        assertThat(orders.getItem(key("R1", "o1"))).isEmpty();
        assertThat(orders.getItem(key("R1", "o2"))).contains(order("R1", "o2"));
    }

    @Test
    void shouldReadAcrossTablesLeavingMissingItemsOut() {
        tickets.putItem(ticket("T1", "one"));
        tickets.putItem(ticket("T2", "two"));
        orders.putItem(order("R1", "o1"));
        BatchGetResult result = db.batchGetItem(new BatchGetItem()
                .get("Tickets", key("T1"))
                .get("Tickets", key("T-missing"))
                .get("Orders", new GetItem(key("R1", "o1")).projection("#q").name("#q", "qty"))
                .get("Orders", key("R1", "o-missing"))
                .get("Tickets", key("T2")));
        assertThat(result.unprocessed()).isEmpty();
        assertThat(result.responses().keySet()).containsExactlyInAnyOrder("Tickets", "Orders");
        // DynamoDB does not promise an order within a table's responses
        assertThat(result.responses().get("Tickets")).containsExactlyInAnyOrder(ticket("T1", "one"), ticket("T2", "two"));
        assertThat(result.responses().get("Orders")).containsExactly(Item.of(Map.of("qty", n(1))));
        BatchGetResult nothing = db.batchGetItem(new BatchGetItem().get("Tickets", key("T-missing")));
        assertThat(nothing.responses().getOrDefault("Tickets", List.of())).isEmpty();
        assertThat(nothing.unprocessed()).isEmpty();
    }

    @Test
    void shouldRejectAWholeBatchDynamoDbWouldReject() {
        tickets.putItem(ticket("T1", "kept"));
        BatchWriteItem tooMany = new BatchWriteItem();
        for (int i = 0; i < 26; i++) {
            tooMany.put("Tickets", ticket("N" + i, "x"));
        }
        List<BatchWriteItem> invalid = List.of(
                tooMany,
                new BatchWriteItem().put("Tickets", ticket("N1", "x")).delete("Tickets", key("N1")),
                new BatchWriteItem().put("Tickets", ticket("N1", "x")).put("Tickets", ticket("N1", "y")),
                new BatchWriteItem().put("Tickets", ticket("N1", "x")).put("Orders", ticket("N2", "no sort key")),
                new BatchWriteItem().put("Tickets", ticket("N1", "x")).delete("Tickets", key("N2", "extra")),
                new BatchWriteItem().put("Tickets", ticket("N1", "x"))
                        .put("Tickets", Item.builder().s("pk", "N2").s("big", filler(410_000)).build()),
                new BatchWriteItem().put("Tickets", Item.builder().n("pk", 1).build()),
                new BatchWriteItem());
        for (BatchWriteItem batch : invalid) {
            assertThatThrownBy(() -> db.batchWriteItem(batch)).isInstanceOf(ValidationException.class);
        }
        assertThatThrownBy(() -> db.batchWriteItem(new BatchWriteItem().put("Tickets", ticket("N1", "x"))
                .put("NoSuchTable", ticket("N2", "x")))).isInstanceOf(ResourceNotFoundException.class);
        assertThat(tickets.scan(new Scan()).items()).containsExactly(ticket("T1", "kept"));

        BatchGetItem tooManyKeys = new BatchGetItem();
        for (int i = 0; i < 101; i++) {
            tooManyKeys.get("Tickets", key("K" + i));
        }
        assertThatThrownBy(() -> db.batchGetItem(tooManyKeys)).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> db.batchGetItem(new BatchGetItem().get("Tickets", key("T1")).get("Tickets", key("T1"))))
                .isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> db.batchGetItem(new BatchGetItem().get("Orders", key("R1"))))
                .isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> db.batchGetItem(new BatchGetItem().get("NoSuchTable", key("T1"))))
                .isInstanceOf(ResourceNotFoundException.class);
        BatchGetItem hundred = new BatchGetItem();
        for (int i = 0; i < 100; i++) {
            hundred.get("Tickets", key(i == 0 ? "T1" : "K" + i));
        }
        assertThat(db.batchGetItem(hundred).responses().get("Tickets")).containsExactly(ticket("T1", "kept"));
    }

    @Test
    void shouldAcceptTheLargestBatchDynamoDbAccepts() {
        BatchWriteItem batch = new BatchWriteItem();
        for (int i = 0; i < 25; i++) {
            batch.put(i % 2 == 0 ? "Tickets" : "Orders", i % 2 == 0 ? ticket("T" + i, "s") : order("R", "o" + i));
        }
        assertThat(db.batchWriteItem(batch)).isEmpty();
        assertThat(tickets.scan(new Scan()).count() + orders.scan(new Scan()).count()).isEqualTo(25);
        assertThat(orders.query(new Query("pk = :r").value(":r", s("R"))).count()).isEqualTo(12);
    }

    @Test
    void shouldReturnWhatDoesNotFitSixteenMegabytesAsUnprocessed() {
        int total = 50; // of about 390 KB each: some 19 MB in all
        BatchGetItem all = new BatchGetItem();
        for (int i = 0; i < total; i++) {
            tickets.putItem(Item.builder().s("pk", "B" + i).s("d", filler(390_000)).build());
            all.get("Tickets", key("B" + i));
        }
        BatchGetResult first = db.batchGetItem(all);
        List<Item> got = first.responses().get("Tickets");
        // the response stays within 16 MB; the rest is handed back to ask again, never dropped
        assertThat(got.stream().mapToLong(ItemSize::of).sum()).isLessThanOrEqualTo(16L << 20);
        assertThat(first.unprocessed()).isNotEmpty();
        assertThat(got.size() + first.unprocessed().size()).isEqualTo(total);
        BatchGetItem again = new BatchGetItem();
        first.unprocessed().forEach(g -> again.get(g.table(), g.get()));
        BatchGetResult second = db.batchGetItem(again);
        assertThat(second.unprocessed()).isEmpty();
        Set<AttributeValue> keys = new HashSet<>();
        got.forEach(i -> keys.add(i.get("pk")));
        second.responses().get("Tickets").forEach(i -> keys.add(i.get("pk")));
        assertThat(keys).hasSize(total);
    }
}
