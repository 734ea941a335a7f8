package dev.lacuna.secondary;

import static dev.lacuna.AttributeValue.s;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.DeleteItem;
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
import dev.lacuna.UpdateItem;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The three seed models (/work/shared/seeds) on real indexes, and what SEMANTICS.md says of sparse,
 * overloaded GSIs: an item is in an index only with both index keys; changing a key moves it; items with
 * the same index keys are all returned. GSI reads here use read-your-writes unless the test is about the
 * eventually consistent read. The static helpers are shared by the other IndexSemantics*Test classes.
 */
class IndexSemanticsTest {
    static final Duration WAIT = Duration.ofSeconds(30);
    static final IndexSpec GSI1 = IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK"));

    private Database db;

    @BeforeEach
    void open() {
        db = Database.open(Path.of("/db"), DatabaseOptions.builder().vfs(new MemVfs()).build());
    }

    @AfterEach
    void close() {
        db.close();
    }

    // ---- helpers shared by the IndexSemantics*Test classes

    /** A query of GSI1 for one index partition, waiting for the index to have applied every earlier write. */
    static Query gsi(String partition) {
        return new Query("GSI1PK = :p").index("GSI1").value(":p", s(partition)).readYourWrites(WAIT);
    }

    /** The string values of {@code attribute} in {@code items}, in order (null where absent). */
    static List<String> column(List<Item> items, String attribute) {
        List<String> out = new ArrayList<>();
        for (Item i : items) {
            AttributeValue v = i.get(attribute);
            out.add(v == null ? null : ((AttributeValue.S) v).value());
        }
        return out;
    }

    static List<String> column(Page page, String attribute) {
        return column(page.items(), attribute);
    }

    /** Every page of a read: {@code read} gets the start key (null first). Fails past {@code maxPages}. */
    static List<Page> allPages(Function<Map<String, AttributeValue>, Page> read, int maxPages) {
        List<Page> pages = new ArrayList<>();
        Map<String, AttributeValue> start = null;
        do {
            assertThat(pages).as("pages before the read ended").hasSizeLessThan(maxPages);
            Page page = read.apply(start);
            pages.add(page);
            start = page.lastEvaluatedKey();
        } while (start != null);
        return pages;
    }

    static List<Item> items(List<Page> pages) {
        List<Item> out = new ArrayList<>();
        pages.forEach(p -> out.addAll(p.items()));
        return out;
    }

    private Table crm() {
        db.createTable(TableSpec.builder("Contacts").partitionKey("pk", AttributeValue.Type.S)
                .sortKey("sk", AttributeValue.Type.S).index(GSI1).build());
        Table t = db.table("Contacts");
        contact(t, "c-101", "Nadia Okafor", "halden-mill", "decision-maker", "champion");
        contact(t, "c-102", "Tomas Berg", "halden-mill", "technical");
        contact(t, "c-103", "Aiko Tanaka", "halden-mill");
        contact(t, "c-201", "Priya Raman", "orrin-freight", "decision-maker");
        contact(t, "c-202", "Lars Quist", "orrin-freight", "technical");
        return t;
    }

    /** A PROFILE row in its company's index partition, and one TAG# row per tag in the tag's partition. */
    private static void contact(Table t, String id, String name, String company, String... tags) {
        t.putItem(Item.builder().s("pk", "CONTACT#" + id).s("sk", "PROFILE").s("name", name).s("company", company)
                .n("lastSeenAt", 1_717_000_000L).s("GSI1PK", "COMPANY#" + company).s("GSI1SK", name).build());
        for (String tag : tags) {
            tagRow(t, id, name, tag);
        }
    }

    private static void tagRow(Table t, String id, String name, String tag) {
        t.putItem(Item.builder().s("pk", "CONTACT#" + id).s("sk", "TAG#" + tag).s("GSI1PK", "TAG#" + tag)
                .s("GSI1SK", name).build());
    }

    // ---- sales CRM: one overloaded index, two questions

