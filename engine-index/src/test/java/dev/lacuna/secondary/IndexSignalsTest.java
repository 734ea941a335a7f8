package dev.lacuna.secondary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexSpec;
import dev.lacuna.IndexStatus;
import dev.lacuna.Item;
import dev.lacuna.KeyAttribute;
import dev.lacuna.PutItem;
import dev.lacuna.TableSpec;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The global index updater's signals: a {@code dev.lacuna.IndexApply} JFR event per batch of log records applied (recorded
 * in process, no JVM flag), and an ERROR line naming the index and carrying the cause when it goes FAILED.
 */
class IndexSignalsTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Path DIR = Path.of("/db");

    @Test
    void shouldCommitAnIndexApplyEventPerBatchApplied(@TempDir Path tmp) throws Exception {
        TableSpec spec = TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
                .index(IndexSpec.global("ByQueue", KeyAttribute.s("queue"), null)).build();
        List<RecordedEvent> events;
        try (Recording recording = new Recording()) {
            recording.enable("dev.lacuna.IndexApply").withoutThreshold();
            recording.start();
            try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(new MemVfs()).build())) {
                db.createTable(spec);
                for (int i = 0; i < 20; i++) {
                    db.putItem("Tickets", new PutItem(Item.builder().s("pk", "T" + i).s("queue", "Q" + i % 2).build()));
                }
                IndexChecker.awaitCatchUp(db, "Tickets", "ByQueue", WAIT);
            }
            recording.stop();
            Path file = tmp.resolve("index.jfr");
            recording.dump(file);
            events = RecordingFile.readAllEvents(file).stream()
                    .filter(e -> e.getEventType().getName().equals("dev.lacuna.IndexApply"))
                    .collect(Collectors.toList());
        }
        assertThat(events).isNotEmpty().allSatisfy(e -> {
            assertThat(e.getString("table")).isEqualTo("Tickets");
            assertThat(e.getString("index")).isEqualTo("ByQueue");
            assertThat(e.getLong("lsn")).isPositive();
            assertThat(e.getLong("lagRecords")).isNotNegative();
            assertThat(e.getInt("records")).isPositive();
        });
        // Every put writes one index entry (no old one to delete): the batches hold 20 records (and the table's
        // creation, if the updater read it) with one change and one entry each.
        assertThat(events.stream().mapToInt(e -> e.getInt("records")).sum()).isGreaterThanOrEqualTo(20);
        assertThat(events.stream().mapToInt(e -> e.getInt("changes")).sum()).isEqualTo(20);
        assertThat(events.stream().mapToInt(e -> e.getInt("entries")).sum()).isEqualTo(20);
    }

    @Test
    void shouldLogAnErrorWithTheCauseWhenTheIndexFails() throws Exception {
        UpdaterLog log = new UpdaterLog();
        try (log) {
            GlobalIndexUpdater updater = new GlobalIndexUpdater(new UpdaterFailureTest.FailingLog(),
                    new IndexEntries(new UpdaterFailureTest.FailingLog()));
            updater.start(null);
            try {
                IndexChecker.await(() -> updater.status() == IndexStatus.FAILED, WAIT, "the updater failing");
            } finally {
                updater.close();
            }
        }
        // System.Logger's ERROR is JUL's SEVERE.
        assertThat(log.records).filteredOn(r -> r.getLevel() == Level.SEVERE).singleElement().satisfies(r -> {
            assertThat(r.getMessage()).contains("index GSI1 of table Tickets FAILED");
            assertThat(r.getThrown()).hasMessageContaining("cannot read the log (injected)");
        });
    }
}
