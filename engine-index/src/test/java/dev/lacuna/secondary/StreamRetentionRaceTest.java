package dev.lacuna.secondary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.Item;
import dev.lacuna.StreamSpecification;
import dev.lacuna.StreamViewType;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Review of the streams branch: {@code Streams.enforceRetention} reads the log checkpoints once, then (without
 * any lock that {@code Catalog.delete}/{@code update} take) reads each stream's log and finally calls
 * {@code setLogCheckpoint} for the stream and its consumers, which registers a checkpoint that does not exist.
 * A table deleted (or its stream disabled) while the pass reads the log gets its stream checkpoints back,
 * durably, after the drop removed them: nothing removes them until the next open, and they hold the log from
 * that LSN on (the log is never trimmed past them while the database runs).
 */
class StreamRetentionRaceTest {
    /** A manual clock that tells when it is next read once armed (retention reads it first). */
    static final class SignallingClock extends Clock {
        volatile Instant now = Instant.parse("2026-12-01T10:00:00Z");
        volatile CountDownLatch armed;

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            CountDownLatch l = armed;
            if (l != null) {
                armed = null;
                l.countDown();
            }
            return now;
        }

        @Override
        public long millis() {
            return instant().toEpochMilli();
        }
    }

    @Test
    void shouldNotResurrectCheckpointsOfATableDeletedDuringRetention() throws Exception {
        MemVfs vfs = new MemVfs();
        SignallingClock clock = new SignallingClock();
        Map<String, Long> leaked = new TreeMap<>();
        try (Database db = Database.open(IndexEquivalenceTest.DIR, DatabaseOptions.builder().vfs(vfs).clock(clock)
                .durability(Durability.NONE).streamRetention(Duration.ofHours(1))
                .timeToLiveSweepInterval(Duration.ofDays(1)).build())) {
            for (int attempt = 0; attempt < 10 && leaked.isEmpty(); attempt++) {
                String name = "Table" + attempt;
                int id = db.createTable(TableSpec.builder(name).partitionKey("pk", AttributeValue.Type.S)
                        .streamSpecification(StreamSpecification.enabled(StreamViewType.NEW_AND_OLD_IMAGES)).build()).id();
                db.streamConsumer(name, "app").close();
                Table t = db.table(name);
                for (int i = 0; i < 20_000; i++) {
                    t.putItem(Item.builder().s("pk", "k" + i).build());
                }
                clock.now = clock.now.plus(Duration.ofMinutes(61)); // every record is past the retention
                CountDownLatch started = new CountDownLatch(1);
                clock.armed = started;
                CompletableFuture<Void> retention = CompletableFuture.runAsync(db::flush); // retention first
                assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
                db.deleteTable(name); // while the pass reads the stream's log
                retention.get(60, TimeUnit.SECONDS);
                String prefix = "stream-" + id + "-";
                IndexCrashTest.durableCheckpoints(vfs).forEach((k, v) -> {
                    if (k.startsWith(prefix)) {
                        leaked.put(k, v);
                    }
                });
            }
        }
        assertThat(leaked).as("durable stream checkpoints of deleted tables").isEmpty();
    }
}