    @Test
    void shouldAnswerTheCompanyAndTheTagQuestionsFromOneIndex() {
        Table t = crm();
        Page company = t.query(gsi("COMPANY#halden-mill"));
        assertThat(column(company, "GSI1SK")).containsExactly("Aiko Tanaka", "Nadia Okafor", "Tomas Berg");
        assertThat(column(company, "sk")).containsOnly("PROFILE"); // only company rows match a COMPANY# key
        assertThat(column(company, "company")).containsOnly("halden-mill");

        Page tag = t.query(gsi("TAG#decision-maker"));
        assertThat(column(tag, "GSI1SK")).containsExactly("Nadia Okafor", "Priya Raman");
        assertThat(column(tag, "pk")).containsExactly("CONTACT#c-101", "CONTACT#c-201"); // across both companies
        assertThat(column(tag, "sk")).containsOnly("TAG#decision-maker");

        // the base table still answers "a contact and its tags" in one query
        Page person = t.query(new Query("pk = :p").value(":p", s("CONTACT#c-101")));
        assertThat(column(person, "sk")).containsExactly("PROFILE", "TAG#champion", "TAG#decision-maker");
    }

    @Test
    void shouldShowAnAddedTagAndForgetARemovedOne() {
        Table t = crm();
        tagRow(t, "c-103", "Aiko Tanaka", "decision-maker");
        assertThat(column(t.query(gsi("TAG#decision-maker")), "GSI1SK"))
                .containsExactly("Aiko Tanaka", "Nadia Okafor", "Priya Raman");

        t.deleteItem(Key.of("pk", s("CONTACT#c-101"), "sk", s("TAG#decision-maker")));
        assertThat(column(t.query(gsi("TAG#decision-maker")), "GSI1SK")).containsExactly("Aiko Tanaka", "Priya Raman");
        // the contact itself never changed: still at its company, still with its other tag
        assertThat(column(t.query(gsi("COMPANY#halden-mill")), "GSI1SK"))
                .containsExactly("Aiko Tanaka", "Nadia Okafor", "Tomas Berg");
        assertThat(column(t.query(gsi("TAG#champion")), "pk")).containsExactly("CONTACT#c-101");

        // removing the last row of a tag leaves its index partition empty, not missing
        t.deleteItem(Key.of("pk", s("CONTACT#c-101"), "sk", s("TAG#champion")));
        Page none = t.query(gsi("TAG#champion"));
        assertThat(none.items()).isEmpty();
        assertThat(none.hasMore()).isFalse();
    }

    // ---- field service: closing an order moves it between sort-key blocks, atomically (base table only)

    private static String order(String status, String date, String id) {
        return "STATUS#" + status + "#" + date + "#" + id;
    }

