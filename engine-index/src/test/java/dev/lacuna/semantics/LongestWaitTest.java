package dev.lacuna.semantics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.KeyAttribute;
import dev.lacuna.Query;
import dev.lacuna.StreamConsumer;
import dev.lacuna.StreamSpecification;
import dev.lacuna.StreamViewType;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A caller that means "wait as long as it takes" may pass the longest {@link Duration} there is. Waits turned it
 * into nanoseconds with {@link Duration#toNanos()}, which throws {@link ArithmeticException} past ~292 years: the
 * query or poll failed before it waited at all. The longest wait is a wait without a practical bound.
 */
class LongestWaitTest {
    private static final Path DIR = Path.of("/db");
    private static final Duration FOREVER = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);

    @Test
    void shouldAnswerAReadYourWritesQueryThatMayWaitForever() {
        try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(new MemVfs()).build())) {
            db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
                    .index(IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK"))).build());
            Table t = db.table("Tickets");
            t.putItem(Item.builder().s("pk", "T1").s("GSI1PK", "Q").s("GSI1SK", "S1").build());
            Query q = new Query("GSI1PK = :q").index("GSI1").value(":q", AttributeValue.s("Q")).readYourWrites(FOREVER);
            assertThat(t.query(q).items()).hasSize(1);
        }
    }

    @Test
    void shouldPollAStreamThatMayWaitForever() throws Exception {
        try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(new MemVfs()).build())) {
            db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
                    .streamSpecification(StreamSpecification.enabled(StreamViewType.KEYS_ONLY)).build());
            db.table("Tickets").putItem(Item.builder().s("pk", "T1").build());
            try (StreamConsumer c = db.streamConsumer("Tickets", "app")) {
                assertThat(c.poll(10, FOREVER).records()).hasSize(1);
            }
        }
    }
}
