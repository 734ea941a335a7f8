package dev.lacuna.semantics;

import dev.lacuna.vfs.testing.ManualClock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.ConditionalCheckFailedException;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.DeleteItem;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.OperationType;
import dev.lacuna.PutItem;
import dev.lacuna.ResourceInUseException;
import dev.lacuna.ResourceNotFoundException;
import dev.lacuna.StreamBatch;
import dev.lacuna.StreamConsumer;
import dev.lacuna.StreamIdentity;
import dev.lacuna.StreamProcessor;
import dev.lacuna.StreamRecord;
import dev.lacuna.StreamSpecification;
import dev.lacuna.StreamViewType;
import dev.lacuna.Table;
import dev.lacuna.TableDescription;
import dev.lacuna.TableSpec;
import dev.lacuna.TransactWrite;
import dev.lacuna.UpdateItem;
import dev.lacuna.ValidationException;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Change streams as DynamoDB users expect them (issue 11): what each view type carries, INSERT vs MODIFY vs
 * REMOVE, no record for a write that changes nothing, a transaction's records adjacent, deletions by time to
 * live marked as DynamoDB marks them, a stream disabled and enabled again, what describeTable shows, and durable
 * consumers (commit, reopen, processor).
 */
class StreamSemanticsTest {
    private static final Path DIR = Path.of("/db");
    private static final String TABLE = "Tickets";
    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T10:00:00.123Z"));


    private Database open(MemVfs vfs) {
        return Database.open(DIR, DatabaseOptions.builder().vfs(vfs).clock(clock)
                .timeToLiveSweepInterval(Duration.ofMillis(5)).build());
    }

    private static TableSpec spec(StreamViewType view) {
        TableSpec.Builder b = TableSpec.builder(TABLE).partitionKey("pk", AttributeValue.Type.S)
                .sortKey("sk", AttributeValue.Type.S);
        return (view == null ? b : b.streamSpecification(StreamSpecification.enabled(view))).build();
    }

    private static Item ticket(String pk, String status) {
        return Item.builder().s("pk", pk).s("sk", "T").s("status", status).build();
    }

    /** Every record the consumer can read now. */
    static List<StreamRecord> drain(StreamConsumer c) {
        List<StreamRecord> all = new ArrayList<>();
        for (StreamBatch b = c.poll(100); !b.records().isEmpty(); b = c.poll(100)) {
            all.addAll(b.records());
        }
        return all;
    }

    @Test
    void shouldCarryWhatEachViewTypeAsksForOnInsertModifyAndRemove() {
        for (StreamViewType view : StreamViewType.values()) {
            try (Database db = open(new MemVfs())) {
                db.createTable(spec(view));
                Table t = db.table(TABLE);
                try (StreamConsumer c = t.streamConsumer("app")) {
                    t.putItem(ticket("A", "OPEN"));
                    t.updateItem(new UpdateItem(Key.of("pk", AttributeValue.s("A"), "sk", AttributeValue.s("T")))
                            .update("SET #s = :c").name("#s", "status").value(":c", AttributeValue.s("CLOSED")));
                    t.deleteItem(Key.of("pk", AttributeValue.s("A"), "sk", AttributeValue.s("T")));
                    List<StreamRecord> records = drain(c);
                    assertThat(records).extracting(StreamRecord::eventName).as("%s", view)
                            .containsExactly(OperationType.INSERT, OperationType.MODIFY, OperationType.REMOVE);
                    Item open = ticket("A", "OPEN");
                    Item closed = ticket("A", "CLOSED");
                    Item[][] expected = { // new, old per record
                            {open, null}, {closed, open}, {null, closed}};
                    for (int i = 0; i < 3; i++) {
                        StreamRecord r = records.get(i);
                        assertThat(r.keys()).isEqualTo(java.util.Map.of("pk", AttributeValue.s("A"), "sk", AttributeValue.s("T")));
                        assertThat(r.streamViewType()).isEqualTo(view);
                        assertThat(r.newImage()).as("%s new image of record %d", view, i)
                                .isEqualTo(view.hasNewImage() ? expected[i][0] : null);
                        assertThat(r.oldImage()).as("%s old image of record %d", view, i)
                                .isEqualTo(view.hasOldImage() ? expected[i][1] : null);
                        assertThat(r.sizeBytes()).isPositive();
                        assertThat(r.approximateCreationDateTime()).isEqualTo(clock.instant());
                        assertThat(r.userIdentity()).isNull();
                        assertThat(r.shardId()).isEqualTo(records.get(0).shardId()); // one item, one shard
                    }
                    assertThat(records).extracting(StreamRecord::sequenceNumber).isSorted().doesNotHaveDuplicates();
                    if (view == StreamViewType.NEW_AND_OLD_IMAGES) {
                        assertThat(records.get(1).sizeBytes()).isGreaterThan(records.get(0).sizeBytes());
                    }
                }
            }
        }
    }

