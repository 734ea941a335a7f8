package dev.lacuna.semantics;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.KeyAttribute;
import dev.lacuna.Page;
import dev.lacuna.PutItem;
import dev.lacuna.Query;
import dev.lacuna.ReturnValues;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.UpdateItem;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The README's embedding example, run as written (on the in-memory file system). */
class ReadmeExampleTest {

    @Test
    void shouldRunTheHelpdeskExampleOfTheReadme() {
        DatabaseOptions options = DatabaseOptions.builder().vfs(new MemVfs()).build();
        // --- README example, from here
        try (Database db = Database.open(Path.of("helpdesk-data"), options)) {
            db.createTable(TableSpec.builder("Tickets")
                    .partitionKey("pk", AttributeValue.Type.S)
                    .index(IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK")))
                    .build());
            Table tickets = db.table("Tickets");

            // Open a ticket: it carries the index keys, so it belongs to the queue.
            tickets.putItem(new PutItem(Item.builder()
                    .s("pk", "TICKET#1042").s("subject", "Printer jams").s("status", "OPEN")
                    .n("openedAt", 1_717_000_000).s("GSI1PK", "QUEUE#open").s("GSI1SK", "1717000000")
                    .build())
                    .condition("attribute_not_exists(pk)"));

            // The open queue, oldest first, from an index that holds nothing else. GSIs are eventually
            // consistent; readYourWrites waits until the index has every write acknowledged before the query.
            Page queue = tickets.query(new Query("GSI1PK = :q").index("GSI1")
                    .value(":q", AttributeValue.s("QUEUE#open"))
                    .readYourWrites(Duration.ofSeconds(5)));

            // Close it: set the status and remove the index keys (status is a reserved word: #s).
            Item closed = tickets.updateItem(new UpdateItem(Key.of("pk", AttributeValue.s("TICKET#1042")))
                    .update("SET #s = :closed REMOVE GSI1PK, GSI1SK")
                    .condition("#s = :open")
                    .name("#s", "status")
                    .value(":closed", AttributeValue.s("CLOSED"))
                    .value(":open", AttributeValue.s("OPEN"))
                    .returnValues(ReturnValues.ALL_NEW))
                    .orElseThrow();
            // --- to here
            assertThat(queue.items()).extracting(i -> i.get("pk")).containsExactly(AttributeValue.s("TICKET#1042"));
            assertThat(tickets.query(new Query("GSI1PK = :q").index("GSI1").value(":q", AttributeValue.s("QUEUE#open"))
                    .readYourWrites(Duration.ofSeconds(5))).items()).isEmpty();
            assertThat(closed.has("GSI1PK")).isFalse();
            assertThat(closed.get("status")).isEqualTo(AttributeValue.s("CLOSED"));
        }
    }
}
