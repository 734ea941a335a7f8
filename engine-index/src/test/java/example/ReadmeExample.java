package example;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
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
import java.nio.file.Path;
import java.time.Duration;

/**
 * The README's embedding example, in a package of no Lacuna module, so that it uses only what the modules
 * export. {@code ReadmeExampleTest} checks that the README shows exactly the code between the markers and
 * runs it; {@code ModulePathTest} runs {@link #main} in a JVM with Lacuna on the module path.
 */
public final class ReadmeExample {
    /** What the example saw: the queue before the ticket was closed, the closed ticket, the queue after. */
    public record Seen(Page queue, Item closed, Page queueAfter) {
    }

    private ReadmeExample() {
    }

    /** Runs the example in the working directory, as a user would, and prints what it saw. */
    public static void main(String[] args) {
        Seen seen = run(Path.of("helpdesk-data"));
        System.out.println("queue: " + seen.queue().items().size() + " open, closed: " + seen.closed().get("status")
                + ", queue after: " + seen.queueAfter().items().size() + " open");
    }

    /** Runs the example on the database in {@code dir}. */
    public static Seen run(Path dir) {
        // --- README example, from here
        try (Database db = Database.open(dir)) { // SYNC durability by default
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
            Page after = tickets.query(new Query("GSI1PK = :q").index("GSI1")
                    .value(":q", AttributeValue.s("QUEUE#open")).readYourWrites(Duration.ofSeconds(5)));
            return new Seen(queue, closed, after);
        }
    }
}
