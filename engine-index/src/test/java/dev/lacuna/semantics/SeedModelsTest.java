package dev.lacuna.semantics;

import dev.lacuna.AttributeValue;
import dev.lacuna.CancellationReason;
import dev.lacuna.ConditionalCheckFailedException;
import dev.lacuna.Database;
import dev.lacuna.DeleteItem;
import dev.lacuna.GetItem;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.KeyAttribute;
import dev.lacuna.Page;
import dev.lacuna.PutItem;
import dev.lacuna.Query;
import dev.lacuna.ReturnValues;
import dev.lacuna.Scan;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.TransactGet;
import dev.lacuna.TransactWrite;
import dev.lacuna.TransactionCanceledException;
import dev.lacuna.UpdateItem;
import dev.lacuna.ValidationException;
import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.s;
import static dev.lacuna.semantics.SemanticsFixtures.column;
import static dev.lacuna.semantics.SemanticsFixtures.key;
import static dev.lacuna.semantics.SemanticsFixtures.memDb;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The three seed data models (/work/shared/seeds): the helpdesk queue, field-service work orders with a
 * composite sort key, and the CRM's contact with its tag rows. Their GSIs are declared (so that index key
 * types are enforced) but not yet maintained, so only base-table behaviour is checked here.
 */
class SeedModelsTest {
    private static final IndexSpec GSI1 = IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK"));

    private Database db;

    @BeforeEach
    void open() {
        db = memDb();
    }

    @AfterEach
    void close() {
        db.close();
    }

    // ---- helpdesk: closing a ticket removes its index keys

    private static Item ticket(int id, String subject, long openedAt) {
        return Item.builder().s("pk", "TICKET#" + id).s("subject", subject).s("status", "OPEN").s("assignee", "ana")
                .n("openedAt", openedAt).s("GSI1PK", "QUEUE#open").s("GSI1SK", Long.toString(openedAt)).build();
    }

