package dev.lacuna.semantics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.Item;
import dev.lacuna.StreamBatch;
import dev.lacuna.StreamConsumer;
import dev.lacuna.StreamSpecification;
import dev.lacuna.StreamViewType;
import dev.lacuna.TableSpec;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.vfs.testing.ManualClock;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Review of the streams branch: retention moves a consumer that lost nothing of its table (only other tables'
 * records were dropped) past those records without telling it, and the flush then trims the log; but an open
 * handle that has polled keeps its log reader at its old position, which now needs the trimmed segments.
 */
class StreamOpenReaderTrimTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T10:00:00Z"));

    @Test
    void shouldGoOnAfterRetentionTrimmedOtherTablesRecordsUnderAnOpenReader() {
        // fails with StorageIOException: write-ahead log no longer holds LSN 1 (trimmed by retention), at every poll
        MemVfs vfs = new MemVfs();
        try (Database db = Database.open(Path.of("/db"), DatabaseOptions.builder().vfs(vfs).clock(clock)
                .streamRetention(Duration.ofHours(1)).timeToLiveSweepInterval(Duration.ofDays(1))
                .storage(KvOptions.builder().wal(WalOptions.defaults().withBlockSize(1024).withSegmentSize(16 * 1024)
                        .withPreallocate(1024)).build()).build())) {
            db.createTable(TableSpec.builder("Quiet").partitionKey("pk", AttributeValue.Type.S)
                    .streamSpecification(StreamSpecification.enabled(StreamViewType.NEW_IMAGE)).build());
            db.createTable(TableSpec.builder("Busy").partitionKey("pk", AttributeValue.Type.S).build());
            StreamConsumer idle = db.streamConsumer("Quiet", "idle");
            assertThat(idle.poll(10).records()).isEmpty(); // its log reader is open now
            for (int i = 0; i < 200; i++) {
                db.table("Busy").putItem(Item.builder().s("pk", "b" + i).s("body", "x".repeat(500)).build());
            }
            clock.advance(Duration.ofMinutes(61));
            db.table("Busy").putItem(Item.builder().s("pk", "late").build());
            long kept = db.stats().logBytes();
            db.flush(); // retention moves idle past Busy's records (nothing of Quiet lost), the log is trimmed
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (db.stats().logBytes() >= kept / 2 && System.nanoTime() < deadline) {
                Thread.onSpinWait(); // the trim follows the flush's manifest edit
            }
            assertThat(db.stats().logBytes()).as("log trimmed").isLessThan(kept / 2);
            db.table("Quiet").putItem(Item.builder().s("pk", "q").build());
            StreamBatch b = idle.poll(10);
            assertThat(b.records()).extracting(r -> r.keys().get("pk")).containsExactly(AttributeValue.s("q"));
            idle.close();
        }
    }
}