    @Test
    void shouldShowEveryWorkOrderUnderExactlyOneStatusWhileTransactionsCloseThem() throws Exception {
        db.createTable(TableSpec.builder("WorkOrders").partitionKey("pk", AttributeValue.Type.S)
                .sortKey("sk", AttributeValue.Type.S).build());
        Table t = db.table("WorkOrders");
        int orders = 60;
        for (int i = 0; i < orders; i++) {
            String date = String.format("2024-01-%02d", 1 + i % 28);
            String status = i % 5 == 0 ? "DONE" : "OPEN";
            t.putItem(Item.builder().s("pk", "REGION#north").s("sk", order(status, date, "w-" + (2300 + i)))
                    .s("orderId", "w-" + (2300 + i)).s("date", date).s("customer", "customer " + i)
                    .s("engineer", "eng-" + (i % 4)).n("scheduledAt", 1_704_067_200L + i).build());
        }
        t.putItem(Item.builder().s("pk", "REGION#south").s("sk", order("OPEN", "2024-01-02", "w-9000"))
                .s("orderId", "w-9000").s("date", "2024-01-02").build()); // another partition: never read below
        Query region = new Query("pk = :r").value(":r", s("REGION#north"));

        AtomicBoolean writerDone = new AtomicBoolean();
        AtomicReference<Throwable> readerFailure = new AtomicReference<>();
        AtomicInteger reads = new AtomicInteger();
        Thread reader = new Thread(() -> {
            try {
                boolean last;
                do {
                    last = writerDone.get(); // one more read after the writer has finished
                    checkEachOrderOnce(t.query(region), orders);
                    reads.incrementAndGet();
                } while (!last);
            } catch (Throwable e) {
                readerFailure.set(e);
            }
        }, "work-order-reader");
        reader.start();
        // Closing every order, then reopening every order, and so on: an odd number of rounds ends with all DONE.
        int rounds = Integer.getInteger("index.workorders.rounds", 5) | 1;
        try {
            for (int round = 0; round < rounds && readerFailure.get() == null; round++) {
                String from = round % 2 == 0 ? "#OPEN#" : "#DONE#";
                String to = round % 2 == 0 ? "#DONE#" : "#OPEN#";
                List<Item> moving = t.query(new Query("pk = :r AND begins_with(sk, :from)").value(":r", s("REGION#north"))
                        .value(":from", s("STATUS" + from))).items();
                for (int i = 0; i < moving.size(); i++) {
                    String sk = ((AttributeValue.S) moving.get(i).get("sk")).value();
                    db.transactWriteItems(List.of(
                            new TransactWrite("WorkOrders", new DeleteItem(Key.of("pk", s("REGION#north"), "sk", s(sk)))
                                    .condition("attribute_exists(sk)")),
                            new TransactWrite("WorkOrders", new PutItem(moving.get(i).with("sk", s(sk.replace(from, to))))
                                    .condition("attribute_not_exists(sk)"))));
                    if (i % 8 == 0) {
                        awaitReads(reads, readerFailure); // so that reads also meet rounds half done
                    }
                }
            }
        } finally {
            writerDone.set(true);
            reader.join(TimeUnit.SECONDS.toMillis(60));
        }
        assertThat(reader.isAlive()).isFalse();
        assertThat(readerFailure.get()).isNull();
        assertThat(reads.get()).isGreaterThan(rounds * (orders / 8) / 2);
        Page done = t.query(region);
        assertThat(column(done, "sk")).allMatch(sk -> sk.startsWith("STATUS#DONE#")).hasSize(orders);
        assertThat(column(done, "sk")).isSorted(); // by date within the block
    }

    /** Waits (at most {@link #WAIT}) until the reader has finished a read that began after this call. */
    private static void awaitReads(AtomicInteger reads, AtomicReference<Throwable> readerFailure) {
        int target = reads.get() + 2;
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (reads.get() < target && readerFailure.get() == null) {
            assertThat(System.nanoTime()).as("reader progress").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    /** One read of the region: every order exactly once, DONE block before OPEN block, dates in order in each. */
    private static void checkEachOrderOnce(Page page, int orders) {
        assertThat(page.hasMore()).isFalse(); // one page is one snapshot
        Map<String, Integer> seen = new HashMap<>();
        List<String> sks = column(page, "sk");
        for (String sk : sks) {
            String[] parts = sk.split("#");
            assertThat(parts[1]).isIn("OPEN", "DONE");
            seen.merge(parts[3], 1, Integer::sum);
        }
        assertThat(seen).hasSize(orders);
        assertThat(seen.values()).as("orders under two statuses in one read: %s", sks).containsOnly(1);
        assertThat(sks).isSorted();
    }

    // ---- helpdesk: a queue that holds exactly the open tickets

    private Table helpdesk() {
        db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S).index(GSI1).build());
        Table t = db.table("Tickets");
        long[] opened = {1_700_000_300L, 1_700_000_100L, 1_700_000_500L, 1_700_000_200L, 1_700_000_400L};
        for (int i = 0; i < opened.length; i++) { // written out of time order: the index must sort them
            t.putItem(Item.builder().s("pk", "TICKET#" + (i + 1)).s("subject", "subject " + i).s("status", "OPEN")
                    .s("assignee", "ana").n("openedAt", opened[i]).s("GSI1PK", "QUEUE#open")
                    .s("GSI1SK", "P2#" + opened[i]).build());
        }
        t.putItem(Item.builder().s("pk", "TICKET#6").s("subject", "old").s("status", "CLOSED").n("openedAt", 1L).build());
        return t;
    }

    private static UpdateItem closeTicket(String id) {
        return new UpdateItem(Key.of("pk", s(id))).update("SET #s = :c REMOVE GSI1PK, GSI1SK").name("#s", "status")
                .value(":c", s("CLOSED"));
    }

