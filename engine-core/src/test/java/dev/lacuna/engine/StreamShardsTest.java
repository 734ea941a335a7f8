package dev.lacuna.engine;

import dev.lacuna.vfs.testing.ManualClock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.ExpiredIteratorException;
import dev.lacuna.Item;
import dev.lacuna.PutItem;
import dev.lacuna.ResourceNotFoundException;
import dev.lacuna.ShardIteratorType;
import dev.lacuna.ShardRecords;
import dev.lacuna.StreamDescription;
import dev.lacuna.StreamRecord;
import dev.lacuna.StreamSpecification;
import dev.lacuna.StreamViewType;
import dev.lacuna.TableSpec;
import dev.lacuna.TransactWrite;
import dev.lacuna.TrimmedDataAccessException;
import dev.lacuna.ValidationException;
import dev.lacuna.lsm.KvLogReader;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Streams API's stateless shard reads ({@link Database#getShardIterator}, {@link Database#getRecords}): one call
 * reads a bounded stretch of the log however few of its records are the shard's, a log record's records may be
 * split across calls without loss or repeat, sequence-number positions resume where they say, and iterators that
 * are mangled, trimmed or of a stream that is gone are refused with DynamoDB's errors.
 */
class StreamShardsTest {
    private static final String TABLE = "Tickets";
    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T10:00:00Z"));
    private final DatabaseOptions options = DatabaseOptions.builder().vfs(new MemVfs()).clock(clock)
            .streamRetention(Duration.ofHours(1)).timeToLiveSweepInterval(Duration.ofDays(1)).build();
    private Database db = Database.open(Path.of("/db"), options);

    @AfterEach
    void close() {
        db.close();
    }

    private String createTable(int partitions) {
        return db.createTable(TableSpec.builder(TABLE).partitionKey("pk", AttributeValue.Type.S).partitions(partitions)
                .streamSpecification(StreamSpecification.enabled(StreamViewType.NEW_AND_OLD_IMAGES)).build())
                .latestStreamArn();
    }

    private static Item ticket(String pk) {
        return Item.builder().s("pk", pk).build();
    }

    private String onlyShard(String arn) {
        List<StreamDescription.Shard> shards = db.describeStream(arn).shards();
        assertThat(shards).hasSize(1);
        return shards.get(0).shardId();
    }

    private static List<String> keys(List<StreamRecord> records) {
        return records.stream().map(r -> r.keys().get("pk").asString()).toList();
    }

    @Test
    void shouldReadABoundedStretchOfTheLogPerCallAndGoOnAfterIt() {
        String arn = createTable(1);
        db.createTable(TableSpec.builder("Busy").partitionKey("pk", AttributeValue.Type.S).build());
        db.table(TABLE).putItem(ticket("first"));
        for (int i = 0; i < 2 * StreamShards.MAX_SCANNED + 10; i++) {
            db.table("Busy").putItem(ticket("b" + i)); // log records with nothing of the stream's table
        }
        db.table(TABLE).putItem(ticket("last"));
        String it = db.getShardIterator(arn, onlyShard(arn), ShardIteratorType.TRIM_HORIZON, null);

        List<String> seen = new ArrayList<>();
        int calls = 0;
        boolean movedWithoutRecords = false;
        while (!seen.contains("last")) {
            ShardRecords page = db.getRecords(it, 1000);
            calls++;
            assertThat(calls).as("calls to read the log through").isLessThanOrEqualTo(4);
            seen.addAll(keys(page.records()));
            if (page.records().isEmpty()) {
                assertThat(page.nextShardIterator()).isNotEqualTo(it); // past what it read
                movedWithoutRecords = true;
            }
            it = page.nextShardIterator();
        }

        // 2 * MAX_SCANNED + 12 log records: three calls at least, one of which found only the other table's records.
        assertThat(calls).isGreaterThanOrEqualTo(3);
        assertThat(movedWithoutRecords).isTrue();
        assertThat(seen).containsExactly("first", "last");
        assertThat(db.getRecords(it, 1000).records()).isEmpty();
    }

    @Test
    void shouldSplitOneWritesRecordsAcrossCallsAndResumeAtSequenceNumbers() {
        String arn = createTable(1);
        List<TransactWrite> writes = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            writes.add(new TransactWrite(TABLE, new PutItem(ticket("t" + i))));
        }
        db.transactWriteItems(writes); // one log record, five records in the one shard
        String shard = onlyShard(arn);
        String it = db.getShardIterator(arn, shard, ShardIteratorType.TRIM_HORIZON, null);

        List<StreamRecord> all = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        for (ShardRecords page = db.getRecords(it, 2); !page.records().isEmpty(); page = db.getRecords(it, 2)) {
            sizes.add(page.records().size());
            all.addAll(page.records());
            it = page.nextShardIterator();
        }

