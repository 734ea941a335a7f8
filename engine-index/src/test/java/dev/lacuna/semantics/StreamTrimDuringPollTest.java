package dev.lacuna.semantics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.Item;
import dev.lacuna.StreamConsumer;
import dev.lacuna.StreamSpecification;
import dev.lacuna.StreamViewType;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.vfs.testing.ManualClock;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Review L4: a poll checks, before it reads, whether retention moved its consumer's checkpoint past where the
 * handle's reader stands (and then goes on from the checkpoint). Retention and the log's trim that run after
 * that check, while the poll reads, deleted the segment the reader was about to open, and the poll failed with a
 * {@code StorageIOException} ("segment ... is gone"): a stream processor stopped for good over a consumer that had
 * lost nothing (its table had no record among those dropped), where a poll an instant later would have gone on.
 */
class StreamTrimDuringPollTest {
    private static final Path DIR = Path.of("/db");
    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T10:00:00Z"));

    /** Runs {@link #armed} (once) when the log's next segment file is opened to be read. */
    private static final class HookVfs extends ForwardingVfs {
        volatile Runnable armed;

        HookVfs(MemVfs delegate) {
            super(delegate);
        }

        @Override
        public VfsFile openReadOnly(Path file) throws IOException {
            Runnable hook = armed;
            if (hook != null && file.getFileName().toString().endsWith(".wal")) {
                armed = null;
                hook.run();
            }
            return super.openReadOnly(file);
        }
    }

    @Test
    void shouldGoOnFromTheCheckpointWhenRetentionTrimsTheLogDuringAPoll() {
        HookVfs vfs = new HookVfs(new MemVfs());
        try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(vfs).clock(clock)
                .streamRetention(Duration.ofHours(1)).timeToLiveSweepInterval(Duration.ofDays(1))
                .storage(KvOptions.builder().wal(WalOptions.defaults().withBlockSize(1024).withSegmentSize(16 * 1024)
                        .withPreallocate(1024)).build()).build())) {
            db.createTable(TableSpec.builder("Busy").partitionKey("pk", AttributeValue.Type.S).build());
            db.createTable(TableSpec.builder("Quiet").partitionKey("pk", AttributeValue.Type.S)
                    .streamSpecification(StreamSpecification.enabled(StreamViewType.KEYS_ONLY)).build());
            try (StreamConsumer quiet = db.streamConsumer("Quiet", "quiet")) {
                assertThat(quiet.poll(10).records()).isEmpty(); // its reader now stands at the log's end
                Table busy = db.table("Busy");
                for (int i = 0; i < 200; i++) { // segments the reader has still to read, none with a Quiet write
                    busy.putItem(Item.builder().s("pk", "b" + i).s("body", "x".repeat(500)).build());
                }
                clock.advance(Duration.ofMinutes(61)); // every Busy write is past the retention now
                db.table("Quiet").putItem(Item.builder().s("pk", "q").build());
                // Retention and the log's trim, between the poll's check and its reader's next segment.
                vfs.armed = db::flush;

                assertThat(quiet.poll(10).records()).extracting(r -> r.keys().get("pk"))
                        .containsExactly(AttributeValue.s("q"));
                assertThat(vfs.armed).as("the trim ran during the poll").isNull();
            }
        }
    }
}