    @Test
    void shouldServeTheQueueOldestFirstAndDropAClosedTicketAtOnceWithReadYourWrites() {
        Table t = helpdesk();
        assertThat(column(t.query(gsi("QUEUE#open")), "pk"))
                .containsExactly("TICKET#2", "TICKET#4", "TICKET#1", "TICKET#5", "TICKET#3");

        t.updateItem(closeTicket("TICKET#4"));
        assertThat(column(t.query(gsi("QUEUE#open")), "pk")).containsExactly("TICKET#2", "TICKET#1", "TICKET#5", "TICKET#3");
        assertThat(t.getItem(Key.of("pk", s("TICKET#4"))).orElseThrow().get("status")).isEqualTo(s("CLOSED"));

        // urgent work sorts above old work: the policy lives in the index sort key
        t.updateItem(new UpdateItem(Key.of("pk", s("TICKET#3"))).update("SET GSI1SK = :p").value(":p", s("P1#1700000500")));
        Page page = t.query(gsi("QUEUE#open"));
        assertThat(column(page, "pk")).containsExactly("TICKET#3", "TICKET#2", "TICKET#1", "TICKET#5");
        assertThat(page.items().get(0)).isEqualTo(t.getItem(Key.of("pk", s("TICKET#3"))).orElseThrow()); // projection ALL
    }

    @Test
    void shouldShowTheSameQueueToAnEventuallyConsistentReadWithinATimeout() {
        Table t = helpdesk();
        List<String> before = column(t.query(gsi("QUEUE#open")), "pk");
        t.updateItem(closeTicket("TICKET#2"));
        t.updateItem(new UpdateItem(Key.of("pk", s("TICKET#5"))).update("SET GSI1SK = :p").value(":p", s("P1#1700000400")));
        List<String> after = List.of("TICKET#5", "TICKET#4", "TICKET#1", "TICKET#3");

        Query eventual = new Query("GSI1PK = :q").index("GSI1").value(":q", s("QUEUE#open"));
        List<String> afterClose = List.of("TICKET#4", "TICKET#1", "TICKET#5", "TICKET#3");
        long deadline = System.nanoTime() + WAIT.toNanos();
        List<String> seen;
        do {
            seen = column(t.query(eventual), "pk");
            // the index applies writes in log order: only these three states can ever be read
            assertThat(seen).isIn(before, afterClose, after);
        } while (!seen.equals(after) && System.nanoTime() < deadline);
        assertThat(seen).containsExactlyElementsOf(after);
    }

    // ---- sparse and overloaded

    @Test
    void shouldLeaveOutItemsThatLackEitherIndexKey() {
        db.createTable(TableSpec.builder("Sparse").partitionKey("pk", AttributeValue.Type.S).index(GSI1).build());
        Table t = db.table("Sparse");
        t.putItem(Item.builder().s("pk", "both").s("GSI1PK", "P").s("GSI1SK", "1").build());
        t.putItem(Item.builder().s("pk", "onlyPk").s("GSI1PK", "P").build());
        t.putItem(Item.builder().s("pk", "onlySk").s("GSI1SK", "2").build());
        t.putItem(Item.builder().s("pk", "neither").s("other", "x").build());
        t.putItem(Item.builder().s("pk", "lowercase").s("gsi1pk", "P").s("gsi1sk", "3").build()); // names are exact
        assertThat(column(t.query(gsi("P")), "pk")).containsExactly("both");
        assertThat(column(t.scan(new Scan().index("GSI1")).items(), "pk")).containsExactly("both");
        assertThat(t.scan(new Scan()).items()).hasSize(5);

        // removing one index key takes the item out; giving it back (or the missing one) brings it in
        t.updateItem(new UpdateItem(Key.of("pk", s("both"))).update("REMOVE GSI1SK"));
        t.updateItem(new UpdateItem(Key.of("pk", s("onlyPk"))).update("SET GSI1SK = :v").value(":v", s("0")));
        assertThat(column(t.query(gsi("P")), "pk")).containsExactly("onlyPk");
        t.updateItem(new UpdateItem(Key.of("pk", s("onlySk"))).update("SET GSI1PK = :v").value(":v", s("P")));
        t.updateItem(new UpdateItem(Key.of("pk", s("both"))).update("SET GSI1SK = :v").value(":v", s("1")));
        assertThat(column(t.query(gsi("P")), "pk")).containsExactly("onlyPk", "both", "onlySk");
        t.deleteItem(Key.of("pk", s("onlyPk")));
        t.query(gsi("P")); // a scan of an index is eventually consistent: wait for the updater first
        assertThat(column(t.scan(new Scan().index("GSI1")).items(), "pk")).containsExactlyInAnyOrder("both", "onlySk");
    }

