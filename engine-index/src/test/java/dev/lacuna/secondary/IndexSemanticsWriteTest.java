package dev.lacuna.secondary;

import dev.lacuna.IndexStatus;
import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.s;
import static dev.lacuna.secondary.IndexSemanticsTest.GSI1;
import static dev.lacuna.secondary.IndexSemanticsTest.column;
import static dev.lacuna.secondary.IndexSemanticsTest.gsi;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.BatchWriteItem;
import dev.lacuna.CancellationReason;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexDescription;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.KeyAttribute;
import dev.lacuna.Page;
import dev.lacuna.PutItem;
import dev.lacuna.Query;
import dev.lacuna.Scan;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.TransactWrite;
import dev.lacuna.TransactionCanceledException;
import dev.lacuna.UpdateItem;
import dev.lacuna.ValidationException;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Index keys at write time (a wrong type, an empty string or binary, or NULL where an index key is present is
 * a ValidationException in every write path, and nothing is written, to the table or its indexes), local
 * indexes (strongly consistent, sparse), and what describeTable reports of indexes.
 */
class IndexSemanticsWriteTest {
    /** Values no index key of type S may hold: another type, empty, NULL. */
    private static final Map<String, AttributeValue> BAD = badValues();

    private Database db;
    private Table t;

    private static Map<String, AttributeValue> badValues() {
        Map<String, AttributeValue> bad = new LinkedHashMap<>();
        bad.put("a number", n(1));
        bad.put("an empty string", s(""));
        bad.put("NULL", AttributeValue.nul());
        bad.put("a binary", AttributeValue.b(new byte[] {1}));
        bad.put("a string set", AttributeValue.ss("x"));
        return bad;
    }