    @Test
    void shouldCloseAHelpdeskTicketByRemovingItsIndexKeys() {
        db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S).index(GSI1).build());
        Table t = db.table("Tickets");
        for (int id = 1; id <= 3; id++) {
            t.putItem(ticket(id, "printer " + id, 1_700_000_000L + id));
        }
        // "status" is a reserved word: it must go through a #name placeholder, exactly as in DynamoDB
        assertThatThrownBy(() -> t.updateItem(new UpdateItem(key("TICKET#2"))
                .update("SET status = :closed REMOVE GSI1PK, GSI1SK").value(":closed", s("CLOSED"))))
                .isInstanceOf(ValidationException.class);
        Optional<Item> closed = t.updateItem(new UpdateItem(key("TICKET#2"))
                .update("SET #s = :closed REMOVE GSI1PK, GSI1SK").name("#s", "status").value(":closed", s("CLOSED"))
                .condition("#s = :open").value(":open", s("OPEN")).returnValues(ReturnValues.ALL_NEW));
        Item expected = Item.builder().s("pk", "TICKET#2").s("subject", "printer 2").s("status", "CLOSED")
                .s("assignee", "ana").n("openedAt", 1_700_000_002L).build();
        assertThat(closed).contains(expected);
        assertThat(t.getItem(key("TICKET#2"))).contains(expected);
        assertThat(t.getItem(key("TICKET#1"))).contains(ticket(1, "printer 1", 1_700_000_001L));
        // closing again fails its condition; the base table's open set is what the index would hold
        assertThatThrownBy(() -> t.updateItem(new UpdateItem(key("TICKET#2")).update("SET #s = :closed")
                .name("#s", "status").value(":closed", s("CLOSED")).condition("#s = :open").value(":open", s("OPEN"))))
                .isInstanceOf(ConditionalCheckFailedException.class);
        assertThat(column(t.scan(new Scan().filter("attribute_exists(GSI1PK)")).items(), "pk"))
                .containsExactlyInAnyOrder(s("TICKET#1"), s("TICKET#3"));
        // the index key attributes are typed: a number where GSI1SK is a string is refused at write time
        assertThatThrownBy(() -> t.putItem(Item.builder().s("pk", "TICKET#4").s("GSI1PK", "QUEUE#open")
                .n("GSI1SK", 5).build())).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> t.updateItem(new UpdateItem(key("TICKET#1")).update("SET GSI1PK = :n")
                .value(":n", n(1)))).isInstanceOf(ValidationException.class);
        assertThat(t.getItem(key("TICKET#4"))).isEmpty();
        assertThat(t.getItem(key("TICKET#1"))).contains(ticket(1, "printer 1", 1_700_000_001L));
    }

    // ---- field-service: status and date packed into the sort key

    private static final List<String> NORTH = List.of(
            "STATUS#DONE#2023-12-30#w-0990", "STATUS#DONE#2024-01-03#w-1001",
            "STATUS#OPEN#2023-12-31#w-2001", "STATUS#OPEN#2024-01-01#w-2002", "STATUS#OPEN#2024-01-15#w-2003",
            "STATUS#OPEN#2024-01-31#w-2004", "STATUS#OPEN#2024-01-31#w-2314", "STATUS#OPEN#2024-02-01#w-2005");

    private Table workOrders() {
        db.createTable(TableSpec.builder("WorkOrders").partitionKey("pk", AttributeValue.Type.S)
                .sortKey("sk", AttributeValue.Type.S).build());
        Table t = db.table("WorkOrders");
        for (int i = NORTH.size() - 1; i >= 0; i--) {
            t.putItem(order("REGION#north", NORTH.get(i)));
        }
        t.putItem(order("REGION#south", "STATUS#OPEN#2024-01-15#w-3001"));
        return t;
    }

    private static Item order(String region, String sk) {
        return Item.builder().s("pk", region).s("sk", sk).s("customer", "c-" + sk.hashCode()).s("engineer", "eli")
                .n("scheduledAt", 1_704_067_200L).build();
    }

    private static Query north(String sortCondition) {
        return new Query("pk = :r" + (sortCondition.isEmpty() ? "" : " AND " + sortCondition))
                .value(":r", s("REGION#north"));
    }

    @Test
    void shouldAnswerWorkOrderRangesFromTheCompositeSortKey() {
        Table t = workOrders();
        // the whole region: DONE before OPEN, dates in order within each
        assertThat(column(t.query(north("")).items(), "sk")).isEqualTo(NORTH.stream().map(AttributeValue::s).toList());
        // the seed's range: the upper bound must reach past the order ids of the last day
        Page january = t.query(north("sk BETWEEN :from AND :to").value(":from", s("STATUS#OPEN#2024-01-01"))
                .value(":to", s("STATUS#OPEN#2024-01-31#\uFFFF")));
        assertThat(column(january.items(), "sk")).containsExactly(s("STATUS#OPEN#2024-01-01#w-2002"),
                s("STATUS#OPEN#2024-01-15#w-2003"), s("STATUS#OPEN#2024-01-31#w-2004"), s("STATUS#OPEN#2024-01-31#w-2314"));
        // …which is exactly what the naive bound silently misses
        Page naive = t.query(north("sk BETWEEN :from AND :to").value(":from", s("STATUS#OPEN#2024-01-01"))
                .value(":to", s("STATUS#OPEN#2024-01-31")));
        assertThat(column(naive.items(), "sk")).containsExactly(s("STATUS#OPEN#2024-01-01#w-2002"),
                s("STATUS#OPEN#2024-01-15#w-2003"));
        // begins_with returns exactly the open block, reading nothing before it
        Page open = t.query(north("begins_with(sk, :p)").value(":p", s("STATUS#OPEN#")));
        assertThat(column(open.items(), "sk")).isEqualTo(NORTH.subList(2, NORTH.size()).stream().map(AttributeValue::s)
                .toList());
        assertThat(open.scannedCount()).isEqualTo(NORTH.size() - 2);
        assertThat(t.getItem(key("REGION#north", "STATUS#OPEN#2024-01-31#w-2314")))
                .contains(order("REGION#north", "STATUS#OPEN#2024-01-31#w-2314"));
    }

    @Test
    void shouldCloseAWorkOrderAsOneTransactionOfDeleteAndPut() {
        Table t = workOrders();
        String openSk = "STATUS#OPEN#2024-01-31#w-2314";
        String doneSk = "STATUS#DONE#2024-01-31#w-2314";
        Item job = t.getItem(key("REGION#north", openSk)).orElseThrow();
        List<TransactWrite> close = List.of(
                new TransactWrite("WorkOrders", new DeleteItem(key("REGION#north", openSk)).condition("attribute_exists(sk)")),
                new TransactWrite("WorkOrders", new PutItem(job.with("sk", s(doneSk))).condition("attribute_not_exists(sk)")));
        db.transactWriteItems(close, "close-w-2314");
        List<Optional<Item>> both = db.transactGetItems(List.of(
                new TransactGet("WorkOrders", new GetItem(key("REGION#north", openSk))),
                new TransactGet("WorkOrders", new GetItem(key("REGION#north", doneSk)))));
        assertThat(both).containsExactly(Optional.empty(), Optional.of(job.with("sk", s(doneSk))));
        assertThat(column(t.query(north("begins_with(sk, :p)").value(":p", s("STATUS#DONE#"))).items(), "sk"))
                .containsExactly(s("STATUS#DONE#2023-12-30#w-0990"), s("STATUS#DONE#2024-01-03#w-1001"), s(doneSk));
        assertThat(column(t.query(north("begins_with(sk, :p)").value(":p", s("STATUS#OPEN#"))).items(), "sk"))
                .doesNotContain(s(openSk)).hasSize(5);
        // closing again without the token: both conditions fail, nothing changes
        assertThatThrownBy(() -> db.transactWriteItems(close)).isInstanceOfSatisfying(TransactionCanceledException.class,
                e -> assertThat(e.reasons()).extracting(CancellationReason::code)
                        .containsExactly("ConditionalCheckFailed", "ConditionalCheckFailed"));
        // a retry with the token is a no-op that succeeds
        db.transactWriteItems(close, "close-w-2314");
        assertThat(t.query(north("")).count()).isEqualTo(NORTH.size());
    }

    // ---- CRM: a contact and its tags in one item collection

    @Test
    void shouldReadAContactWithItsTagsInOneQueryAndTagByPuttingAndDeletingRows() {
        db.createTable(TableSpec.builder("Contacts").partitionKey("pk", AttributeValue.Type.S)
                .sortKey("sk", AttributeValue.Type.S).index(GSI1).build());
        Table t = db.table("Contacts");
        Item nadia = Item.builder().s("pk", "CONTACT#nadia").s("sk", "PROFILE").s("name", "Nadia").s("company", "Halden Mill")
                .n("lastSeenAt", 1_704_067_200L).s("GSI1PK", "COMPANY#halden-mill").s("GSI1SK", "Nadia").build();
        t.putItem(nadia);
        t.putItem(tag("nadia", "Nadia", "decision-maker"));
        t.putItem(Item.builder().s("pk", "CONTACT#priya").s("sk", "PROFILE").s("name", "Priya").build());
        t.putItem(tag("priya", "Priya", "decision-maker"));
        Query collection = new Query("pk = :c").value(":c", s("CONTACT#nadia"));
        assertThat(t.query(collection).items()).containsExactly(nadia, tag("nadia", "Nadia", "decision-maker"));
        // adding a tag is a put of a row; the profile does not change
        t.putItem(tag("nadia", "Nadia", "budget-owner"));
        Page tagged = t.query(collection);
        assertThat(column(tagged.items(), "sk")).containsExactly(s("PROFILE"), s("TAG#budget-owner"),
                s("TAG#decision-maker"));
        assertThat(tagged.items().get(0)).isEqualTo(nadia);
        assertThat(column(t.query(new Query("pk = :c AND begins_with(sk, :t)").value(":c", s("CONTACT#nadia"))
                .value(":t", s("TAG#"))).items(), "GSI1PK")).containsExactly(s("TAG#budget-owner"), s("TAG#decision-maker"));
        // removing one is a delete of the row
        t.deleteItem(key("CONTACT#nadia", "TAG#decision-maker"));
        assertThat(t.query(collection).items()).containsExactly(nadia, tag("nadia", "Nadia", "budget-owner"));
        assertThat(t.query(new Query("pk = :c").value(":c", s("CONTACT#priya"))).count()).isEqualTo(2);
    }

    private static Item tag(String contact, String name, String tag) {
        return Item.builder().s("pk", "CONTACT#" + contact).s("sk", "TAG#" + tag).s("GSI1PK", "TAG#" + tag)
                .s("GSI1SK", name).build();
    }
}