        assertThat(sizes).containsExactly(2, 2, 1);
        assertThat(keys(all)).containsExactlyInAnyOrder("t0", "t1", "t2", "t3", "t4");
        assertThat(all).extracting(StreamRecord::sequenceNumber).isSorted().doesNotHaveDuplicates();
        String third = all.get(2).sequenceNumber();
        String at = db.getShardIterator(arn, shard, ShardIteratorType.AT_SEQUENCE_NUMBER, third);
        assertThat(keys(db.getRecords(at, 1000).records())).isEqualTo(keys(all.subList(2, 5)));
        String after = db.getShardIterator(arn, shard, ShardIteratorType.AFTER_SEQUENCE_NUMBER, third);
        assertThat(keys(db.getRecords(after, 1000).records())).isEqualTo(keys(all.subList(3, 5)));
        String latest = db.getShardIterator(arn, shard, ShardIteratorType.LATEST, null);
        assertThat(db.getRecords(latest, 1000).records()).isEmpty();
        db.table(TABLE).putItem(ticket("later"));
        assertThat(keys(db.getRecords(latest, 1000).records())).containsExactly("later");
    }

    @Test
    void shouldRefuseAMangledIteratorAndALimitOutOfRange() {
        String arn = createTable(2);
        String it = db.getShardIterator(arn, db.describeStream(arn).shards().get(1).shardId(),
                ShardIteratorType.TRIM_HORIZON, null);
        char last = it.charAt(it.length() - 2);
        String mangled = it.substring(0, it.length() - 2) + (last == 'A' ? 'B' : 'A') + it.charAt(it.length() - 1);

        for (String bad : List.of("", "nonsense", "L1", "L1!!!!", mangled, it + "AAAA")) {
            assertThatThrownBy(() -> db.getRecords(bad, 10)).as(bad).isInstanceOf(ValidationException.class)
                    .hasMessage("Invalid ShardIterator");
        }
        assertThatThrownBy(() -> db.getRecords(it, 0)).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> db.getRecords(it, 1001)).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> db.getShardIterator(arn, "shardId-0", ShardIteratorType.LATEST, null))
                .isInstanceOf(ResourceNotFoundException.class);
        assertThatThrownBy(() -> db.getShardIterator(arn, db.describeStream(arn).shards().get(0).shardId(),
                ShardIteratorType.AT_SEQUENCE_NUMBER, "12x")).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> db.describeStream("arn:aws:kinesis:nothing")).isInstanceOf(ValidationException.class);
    }

    @Test
    void shouldRefuseAPositionRetentionPassed() {
        String arn = createTable(1);
        String shard = onlyShard(arn);
        db.table(TABLE).putItem(ticket("old"));
        String old = db.getShardIterator(arn, shard, ShardIteratorType.TRIM_HORIZON, null);
        String oldSequence = db.getRecords(old, 10).records().get(0).sequenceNumber();

        clock.advance(Duration.ofMinutes(61));
        db.table(TABLE).putItem(ticket("new"));
        db.flush(); // applies the retention: "old" is dropped

        assertThatThrownBy(() -> db.getRecords(old, 10)).isInstanceOf(TrimmedDataAccessException.class);
        assertThatThrownBy(() -> db.getShardIterator(arn, shard, ShardIteratorType.AT_SEQUENCE_NUMBER, oldSequence))
                .isInstanceOf(TrimmedDataAccessException.class);
        String horizon = db.getShardIterator(arn, shard, ShardIteratorType.TRIM_HORIZON, null);
        assertThat(keys(db.getRecords(horizon, 10).records())).containsExactly("new");
    }

    @Test
    void shouldExpireAnIteratorFifteenMinutesAfterItWasHandedOutByTheDatabasesClock() {
        String arn = createTable(1);
        String shard = onlyShard(arn);
        db.table(TABLE).putItem(ticket("a"));
        String it = db.getShardIterator(arn, shard, ShardIteratorType.TRIM_HORIZON, null);

        clock.advance(Database.SHARD_ITERATOR_LIFETIME);
        ShardRecords page = db.getRecords(it, 10); // exactly 15 minutes old: still valid
        assertThat(keys(page.records())).containsExactly("a");
        db.table(TABLE).putItem(ticket("b"));

        clock.advance(Duration.ofMillis(1));
        assertThatThrownBy(() -> db.getRecords(it, 10)).isInstanceOf(ExpiredIteratorException.class)
                .hasMessage("The provided iterator exceeds the maximum age allowed.");
        clock.advance(Duration.ofMinutes(14));
        assertThat(keys(db.getRecords(page.nextShardIterator(), 10).records()))
                .as("the next iterator's lifetime started when it was handed out").containsExactly("b");
        clock.advance(Duration.ofMinutes(2));
        assertThatThrownBy(() -> db.getRecords(page.nextShardIterator(), 10))
                .isInstanceOf(ExpiredIteratorException.class);
    }

    @Test
    void shouldRefuseTheIteratorsOfADisabledStreamOrADeletedTable() {
        String arn = createTable(1);
        String it = db.getShardIterator(arn, onlyShard(arn), ShardIteratorType.TRIM_HORIZON, null);
        db.updateTable(TableSpec.builder(TABLE).partitionKey("pk", AttributeValue.Type.S).partitions(1)
                .streamSpecification(StreamSpecification.DISABLED).build());

        assertThatThrownBy(() -> db.getRecords(it, 10)).isInstanceOf(ResourceNotFoundException.class);
        StreamDescription disabled = db.describeStream(arn);
        assertThat(disabled.status()).isEqualTo("DISABLED");
        assertThat(disabled.shards()).isEmpty();
        assertThat(disabled.viewType()).as("a disabled stream reports the view type it had")
                .isEqualTo(StreamViewType.NEW_AND_OLD_IMAGES);
        assertThat(db.listStreams(TABLE)).extracting(StreamDescription::streamArn).containsExactly(arn);
        db.close();
        db = Database.open(Path.of("/db"), options);
        assertThat(db.describeStream(arn).viewType()).as("and keeps it through a reopen")
                .isEqualTo(StreamViewType.NEW_AND_OLD_IMAGES);

        db.deleteTable(TABLE);
        assertThatThrownBy(() -> db.getRecords(it, 10)).isInstanceOf(ResourceNotFoundException.class);
        assertThatThrownBy(() -> db.describeStream(arn)).isInstanceOf(ResourceNotFoundException.class);
        assertThat(db.listStreams(null)).isEmpty();
    }

    @Test
    void shouldDeliverEveryWriteOnceInOrderWhileWritesGoOn() throws Exception {
        String arn = createTable(4);
        int items = 16;
        int rounds = 60;
        Thread writer = new Thread(() -> {
            for (int v = 1; v <= rounds; v++) {
                for (int i = 0; i < items; i++) {
                    db.table(TABLE).putItem(Item.builder().s("pk", "i" + i).n("v", v).build());
                }
            }
        }, "writer");
        writer.start();

        java.util.Map<String, String> iterators = new java.util.LinkedHashMap<>();
        for (StreamDescription.Shard shard : db.describeStream(arn).shards()) {
            iterators.put(shard.shardId(), db.getShardIterator(arn, shard.shardId(), ShardIteratorType.TRIM_HORIZON,
                    null));
        }
        java.util.Map<String, List<Integer>> seen = new java.util.HashMap<>();
        int total = 0;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (total < items * rounds) {
            assertThat(System.nanoTime()).as("all records read within a minute").isLessThan(deadline);
            for (java.util.Map.Entry<String, String> e : iterators.entrySet()) {
                ShardRecords page = db.getRecords(e.getValue(), 7);
                for (StreamRecord r : page.records()) {
                    assertThat(r.shardId()).isEqualTo(e.getKey());
                    seen.computeIfAbsent(r.keys().get("pk").asString(), k -> new ArrayList<>())
                            .add((r.newImage().get("v").asNumber().intValue()));
                }
                total += page.records().size();
                e.setValue(page.nextShardIterator());
            }
        }
        writer.join();

        List<Integer> inOrder = java.util.stream.IntStream.rangeClosed(1, rounds).boxed().toList();
        assertThat(seen).hasSize(items).allSatisfy((pk, values) -> assertThat(values).as(pk).isEqualTo(inOrder));
        for (String it : iterators.values()) {
            assertThat(db.getRecords(it, 1000).records()).isEmpty();
        }
    }

    @Test
    void shouldCarryWhereTheLogGoesOnAndShrugOffAWrongHint() {
        String arn = createTable(1);
        String shard = onlyShard(arn);
        for (int i = 0; i < 10; i++) {
            db.table(TABLE).putItem(ticket("t" + i));
        }
        ShardRecords first = db.getRecords(db.getShardIterator(arn, shard, ShardIteratorType.TRIM_HORIZON, null), 4);
        ShardIterator next = ShardIterator.decode(first.nextShardIterator());
        assertThat(next.segment()).as("the next iterator knows where its log record starts").isNotNegative();
        List<String> rest = keys(db.getRecords(first.nextShardIterator(), 1000).records());
        assertThat(keys(first.records())).containsExactly("t0", "t1", "t2", "t3");
        assertThat(rest).containsExactly("t4", "t5", "t6", "t7", "t8", "t9");

        for (long[] wrong : new long[][] {{next.segment(), next.offset() + 3}, {next.segment(), 1L << 40},
                {next.segment() + 1, next.offset()}, {-1, -1}}) {
            String hinted = next.at(next.lsn(), next.afterIndex(),
                    wrong[0] < 0 ? null : new KvLogReader.Position(wrong[0], wrong[1])).encode();
            assertThat(keys(db.getRecords(hinted, 1000).records())).as(java.util.Arrays.toString(wrong))
                    .isEqualTo(rest);
        }
    }

}
