package dev.lacuna;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
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
            assertThat(closed.has("GSI1PK")).isFalse();
            assertThat(closed.get("status")).isEqualTo(AttributeValue.s("CLOSED"));
        }
    }
}
