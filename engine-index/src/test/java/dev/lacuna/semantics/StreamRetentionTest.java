package dev.lacuna.semantics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import dev.lacuna.TrimmedDataAccessException;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.vfs.testing.ManualClock;
import dev.lacuna.storage.LacunaException;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A stream keeps records for its retention (by the injected clock), not forever: a consumer that stalls past it
 * is told ({@link TrimmedDataAccessException}, never silent loss), a consumer that kept up loses nothing, and the
 * log is trimmed so the disk does not fill. The retention is applied by {@link Database#flush()} (and by the
 * background thread after each time-to-live pass).
 */
class StreamRetentionTest {
    private static final Path DIR = Path.of("/db");
    private static final String TABLE = "Tickets";
    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T10:00:00Z"));

    private Database open(MemVfs vfs) {
        // Small log segments, so that a trim is seen in the log's size; an hour's retention; the background pass
        // rests far longer than the test takes, so only flush() applies the retention here.
        return Database.open(DIR, DatabaseOptions.builder().vfs(vfs).clock(clock).streamRetention(Duration.ofHours(1))
                .timeToLiveSweepInterval(Duration.ofDays(1))
                .storage(KvOptions.builder().wal(WalOptions.defaults().withBlockSize(1024).withSegmentSize(16 * 1024)
                        .withPreallocate(1024)).build()).build());
    }

    private static Item ticket(int i) {
        return Item.builder().s("pk", "t" + i).s("body", "x".repeat(500)).build();
    }

    @Test
    void shouldTellAStalledConsumerAndTrimTheLog() {
        MemVfs vfs = new MemVfs();
        try (Database db = open(vfs)) {
            db.createTable(TableSpec.builder(TABLE).partitionKey("pk", AttributeValue.Type.S)
                    .streamSpecification(StreamSpecification.enabled(StreamViewType.KEYS_ONLY)).build());
            db.createTable(TableSpec.builder("Quiet").partitionKey("pk", AttributeValue.Type.S)
                    .streamSpecification(StreamSpecification.enabled(StreamViewType.NEW_IMAGE)).build());
            StreamConsumer idle = db.streamConsumer("Quiet", "idle"); // its table is not written: it loses nothing
            Table t = db.table(TABLE);
            StreamConsumer stalled = t.streamConsumer("stalled");
            StreamConsumer active = t.streamConsumer("active");
            for (int i = 0; i < 200; i++) {
                t.putItem(ticket(i));
            }
            assertThat(drainAndCommit(active)).hasSize(200);
            StreamBatch firstTwo = stalled.poll(2);
            stalled.commit(firstTwo); // then it stalls

            db.flush(); // within the retention: nothing is dropped, the stream keeps the log
            long kept = db.stats().logBytes();
            assertThat(kept).isGreaterThan(200 * 500);

            clock.advance(Duration.ofMinutes(61));
            for (int i = 200; i < 210; i++) {
                t.putItem(ticket(i));
            }
            db.flush(); // the first 200 are past the retention now
            long trimmed = db.stats().logBytes();
            assertThat(trimmed).as("log bytes after retention, before %d", kept).isLessThan(kept / 2);

            assertThatThrownBy(() -> stalled.poll(10)).isInstanceOf(TrimmedDataAccessException.class)
                    .isInstanceOf(LacunaException.class).hasMessageContaining("stalled")
                    .hasMessageContaining("retention");
            assertThatThrownBy(() -> stalled.commit(firstTwo)).isInstanceOf(TrimmedDataAccessException.class);
            // The consumer that kept up loses nothing.
            assertThat(drainAndCommit(active)).extracting(r -> r.keys().get("pk"))
                    .containsExactlyElementsOf(range(200, 210));
            // Retention moved the idle consumer past other tables' records only: not trimmed, it goes on.
            assertThat(idle.poll(10).records()).isEmpty();
            db.table("Quiet").putItem(Item.builder().s("pk", "q").build());
            assertThat(idle.poll(10).records()).extracting(r -> r.keys().get("pk")).containsExactly(AttributeValue.s("q"));
            idle.close();
            stalled.close();
            active.close();
        }
        try (Database db = open(vfs); StreamConsumer stalled = db.streamConsumer(TABLE, "stalled")) {
            // Still told after a restart: the mark is durable.
            assertThatThrownBy(() -> stalled.poll(10)).isInstanceOf(TrimmedDataAccessException.class);
            stalled.resetToTrimHorizon(); // accepts the loss: goes on from the oldest record kept
            assertThat(drainAndCommit(stalled)).extracting(r -> r.keys().get("pk"))
                    .containsExactlyElementsOf(range(200, 210));
        }
    }

    private static List<AttributeValue> range(int from, int to) {
        return java.util.stream.IntStream.range(from, to).mapToObj(i -> AttributeValue.s("t" + i)).toList();
    }

    private static List<StreamRecord> drainAndCommit(StreamConsumer c) {
        List<StreamRecord> all = new java.util.ArrayList<>();
        for (StreamBatch b = c.poll(50); !b.records().isEmpty(); b = c.poll(50)) {
            all.addAll(b.records());
            c.commit(b);
        }
        return all;
    }
}