    @Test
    void shouldProduceNoRecordForAWriteThatChangesNothing() {
        try (Database db = open(new MemVfs())) {
            db.createTable(spec(StreamViewType.KEYS_ONLY));
            Table t = db.table(TABLE);
            try (StreamConsumer c = t.streamConsumer("app")) {
                t.putItem(ticket("A", "OPEN"));
                t.putItem(ticket("A", "OPEN")); // the same item again
                t.updateItem(new UpdateItem(Key.of("pk", AttributeValue.s("A"), "sk", AttributeValue.s("T")))
                        .update("SET #s = :o").name("#s", "status").value(":o", AttributeValue.s("OPEN")));
                t.deleteItem(Key.of("pk", AttributeValue.s("B"), "sk", AttributeValue.s("T"))); // absent
                assertThatThrownBy(() -> t.putItem(new PutItem(ticket("A", "X")).condition("attribute_not_exists(pk)")))
                        .isInstanceOf(ConditionalCheckFailedException.class);
                t.putItem(ticket("C", "OPEN"));
                assertThat(drain(c)).extracting(r -> r.eventName() + " " + r.keys().get("pk"))
                        .containsExactly("INSERT " + AttributeValue.s("A"), "INSERT " + AttributeValue.s("C"));
            }
        }
    }

    @Test
    void shouldKeepATransactionsRecordsAdjacentAndInItsOrder() throws Exception {
        try (Database db = open(new MemVfs())) {
            db.createTable(spec(StreamViewType.NEW_IMAGE));
            Table t = db.table(TABLE);
            try (StreamConsumer c = t.streamConsumer("app")) {
                Thread other = new Thread(() -> {
                    for (int i = 0; i < 200; i++) {
                        t.putItem(ticket("other-" + (i % 7), "N" + i));
                    }
                });
                other.start();
                for (int i = 0; i < 20; i++) {
                    db.transactWriteItems(List.of(new TransactWrite(TABLE, new PutItem(ticket("x-" + i, "1"))),
                            new TransactWrite(TABLE, new PutItem(ticket("y-" + i, "2"))),
                            new TransactWrite(TABLE, new DeleteItem(Key.of("pk", AttributeValue.s("x-" + (i - 1)),
                                    "sk", AttributeValue.s("T"))))));
                }
                other.join();
                List<StreamRecord> all = new ArrayList<>();
                for (StreamBatch b = c.poll(2); !b.records().isEmpty(); b = c.poll(2)) {
                    all.addAll(b.records()); // polls of 2: a transaction of 3 is never split
                }
                assertThat(all).hasSize(200 + 20 * 2 + 19);
                for (int i = 0; i < 20; i++) {
                    String x = "x-" + i;
                    int at = indexOf(all, x, OperationType.INSERT);
                    StreamRecord first = all.get(at);
                    assertThat(all.get(at + 1).keys().get("pk")).isEqualTo(AttributeValue.s("y-" + i));
                    assertThat(all.get(at + 1).lsn()).isEqualTo(first.lsn());
                    if (i > 0) {
                        assertThat(all.get(at + 2).eventName()).isEqualTo(OperationType.REMOVE);
                        assertThat(all.get(at + 2).lsn()).isEqualTo(first.lsn());
                    }
                    assertThat(first.sequenceNumber()).isLessThan(all.get(at + 1).sequenceNumber());
                }
                assertThat(all).extracting(StreamRecord::sequenceNumber).isSorted().doesNotHaveDuplicates();
                // Records of one item in write order: "other-0" got N0, N7, N14, ...
                List<String> statuses = all.stream().filter(r -> r.keys().get("pk").equals(AttributeValue.s("other-0")))
                        .map(r -> ((AttributeValue.S) r.newImage().get("status")).value()).toList();
                List<String> expected = new ArrayList<>();
                for (int i = 0; i < 200; i += 7) {
                    expected.add("N" + i);
                }
                assertThat(statuses).isEqualTo(expected);
            }
        }
    }