    @Test
    void shouldMoveAnItemBetweenIndexPartitionsWhenItsIndexPartitionKeyChanges() {
        db.createTable(TableSpec.builder("Contacts").partitionKey("pk", AttributeValue.Type.S).index(GSI1).build());
        Table t = db.table("Contacts");
        for (String name : List.of("Ada", "Ben", "Cy")) {
            t.putItem(Item.builder().s("pk", name).s("GSI1PK", "COMPANY#a").s("GSI1SK", name).build());
        }
        t.putItem(Item.builder().s("pk", "Bo").s("GSI1PK", "COMPANY#b").s("GSI1SK", "Bo").build());
        t.updateItem(new UpdateItem(Key.of("pk", s("Ben"))).update("SET GSI1PK = :b").value(":b", s("COMPANY#b")));
        assertThat(column(t.query(gsi("COMPANY#a")), "pk")).containsExactly("Ada", "Cy");
        assertThat(column(t.query(gsi("COMPANY#b")), "pk")).containsExactly("Ben", "Bo");
        // a put replacing the whole item moves it too, and its old entry is gone, not duplicated
        t.putItem(Item.builder().s("pk", "Ben").s("GSI1PK", "COMPANY#a").s("GSI1SK", "Ben").s("note", "back").build());
        assertThat(column(t.query(gsi("COMPANY#a")), "pk")).containsExactly("Ada", "Ben", "Cy");
        assertThat(column(t.query(gsi("COMPANY#b")), "pk")).containsExactly("Bo");
        assertThat(t.query(gsi("COMPANY#a")).items().get(1).get("note")).isEqualTo(s("back"));
        assertThat(t.scan(new Scan().index("GSI1")).items()).hasSize(4);
    }

    @Test
    void shouldServeAnInvertedIndexKeyedOnTheTablesOwnKeys() {
        // the adjacency-list pattern: the table's sort key as the index partition key, its partition key as the
        // index sort key
        db.createTable(TableSpec.builder("Contacts").partitionKey("pk", AttributeValue.Type.S)
                .sortKey("sk", AttributeValue.Type.S)
                .index(IndexSpec.global("Inverted", KeyAttribute.s("sk"), KeyAttribute.s("pk"))).build());
        Table t = db.table("Contacts");
        contact(t, "c-201", "Priya Raman", "orrin-freight", "decision-maker");
        contact(t, "c-101", "Nadia Okafor", "halden-mill", "decision-maker", "champion");
        contact(t, "c-102", "Tomas Berg", "halden-mill");
        Query tagged = new Query("sk = :t").index("Inverted").value(":t", s("TAG#decision-maker")).readYourWrites(WAIT);
        assertThat(column(t.query(tagged), "pk")).containsExactly("CONTACT#c-101", "CONTACT#c-201");
        Query profiles = new Query("sk = :t AND begins_with(pk, :c)").index("Inverted").value(":t", s("PROFILE"))
                .value(":c", s("CONTACT#c-1")).readYourWrites(WAIT);
        assertThat(column(t.query(profiles.scanIndexForward(false)), "pk"))
                .containsExactly("CONTACT#c-102", "CONTACT#c-101");
        for (boolean forward : List.of(true, false)) {
            List<Page> pages = allPages(k -> t.query(new Query("sk = :t").index("Inverted").value(":t", s("PROFILE"))
                    .readYourWrites(WAIT).scanIndexForward(forward).limit(1).exclusiveStartKey(k)), 10);
            List<String> pks = column(items(pages), "pk");
            assertThat(pks).hasSize(3).doesNotHaveDuplicates();
            assertThat(pages.get(0).lastEvaluatedKey()).containsOnlyKeys("pk", "sk"); // the index's keys are the table's
        }
        t.deleteItem(Key.of("pk", s("CONTACT#c-101"), "sk", s("TAG#decision-maker")));
        assertThat(column(t.query(tagged), "pk")).containsExactly("CONTACT#c-201");
    }

