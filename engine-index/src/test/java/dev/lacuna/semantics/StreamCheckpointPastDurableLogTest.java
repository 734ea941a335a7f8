package dev.lacuna.semantics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.Item;
import dev.lacuna.StreamBatch;
import dev.lacuna.StreamConsumer;
import dev.lacuna.StreamRecord;
import dev.lacuna.StreamSpecification;
import dev.lacuna.StreamViewType;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.vfs.testing.ManualClock;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Review of the streams branch: a stream's log checkpoints (the stream's hold, made at enable/create, and the
 * ones retention moves) are set at {@code lastSequence()}/the last record read from the log, which include
 * writes logged without SYNC and not yet durable. A power loss then leaves a checkpoint past the recovered log's
 * end; recovery restarts LSNs at the log's end, so writes acknowledged (SYNC) after the restart get LSNs at or
 * below the checkpoint and the stream never delivers them.
 */
class StreamCheckpointPastDurableLogTest {
    private static final Path DIR = Path.of("/db");
    private static final String TABLE = "Tickets";
    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T10:00:00Z"));

    private Database open(MemVfs vfs, Durability durability, Duration sweep) {
        return Database.open(DIR, DatabaseOptions.builder().vfs(vfs).clock(clock).durability(durability)
                .streamRetention(Duration.ofHours(1)).timeToLiveSweepInterval(sweep).build());
    }

    private static TableSpec plain(String name) {
        return TableSpec.builder(name).partitionKey("pk", AttributeValue.Type.S).build();
    }

    private static TableSpec streamed(String name) {
        return TableSpec.builder(name).partitionKey("pk", AttributeValue.Type.S)
                .streamSpecification(StreamSpecification.enabled(StreamViewType.NEW_AND_OLD_IMAGES)).build();
    }

    private static Item item(String pk) {
        return Item.builder().s("pk", pk).s("body", "b").build();
    }

    /** Acknowledged SYNC writes after the restart, then a new consumer: every one must be in the stream. */
    private static void writeAfterRestartAndCheck(MemVfs crashed, StreamCheckpointPastDurableLogTest test) {
        try (Database db = test.open(crashed, Durability.SYNC, Duration.ofDays(1))) {
            Table t = db.table(TABLE);
            for (int i = 0; i < 5; i++) {
                t.putItem(item("after" + i)); // SYNC: acknowledged durably
            }
            try (StreamConsumer c = db.streamConsumer(TABLE, "fresh")) {
                List<StreamRecord> all = drain(c);
                assertThat(all).as("stream records of 5 acknowledged SYNC writes made after the restart")
                        .extracting(r -> r.keys().get("pk"))
                        .containsExactly(AttributeValue.s("after0"), AttributeValue.s("after1"),
                                AttributeValue.s("after2"), AttributeValue.s("after3"), AttributeValue.s("after4"));
            }
        }
    }

    @Test
    void shouldDeliverWritesAfterRestartWhenStreamTableCreatedAfterUnsyncedWrites() {
        MemVfs vfs = new MemVfs();
        MemVfs crashed;
        try (Database db = open(vfs, Durability.NONE, Duration.ofDays(1))) {
            db.createTable(plain("Other"));
            for (int i = 0; i < 5; i++) {
                db.table("Other").putItem(item("o" + i)); // NONE: visible, not yet durable
            }
            db.createTable(streamed(TABLE)); // the stream's hold checkpoint at lastSequence() = 5
            crashed = vfs.crashClone(); // power loss: the log's 5 unsynced records are gone, the manifest is not
        }
        writeAfterRestartAndCheck(crashed, this);
    }

    @Test
    void shouldDeliverWritesAfterRestartWhenStreamEnabledAfterUnsyncedWrites() {
        MemVfs vfs = new MemVfs();
        MemVfs crashed;
        try (Database db = open(vfs, Durability.NONE, Duration.ofDays(1))) {
            db.createTable(plain(TABLE));
            for (int i = 0; i < 5; i++) {
                db.table(TABLE).putItem(item("o" + i)); // NONE: visible, not yet durable
            }
            db.updateTable(plain(TABLE).withStreamSpecification(
                    StreamSpecification.enabled(StreamViewType.NEW_AND_OLD_IMAGES)));
            crashed = vfs.crashClone();
        }
        writeAfterRestartAndCheck(crashed, this);
    }

    @Test
    void shouldDeliverWritesAfterRestartWhenBackgroundRetentionMovedPastUnsyncedRecords() throws Exception {
        MemVfs vfs = new MemVfs();
        MemVfs crashed;
        try (Database db = open(vfs, Durability.NONE, Duration.ofMillis(50))) {
            db.createTable(streamed(TABLE));
            db.createTable(plain("Other"));
            StreamConsumer c = db.streamConsumer(TABLE, "keeper");
            long before = c.checkpoint();
            for (int i = 0; i < 5; i++) {
                db.table("Other").putItem(item("o" + i)); // NONE: not durable; not the stream table's writes
            }
            clock.advance(Duration.ofMinutes(61)); // past the retention
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (c.checkpoint() == before && System.nanoTime() < deadline) {
                Thread.sleep(20); // the background pass moves the consumer (wait for an observable condition)
            }
            assertThat(c.checkpoint()).as("retention moved the consumer").isGreaterThan(before);
            crashed = vfs.crashClone();
            c.close();
        }
        try (Database db = open(crashed, Durability.SYNC, Duration.ofDays(1))) {
            Table t = db.table(TABLE);
            for (int i = 0; i < 5; i++) {
                t.putItem(item("after" + i));
            }
            try (StreamConsumer c = db.streamConsumer(TABLE, "keeper")) {
                assertThat(drain(c)).as("the existing consumer's records of 5 acknowledged SYNC writes after restart")
                        .hasSize(5);
            }
        }
    }

    @Test
    void shouldFlushAfterRestartWhenTheStreamsCheckpointIsPastTheRecoveredLog() {
        MemVfs vfs = new MemVfs();
        MemVfs crashed;
        try (Database db = open(vfs, Durability.NONE, Duration.ofDays(1))) {
            db.createTable(plain("Other"));
            for (int i = 0; i < 5; i++) {
                db.table("Other").putItem(item("o" + i));
            }
            db.createTable(streamed(TABLE));
            crashed = vfs.crashClone();
        }
        try (Database db = open(crashed, Durability.SYNC, Duration.ofDays(1))) {
            db.table(TABLE).putItem(item("after0"));
            db.flush(); // IllegalArgumentException: LSN 6 is outside the log, which holds 1 to 1
        }
    }

    private static List<StreamRecord> drain(StreamConsumer c) {
        List<StreamRecord> all = new ArrayList<>();
        for (StreamBatch b = c.poll(50); !b.records().isEmpty(); b = c.poll(50)) {
            all.addAll(b.records());
            c.commit(b);
        }
        return all;
    }
}