    private static int indexOf(List<StreamRecord> records, String pk, OperationType event) {
        for (int i = 0; i < records.size(); i++) {
            if (records.get(i).keys().get("pk").equals(AttributeValue.s(pk)) && records.get(i).eventName() == event) {
                return i;
            }
        }
        throw new AssertionError(pk + " " + event + " not found");
    }

    @Test
    void shouldMarkDeletionsByTimeToLiveAsTheServices() throws Exception {
        try (Database db = open(new MemVfs())) {
            db.createTable(spec(StreamViewType.OLD_IMAGE));
            Table t = db.table(TABLE);
            try (StreamConsumer c = t.streamConsumer("app")) {
                long now = clock.instant().getEpochSecond();
                t.putItem(Item.builder().s("pk", "old").s("sk", "T").n("expiresAt", now + 60).build());
                t.putItem(ticket("mine", "OPEN"));
                t.deleteItem(Key.of("pk", AttributeValue.s("mine"), "sk", AttributeValue.s("T")));
                db.updateTimeToLive(TABLE, "expiresAt", true);
                clock.advance(Duration.ofMinutes(2)); // "old" has expired: the sweeper (every 5 ms) deletes it
                List<StreamRecord> records = new ArrayList<>();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (records.size() < 4 && System.nanoTime() < deadline) {
                    records.addAll(c.poll(10, Duration.ofSeconds(1)).records()); // waits on the log
                }
                assertThat(records).extracting(r -> r.eventName() + " " + r.keys().get("pk") + " " + r.userIdentity())
                        .containsExactly("INSERT " + AttributeValue.s("old") + " null",
                                "INSERT " + AttributeValue.s("mine") + " null",
                                "REMOVE " + AttributeValue.s("mine") + " null",
                                "REMOVE " + AttributeValue.s("old") + " " + StreamIdentity.TIME_TO_LIVE);
                assertThat(records.get(3).userIdentity().type()).isEqualTo("Service");
                assertThat(records.get(3).userIdentity().principalId()).isEqualTo("dynamodb.amazonaws.com");
                assertThat(records.get(3).oldImage().get("expiresAt")).isEqualTo(AttributeValue.n(now + 60));
            }
        }
    }

