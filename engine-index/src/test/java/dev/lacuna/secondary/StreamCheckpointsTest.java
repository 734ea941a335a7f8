package dev.lacuna.secondary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.StreamConsumer;
import dev.lacuna.StreamSpecification;
import dev.lacuna.StreamViewType;
import dev.lacuna.TableSpec;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * A stream's log checkpoints (its own and its consumers', engine/FORMAT.md "Change streams") live exactly as long
 * as the stream: made durably when it is enabled and when a consumer is made, gone when it is disabled or its table
 * deleted — otherwise a stream nobody reads would keep the log forever. Read from power-loss images of the
 * manifest, as a restart would find them.
 */
class StreamCheckpointsTest {
    private static final Path DIR = IndexEquivalenceTest.DIR;

    private static Set<String> streamCheckpoints(MemVfs vfs) {
        Set<String> names = new TreeSet<>();
        for (String name : IndexCrashTest.durableCheckpoints(vfs).keySet()) {
            if (name.startsWith("stream-")) {
                names.add(name);
            }
        }
        return names;
    }

    @Test
    void shouldKeepAStreamsCheckpointsAsLongAsTheStream() {
        MemVfs vfs = new MemVfs();
        TableSpec plain = TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S).build();
        try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(vfs).build())) {
            int id = db.createTable(plain.withStreamSpecification(StreamSpecification.enabled(StreamViewType.KEYS_ONLY)))
                    .id();
            Set<String> one = streamCheckpoints(vfs);
            assertThat(one).hasSize(1).allMatch(n -> n.startsWith("stream-" + id + "-"));
            String hold = one.iterator().next();
            db.streamConsumer("Tickets", "app").close();
            assertThat(streamCheckpoints(vfs)).containsExactly(hold, hold + "-c-app");

            db.updateTable(plain.withStreamSpecification(StreamSpecification.DISABLED));
            assertThat(streamCheckpoints(vfs)).isEmpty();

            db.updateTable(plain.withStreamSpecification(StreamSpecification.enabled(StreamViewType.NEW_IMAGE)));
            Set<String> again = streamCheckpoints(vfs);
            assertThat(again).hasSize(1).doesNotContain(hold); // a new stream, a new label
            try (StreamConsumer c = db.streamConsumer("Tickets", "app")) {
                assertThat(c.checkpoint()).isNotNegative();
            }
            assertThat(streamCheckpoints(vfs)).hasSize(2);

            db.deleteTable("Tickets");
            assertThat(streamCheckpoints(vfs)).isEmpty();
        }
    }
}