    /**
     * An index query reads one snapshot of the index, as a table query does: an item that is in the index
     * before and after a concurrent write moving it (a new sort key: one index put and one index delete,
     * applied together for one log record) is returned exactly once, never twice and never not at all.
     */
    @Test
    void shouldReturnAMovingItemExactlyOnceInEveryIndexRead() throws Exception {
        db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S).index(GSI1).build());
        Table t = db.table("Tickets");
        int stable = 1_000; // enough entries between the two places of the mover for a read to take a while
        for (int i = 0; i < stable; i++) {
            t.putItem(Item.builder().s("pk", "T" + i).s("GSI1PK", "QUEUE#open").s("GSI1SK", String.format("P2#%05d", i))
                    .build());
        }
        t.putItem(Item.builder().s("pk", "MOVER").s("GSI1PK", "QUEUE#open").s("GSI1SK", "P1#").build());
        t.query(gsi("QUEUE#open"));
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<Throwable> writerFailure = new AtomicReference<>();
        // The writer keeps the index at most 500 records behind: unthrottled, it can outrun the updater on a busy
        // machine, and each read-your-writes read then waits for the backlog (the test's subject is a moving
        // item seen exactly once while it moves, not an updater racing an unbounded writer).
        Thread writer = new Thread(() -> {
            try {
                for (int i = 0; !done.get(); i++) { // to the end of the queue and back to its head
                    if (db.describeTable("Tickets").index("GSI1").lagLsn() > 500) {
                        Thread.onSpinWait();
                        continue;
                    }
                    t.updateItem(new UpdateItem(Key.of("pk", s("MOVER"))).update("SET GSI1SK = :p")
                            .value(":p", s(i % 2 == 0 ? "P3#" : "P1#")));
                }
            } catch (Throwable e) {
                writerFailure.set(e);
            }
        }, "mover");
        writer.start();
        int reads = Integer.getInteger("index.mover.reads", 100);
        try {
            for (int r = 0; r < reads && writerFailure.get() == null; r++) {
                for (boolean forward : List.of(true, false)) {
                    List<String> pks = column(t.query(gsi("QUEUE#open").scanIndexForward(forward)), "pk");
                    assertThat(pks.stream().filter("MOVER"::equals).count())
                            .as("read %d (forward=%s): the mover, in the index before and after every write", r, forward)
                            .isEqualTo(1);
                    assertThat(pks).hasSize(stable + 1);
                }
            }
        } finally {
            done.set(true);
            writer.join();
        }
        assertThat(writerFailure.get()).isNull();
    }

    @Test
    void shouldReturnEveryItemThatSharesTheSameIndexKeys() {
        db.createTable(TableSpec.builder("Dupes").partitionKey("pk", AttributeValue.Type.S)
                .sortKey("sk", AttributeValue.Type.N).index(GSI1).build());
        Table t = db.table("Dupes");
        List<String> all = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            String pk = "item-" + (char) ('g' - i); // base keys not in insertion order
            t.putItem(Item.builder().s("pk", pk).n("sk", i).s("GSI1PK", "SAME").s("GSI1SK", "same").build());
            all.add(pk);
        }
        t.putItem(Item.builder().s("pk", "item-a").n("sk", 99).s("GSI1PK", "SAME").s("GSI1SK", "same").build());
        all.add("item-a");
        assertThat(column(t.query(gsi("SAME")), "pk")).containsExactlyInAnyOrderElementsOf(all);
        assertThat(t.query(gsi("SAME").count()).count()).isEqualTo(8);

        // pages of two split groups of equal index keys; the base key in the start key keeps them apart
        for (boolean forward : List.of(true, false)) {
            List<Page> pages = allPages(
                    k -> t.query(gsi("SAME").limit(2).scanIndexForward(forward).exclusiveStartKey(k)), 10);
            List<Item> items = items(pages);
            assertThat(items).hasSize(8).doesNotHaveDuplicates();
            assertThat(column(items, "pk")).containsExactlyInAnyOrderElementsOf(all);
        }
        t.deleteItem(Key.of("pk", s("item-g"), "sk", AttributeValue.n(0)));
        assertThat(t.query(gsi("SAME")).items()).hasSize(7);
    }
}