    @Test
    void shouldDescribeDisableAndEnableTheStreamAsDynamoDbDoes() {
        MemVfs vfs = new MemVfs();
        try (Database db = open(vfs)) {
            TableDescription none = db.createTable(spec(null));
            assertThat(none.streamSpecification()).isEqualTo(StreamSpecification.DISABLED);
            assertThat(none.latestStreamArn()).isNull();
            assertThatThrownBy(() -> db.streamConsumer(TABLE, "app")).isInstanceOf(ResourceNotFoundException.class);
            assertThatThrownBy(() -> db.updateTable(spec(null).withStreamSpecification(StreamSpecification.DISABLED)))
                    .isInstanceOf(ValidationException.class).hasMessageContaining("no enabled stream");
            Table t = db.table(TABLE);
            t.putItem(ticket("before", "OPEN")); // before the stream: never in it

            TableDescription on = db.updateTable(spec(StreamViewType.KEYS_ONLY));
            assertThat(on.streamSpecification()).isEqualTo(StreamSpecification.enabled(StreamViewType.KEYS_ONLY));
            assertThat(on.latestStreamLabel()).isEqualTo("2026-12-01T10:00:00.123");
            assertThat(on.latestStreamArn()).isEqualTo("arn:lacuna:dynamodb:local:table/Tickets/stream/2026-12-01T10:00:00.123");
            assertThatThrownBy(() -> db.updateTable(spec(StreamViewType.NEW_IMAGE)))
                    .isInstanceOf(ValidationException.class).hasMessageContaining("already has an enabled stream");
            StreamConsumer first = t.streamConsumer("app");
            assertThatThrownBy(() -> t.streamConsumer("app")).isInstanceOf(ResourceInUseException.class);
            t.putItem(ticket("during", "OPEN"));
            assertThat(drain(first)).extracting(r -> r.keys().get("pk")).containsExactly(AttributeValue.s("during"));

            clock.advance(Duration.ofSeconds(1));
            TableDescription off = db.updateTable(spec(null).withStreamSpecification(StreamSpecification.DISABLED));
            assertThat(off.streamSpecification()).isEqualTo(StreamSpecification.DISABLED);
            assertThat(off.latestStreamArn()).isEqualTo(on.latestStreamArn()); // kept, as DynamoDB keeps it
            assertThatThrownBy(() -> first.poll(10)).isInstanceOf(ResourceNotFoundException.class);
            first.close();
            t.putItem(ticket("between", "OPEN")); // while disabled: in no stream

            clock.advance(Duration.ofSeconds(1));
            TableDescription again = db.updateTable(spec(StreamViewType.NEW_IMAGE));
            assertThat(again.latestStreamArn()).isNotEqualTo(on.latestStreamArn()); // a new stream
            t.putItem(ticket("after", "OPEN"));
            try (StreamConsumer c = t.streamConsumer("app")) { // the old stream's consumer went with it
                List<StreamRecord> records = drain(c);
                assertThat(records).extracting(r -> r.keys().get("pk")).containsExactly(AttributeValue.s("after"));
                assertThat(records.get(0).newImage()).isEqualTo(ticket("after", "OPEN"));
                assertThat(c.streamArn()).isEqualTo(again.latestStreamArn());
            }
        }
        try (Database db = open(vfs)) { // the stream is kept in the table's descriptor
            TableDescription d = db.describeTable(TABLE);
            assertThat(d.streamSpecification()).isEqualTo(StreamSpecification.enabled(StreamViewType.NEW_IMAGE));
            assertThat(d.latestStreamLabel()).isEqualTo("2026-12-01T10:00:02.123");
        }
    }

    @Test
    void shouldResumeAConsumerAfterItsLastCommitWhenOpenedAgain() {
        MemVfs vfs = new MemVfs();
        long committed;
        try (Database db = open(vfs)) {
            db.createTable(spec(StreamViewType.NEW_IMAGE));
            Table t = db.table(TABLE);
            for (int i = 0; i < 5; i++) {
                t.putItem(ticket("t" + i, "OPEN"));
            }
            try (StreamConsumer c = t.streamConsumer("app")) {
                StreamBatch b = c.poll(3);
                assertThat(b.records()).hasSize(3);
                c.commit(b);
                committed = c.checkpoint();
                assertThat(committed).isEqualTo(b.checkpoint());
                assertThat(c.poll(10).records()).hasSize(2); // read, not committed
                assertThatThrownBy(() -> c.commit(new StreamBatch(List.of(), Long.MAX_VALUE)))
                        .isInstanceOf(IllegalArgumentException.class);
            }
        }
        try (Database db = open(vfs); StreamConsumer c = db.streamConsumer(TABLE, "app")) {
            assertThat(c.checkpoint()).isEqualTo(committed);
            assertThat(drain(c)).extracting(r -> r.keys().get("pk")).containsExactly(AttributeValue.s("t3"),
                    AttributeValue.s("t4"));
        }
        try (Database db = open(vfs)) {
            db.deleteStreamConsumer(TABLE, "app");
            try (StreamConsumer c = db.streamConsumer(TABLE, "app")) { // made again: from the oldest record
                assertThat(drain(c)).hasSize(5);
            }
        }
    }

