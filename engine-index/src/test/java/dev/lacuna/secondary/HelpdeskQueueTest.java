package dev.lacuna.secondary;

import dev.lacuna.IndexStatus;
import static dev.lacuna.AttributeValue.s;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.KeyAttribute;
import dev.lacuna.Page;
import dev.lacuna.Query;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import dev.lacuna.UpdateItem;
import dev.lacuna.ValidationException;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The helpdesk seed on a real GSI: the queue holds exactly the open tickets, oldest (or most urgent) first. */
class HelpdeskQueueTest {
    static final Duration WAIT = Duration.ofSeconds(30);

    static Query queue() {
        return new Query("GSI1PK = :q").index("GSI1").value(":q", s("QUEUE#open")).readYourWrites(WAIT);
    }

    static List<String> ids(Page page) {
        return page.items().stream().map(i -> ((AttributeValue.S) i.get("pk")).value()).toList();
    }

    @Test
    void shouldKeepExactlyTheOpenTicketsInTheQueueOldestFirst() {
        MemVfs vfs = new MemVfs();
        try (Database db = Database.open(Path.of("/db"), DatabaseOptions.builder().vfs(vfs).build())) {
            db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S)
                    .index(IndexSpec.global("GSI1", KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK"))).build());
            Table t = db.table("Tickets");
            for (int i = 5; i >= 1; i--) { // opened in reverse id order: the queue must sort by GSI1SK, not by id
                t.putItem(Item.builder().s("pk", "TICKET#" + i).s("status", "OPEN")
                        .s("GSI1PK", "QUEUE#open").s("GSI1SK", "P2#" + (1000 + i)).build());
            }
            t.putItem(Item.builder().s("pk", "TICKET#9").s("status", "CLOSED").build()); // never in the queue
            assertThat(ids(t.query(queue()))).containsExactly("TICKET#1", "TICKET#2", "TICKET#3", "TICKET#4", "TICKET#5");

            t.updateItem(new UpdateItem(Key.of("pk", s("TICKET#2"))).update("SET #s = :c REMOVE GSI1PK, GSI1SK")
                    .name("#s", "status").value(":c", s("CLOSED")));
            assertThat(ids(t.query(queue()))).containsExactly("TICKET#1", "TICKET#3", "TICKET#4", "TICKET#5");

            t.updateItem(new UpdateItem(Key.of("pk", s("TICKET#5"))).update("SET GSI1SK = :p")
                    .value(":p", s("P1#1005")));
            Page page = t.query(queue());
            assertThat(ids(page)).containsExactly("TICKET#5", "TICKET#1", "TICKET#3", "TICKET#4");
            assertThat(db.describeTable("Tickets").index("GSI1").status()).isEqualTo(IndexStatus.ACTIVE);
            // As in DynamoDB, a global index cannot be read with ConsistentRead; readYourWrites is the way.
            assertThatThrownBy(() -> t.query(queue().consistentRead(true))).isInstanceOf(ValidationException.class)
                    .hasMessageContaining("Consistent reads are not supported on global secondary indexes");
        }
    }
}