    @BeforeEach
    void open() {
        db = Database.open(Path.of("/db"), DatabaseOptions.builder().vfs(new MemVfs()).build());
        db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
                .sortKey("sk", AttributeValue.Type.S)
                .index(GSI1).index(IndexSpec.local("ByDue", KeyAttribute.s("due"))).build());
        t = db.table("Tickets");
        t.putItem(good("t-1", "100"));
        t.putItem(good("t-2", "200"));
    }

    @AfterEach
    void close() {
        db.close();
    }

    private static Item good(String id, String at) {
        return Item.builder().s("pk", id).s("sk", "v").s("status", "OPEN").s("GSI1PK", "QUEUE#open").s("GSI1SK", at)
                .s("due", "2024-05-" + at).build();
    }

    private static Key key(String id) {
        return Key.of("pk", s(id), "sk", s("v"));
    }

    /** The table, GSI1 and ByDue hold exactly t-1 and t-2, as first written. */
    private void assertUnchanged() {
        assertThat(t.getItem(key("t-1"))).contains(good("t-1", "100"));
        assertThat(t.getItem(key("t-2"))).contains(good("t-2", "200"));
        assertThat(t.scan(new Scan()).items()).hasSize(2);
        Page queue = t.query(gsi("QUEUE#open"));
        assertThat(queue.items()).containsExactly(good("t-1", "100"), good("t-2", "200"));
        assertThat(t.scan(new Scan().index("GSI1")).items()).hasSize(2); // after the query, so the updater caught up
        assertThat(t.scan(new Scan().index("ByDue")).items())
                .containsExactlyInAnyOrder(good("t-1", "100"), good("t-2", "200"));
    }

    @Test
    void shouldRejectABadIndexKeyInAPutAndWriteNothing() {
        for (Map.Entry<String, AttributeValue> bad : BAD.entrySet()) {
            for (String attribute : List.of("GSI1PK", "GSI1SK", "due")) {
                Item item = good("t-9", "900").with(attribute, bad.getValue());
                assertThatThrownBy(() -> t.putItem(item)).as("%s = %s", attribute, bad.getKey())
                        .isInstanceOf(ValidationException.class).hasMessageContaining(attribute);
                // replacing a good item is refused just the same, and leaves it as it was
                Item replacing = good("t-1", "100").with(attribute, bad.getValue());
                assertThatThrownBy(() -> t.putItem(replacing)).isInstanceOf(ValidationException.class);
            }
        }
        assertUnchanged();
    }

    @Test
    void shouldRejectAnUpdateThatGivesAnIndexKeyABadValueAndWriteNothing() {
        for (Map.Entry<String, AttributeValue> bad : BAD.entrySet()) {
            for (String attribute : List.of("GSI1PK", "GSI1SK", "due")) {
                assertThatThrownBy(() -> t.updateItem(new UpdateItem(key("t-1")).update("SET #a = :v, #s = :c")
                        .name("#a", attribute).name("#s", "status").value(":v", bad.getValue()).value(":c", s("CLOSED"))))
                        .as("SET %s = %s", attribute, bad.getKey()).isInstanceOf(ValidationException.class);
                // an update that would create the item is refused too
                assertThatThrownBy(() -> t.updateItem(new UpdateItem(key("t-9")).update("SET #a = :v")
                        .name("#a", attribute).value(":v", bad.getValue()))).isInstanceOf(ValidationException.class);
            }
        }
        assertThatThrownBy(() -> t.updateItem(new UpdateItem(key("t-2")).update("SET GSI1PK = :n").value(":n", n(7))))
                .isInstanceOf(ValidationException.class).hasMessageContaining("GSI1PK");
        assertUnchanged();
    }

    @Test
    void shouldRejectABadIndexKeyInATransactionAndWriteNoneOfIt() {
        for (AttributeValue bad : BAD.values()) {
            // a put carries its bad value in the request: refused before anything runs
            assertThatThrownBy(() -> db.transactWriteItems(List.of(
                    new TransactWrite("Tickets", new PutItem(good("t-3", "300"))),
                    new TransactWrite("Tickets", new PutItem(good("t-4", "400").with("GSI1SK", bad))))))
                    .isInstanceOf(ValidationException.class);
            // an update makes a bad item only against the stored one: DynamoDB cancels with ValidationError
            assertThatThrownBy(() -> db.transactWriteItems(List.of(
                    new TransactWrite("Tickets", new PutItem(good("t-3", "300"))),
                    new TransactWrite("Tickets", new UpdateItem(key("t-1")).update("SET GSI1PK = :v").value(":v", bad)))))
                    .isInstanceOfSatisfying(TransactionCanceledException.class, e -> assertThat(e.reasons())
                            .extracting(CancellationReason::code).containsExactly("None", "ValidationError"));
        }
        assertUnchanged();
    }

    @Test
    void shouldRejectAWholeBatchWithOneBadIndexKey() {
        for (AttributeValue bad : BAD.values()) {
            BatchWriteItem batch = new BatchWriteItem();
            for (int i = 3; i < 10; i++) {
                batch.put("Tickets", good("t-" + i, i + "00"));
            }
            batch.put("Tickets", good("t-10", "1000").with("GSI1PK", bad));
            batch.delete("Tickets", key("t-1"));
            assertThatThrownBy(() -> db.batchWriteItem(batch)).isInstanceOf(ValidationException.class);
        }
        assertUnchanged();
    }

    // ---- local secondary indexes

    @Test
    void shouldSeeEveryWriteInALocalIndexAtOnceWithoutReadYourWrites() {
        List<String> dues = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            String due = String.format("2025-%03d", (i * 37) % 300); // not in write order
            t.putItem(Item.builder().s("pk", "cust").s("sk", "o-" + i).s("due", due).build());
            dues.add(due);
            // strongly consistent: the write is in the index the moment it returns
            Page page = t.query(new Query("pk = :p AND due = :d").index("ByDue").value(":p", s("cust")).value(":d", s(due)));
            assertThat(column(page, "sk")).containsExactly("o-" + i);
        }
        Query all = new Query("pk = :p").index("ByDue").value(":p", s("cust"));
        assertThat(column(t.query(all), "due")).hasSize(300).isSorted();
        assertThat(column(t.query(all.scanIndexForward(false)), "due")).hasSize(300)
                .isSortedAccordingTo(java.util.Comparator.reverseOrder());

        // moved, removed and deleted at once too
        t.updateItem(new UpdateItem(Key.of("pk", s("cust"), "sk", s("o-0"))).update("SET due = :d")
                .value(":d", s("2026-000")));
        Query forward = new Query("pk = :p").index("ByDue").value(":p", s("cust"));
        List<String> sks = column(t.query(forward), "sk");
        assertThat(sks.get(sks.size() - 1)).isEqualTo("o-0");
        t.updateItem(new UpdateItem(Key.of("pk", s("cust"), "sk", s("o-1"))).update("REMOVE due"));
        t.deleteItem(Key.of("pk", s("cust"), "sk", s("o-2")));
        Page after = t.query(forward);
        assertThat(column(after, "sk")).hasSize(298).doesNotContain("o-1", "o-2");
        assertThat(t.query(new Query("pk = :p AND due BETWEEN :a AND :b").index("ByDue").value(":p", s("cust"))
                .value(":a", s("2025-010")).value(":b", s("2025-012")).scanIndexForward(false)).items())
                .extracting(i -> i.get("due")).containsExactly(s("2025-012"), s("2025-011"), s("2025-010"));
    }

    @Test
    void shouldLeaveItemsWithoutTheLocalSortKeyOutOfTheLocalIndex() {
        t.putItem(Item.builder().s("pk", "t-1").s("sk", "note").s("text", "no due date").build());
        t.putItem(Item.builder().s("pk", "t-1").s("sk", "task").s("due", "2024-01-01").build());
        Page page = t.query(new Query("pk = :p").index("ByDue").value(":p", s("t-1")));
        assertThat(column(page, "sk")).containsExactly("task", "v"); // 2024-01-01 before 2024-05-100
        assertThat(t.query(new Query("pk = :p").value(":p", s("t-1"))).items()).hasSize(3);
        // pages of a local index carry the table's key and the index sort key
        Page first = t.query(new Query("pk = :p").index("ByDue").value(":p", s("t-1")).limit(1));
        assertThat(first.lastEvaluatedKey()).isEqualTo(Map.of("pk", s("t-1"), "sk", s("task"), "due", s("2024-01-01")));
        Page second = t.query(new Query("pk = :p").index("ByDue").value(":p", s("t-1")).limit(1)
                .exclusiveStartKey(first.lastEvaluatedKey()));
        assertThat(column(second, "sk")).containsExactly("v");
    }

    // ---- describeTable

    @Test
    void shouldDescribeIndexesAsActiveAndShowTheGlobalIndexFollowingTheLog() {
        IndexDescription gsi = db.describeTable("Tickets").index("GSI1");
        IndexDescription lsi = db.describeTable("Tickets").index("ByDue");
        assertThat(gsi.status()).isEqualTo(IndexStatus.ACTIVE);
        assertThat(lsi.status()).isEqualTo(IndexStatus.ACTIVE);
        assertThat(gsi.itemsDone()).isZero(); // created with the table: nothing to backfill
        assertThat(gsi.itemsTotal()).isZero();
        t.query(gsi("QUEUE#open"));
        long before = db.describeTable("Tickets").index("GSI1").appliedLsn();

        for (int i = 3; i <= 7; i++) {
            t.putItem(good("t-" + i, i + "00"));
        }
        assertThat(column(t.query(gsi("QUEUE#open")), "pk")).hasSize(7);
        IndexDescription after = db.describeTable("Tickets").index("GSI1");
        assertThat(after.status()).isEqualTo(IndexStatus.ACTIVE);
        assertThat(after.appliedLsn()).isGreaterThanOrEqualTo(before + 5); // one log record per put
        assertThat(after.lagLsn()).isZero();
        assertThat(after.lagMillis()).isZero();
        assertThat(db.describeTable("Tickets").index("ByDue").appliedLsn()).isEqualTo(after.appliedLsn());
        assertThat(db.describeTable("Tickets").index("Nope")).isNull();
    }
}