    @Test
    void shouldCallTheHandlerInOrderAndCommitWhenItReturns() throws Exception {
        MemVfs vfs = new MemVfs();
        try (Database db = open(vfs)) {
            db.createTable(spec(StreamViewType.NEW_IMAGE));
            Table t = db.table(TABLE);
            List<String> seen = Collections.synchronizedList(new ArrayList<>());
            CountDownLatch all = new CountDownLatch(50);
            try (StreamConsumer c = t.streamConsumer("pager");
                 StreamProcessor p = c.start(records -> records.forEach(r -> {
                     seen.add(((AttributeValue.S) r.newImage().get("status")).value());
                     all.countDown();
                 }), 7)) {
                for (int i = 0; i < 50; i++) {
                    t.putItem(ticket("A", "S" + i));
                }
                assertThat(all.await(30, TimeUnit.SECONDS)).isTrue();
                p.close(); // before the try's own close: what follows checks a stopped processor
                assertThat(p.running()).isFalse();
                assertThat(p.failure()).isNull();
                assertThat(p.delivered()).isEqualTo(50);
                List<String> expected = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    expected.add("S" + i);
                }
                assertThat(seen).isEqualTo(expected);
                assertThat(c.poll(10).records()).isEmpty(); // everything handled was committed
            }
            try (StreamConsumer c = t.streamConsumer("pager")) {
                assertThat(c.poll(10).records()).isEmpty();
            }
            // A handler that throws stops its processor without moving the checkpoint.
            try (StreamConsumer c = t.streamConsumer("failing")) {
                long before = c.checkpoint();
                CountDownLatch called = new CountDownLatch(1);
                StreamProcessor p = c.start(records -> {
                    called.countDown();
                    throw new IllegalStateException("boom");
                }, 10);
                assertThat(called.await(30, TimeUnit.SECONDS)).isTrue();
                p.close(); // joins the thread, which the exception ends
                assertThat(p.running()).isFalse();
                assertThat(p.failure()).hasMessage("boom");
                assertThat(c.checkpoint()).isEqualTo(before);
            }
        }
    }

    /**
     * A handler that closes its own consumer (not the processor) ends the processor without a failure: the batch
     * it was handling is not committed (the handle is closed), so a consumer opened again gets it again.
     */
    @Test
    void shouldStopWithoutFailureWhenTheHandlerClosesItsOwnConsumer() throws Exception {
        MemVfs vfs = new MemVfs();
        try (Database db = open(vfs)) {
            db.createTable(spec(StreamViewType.NEW_IMAGE));
            Table t = db.table(TABLE);
            t.putItem(ticket("A", "S0"));
            StreamConsumer c = t.streamConsumer("closer");
            CountDownLatch called = new CountDownLatch(1);
            StreamProcessor p = c.start(records -> {
                c.close(); // from the processor's own thread
                called.countDown();
            }, 10);
            assertThat(called.await(30, TimeUnit.SECONDS)).isTrue();
            p.close(); // joins the thread
            assertThat(p.running()).isFalse();
            assertThat(p.failure()).as("the processor's failure").isNull();
            try (StreamConsumer again = t.streamConsumer("closer")) {
                assertThat(drain(again)).as("the uncommitted batch, delivered again").hasSize(1);
            }
        }
    }
}
