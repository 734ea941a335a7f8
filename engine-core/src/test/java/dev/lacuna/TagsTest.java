package dev.lacuna;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Table tags: DynamoDB's rules, each refusal with its message and nothing changed; a tag set that survives a
 * reopen and a power loss; tags that go with their table.
 */
class TagsTest {
    private static final Path DIR = Path.of("/db");
    private static final String PATTERN = "^([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*)$";

    private final MemVfs vfs = new MemVfs();

    private Database open(MemVfs v) {
        return Database.open(DIR, DatabaseOptions.builder().vfs(v).build());
    }

    private static void createTickets(Database db) {
        db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S).build());
    }

    @Test
    void shouldAddReplaceListAndRemoveTags() {
        try (Database db = open(vfs)) {
            createTickets(db);
            assertThat(db.listTagsOfResource("Tickets")).isEmpty();
            db.tagResource("Tickets", List.of(new Tag("team", "support"), new Tag("env", "prod"),
                    new Tag("cost centre/1", "")));
            db.tagResource("Tickets", List.of(new Tag("env", "staging"))); // same key: the value is replaced
            assertThat(db.listTagsOfResource("Tickets")).containsExactly(new Tag("cost centre/1", ""),
                    new Tag("env", "staging"), new Tag("team", "support"));
            db.untagResource("Tickets", List.of("env", "never-there"));
            assertThat(db.listTagsOfResource("Tickets")).containsExactly(new Tag("cost centre/1", ""),
                    new Tag("team", "support"));
        }
    }

    @Test
    void shouldAcceptEveryAllowedCharacterAndTheLongestKeyAndValue() {
        try (Database db = open(vfs)) {
            createTickets(db);
            List<Tag> tags = List.of(new Tag("k".repeat(128), "v".repeat(256)),
                    new Tag("Ünïcödé 日本 ٣", "a_b.c:d/e=f+g-h@i j"),
                    new Tag("𝒳".repeat(128), "𝒴".repeat(256))); // characters, not UTF-16 units, are counted
            db.tagResource("Tickets", tags);
            assertThat(db.listTagsOfResource("Tickets")).containsExactlyInAnyOrderElementsOf(tags);
        }
    }

    @Test
    void shouldRefuseEachBrokenRuleWithItsMessageAndChangeNothing() {
        try (Database db = open(vfs)) {
            createTickets(db);
            db.tagResource("Tickets", List.of(new Tag("team", "support")));
            List<Tag> before = db.listTagsOfResource("Tickets");

            refused(db, d -> d.tagResource("Tickets", List.of()), "Atleast one Tag needs to be provided as Input.");
            refused(db, d -> d.tagResource("Tickets", List.of(new Tag("ok", "1"), new Tag("", "v"))),
                    "1 validation error detected: Value '' at 'tags.2.member.key' failed to satisfy constraint: "
                            + "Member must have length greater than or equal to 1");
            refused(db, d -> d.tagResource("Tickets", List.of(new Tag("k".repeat(129), "v"))),
                    "1 validation error detected: Value '" + "k".repeat(129) + "' at 'tags.1.member.key' failed to "
                            + "satisfy constraint: Member must have length less than or equal to 128");
            refused(db, d -> d.tagResource("Tickets", List.of(new Tag("k", "v".repeat(257)))),
                    "1 validation error detected: Value '" + "v".repeat(257) + "' at 'tags.1.member.value' failed "
                            + "to satisfy constraint: Member must have length less than or equal to 256");
            refused(db, d -> d.tagResource("Tickets", List.of(new Tag("a,b", "v"))),
                    "1 validation error detected: Value 'a,b' at 'tags.1.member.key' failed to satisfy constraint: "
                            + "Member must satisfy regular expression pattern: " + PATTERN);
            refused(db, d -> d.tagResource("Tickets", List.of(new Tag("k", "50%"))),
                    "1 validation error detected: Value '50%' at 'tags.1.member.value' failed to satisfy constraint: "
                            + "Member must satisfy regular expression pattern: " + PATTERN);
            refused(db, d -> d.tagResource("Tickets", List.of(new Tag("aws:cloudformation:stack", "s"))),
                    "One or more parameter values were invalid: Tag key aws:cloudformation:stack starts with the "
                            + "reserved prefix aws:; AWS-assigned tags cannot be set or removed by a user");
            refused(db, d -> d.tagResource("Tickets", List.of(new Tag("AWS:x", "s"))),
                    "One or more parameter values were invalid: Tag key AWS:x starts with the reserved prefix aws:");
            refused(db, d -> d.tagResource("Tickets", List.of(new Tag("env", "a"), new Tag("env", "b"))),
                    "One or more parameter values were invalid: Duplicate tag key env in the request");
            refused(db, d -> d.untagResource("Tickets", List.of()), "Atleast one Tag Key needs to be provided as Input.");
            refused(db, d -> d.untagResource("Tickets", List.of("team", "aws:x")),
                    "One or more parameter values were invalid: Tag key aws:x starts with the reserved prefix aws:");
            refused(db, d -> d.untagResource("Tickets", Arrays.asList("team", null)),
                    "1 validation error detected: Value null at 'tagKeys.2.member' failed to satisfy constraint: "
                            + "Member must not be null");
            assertThat(db.listTagsOfResource("Tickets")).as("tags after refused requests").isEqualTo(before);
        }
    }

    @Test
    void shouldHoldAtMostFiftyTagsCountingThoseThere() {
        try (Database db = open(vfs)) {
            createTickets(db);
            List<Tag> fortyNine = new ArrayList<>();
            for (int i = 0; i < 49; i++) {
                fortyNine.add(new Tag("t" + i, "v"));
            }
            db.tagResource("Tickets", fortyNine);
            db.tagResource("Tickets", List.of(new Tag("t0", "replaced"), new Tag("t49", "v"))); // 50: allowed
            refused(db, d -> d.tagResource("Tickets", List.of(new Tag("t50", "v"))),
                    "One or more parameter values were invalid: A table can have at most 50 tags; this request would "
                            + "give it 51");
            assertThat(db.listTagsOfResource("Tickets")).hasSize(50).contains(new Tag("t0", "replaced"));
        }
    }

    @Test
    void shouldRefuseAMissingTable() {
        try (Database db = open(vfs)) {
            for (Consumer<Database> call : List.<Consumer<Database>>of(
                    d -> d.tagResource("Nope", List.of(new Tag("k", "v"))),
                    d -> d.untagResource("Nope", List.of("k")),
                    d -> d.listTagsOfResource("Nope"))) {
                assertThatThrownBy(() -> call.accept(db)).isInstanceOf(ResourceNotFoundException.class)
                        .hasMessage("Requested resource not found: Table: Nope not found");
            }
        }
    }

    @Test
    void shouldKeepTagsAcrossReopenAndPowerLoss() {
        try (Database db = open(vfs)) {
            createTickets(db);
            db.tagResource("Tickets", List.of(new Tag("team", "support"), new Tag("env", "prod")));
            db.table("Tickets").putItem(Item.builder().s("pk", "TICKET#1").build());
        }
        try (Database db = open(vfs)) {
            assertThat(db.listTagsOfResource("Tickets")).containsExactly(new Tag("env", "prod"), new Tag("team", "support"));
            db.untagResource("Tickets", List.of("env"));
            db.tagResource("Tickets", List.of(new Tag("owner", "ana")));
            // No close: the power goes with the database open, after both changes returned.
            MemVfs crashed = vfs.crashClone();
            try (Database after = open(crashed)) {
                assertThat(after.listTagsOfResource("Tickets")).containsExactly(new Tag("owner", "ana"),
                        new Tag("team", "support"));
                assertThat(after.table("Tickets").getItem(Key.of("pk", AttributeValue.s("TICKET#1")))).isPresent();
            }
        }
    }

    @Test
    void shouldDropTagsWithTheirTable() {
        try (Database db = open(vfs)) {
            createTickets(db);
            db.tagResource("Tickets", List.of(new Tag("team", "support")));
            db.deleteTable("Tickets");
            assertThatThrownBy(() -> db.listTagsOfResource("Tickets")).isInstanceOf(ResourceNotFoundException.class);
            createTickets(db);
            assertThat(db.listTagsOfResource("Tickets")).as("tags of a new table of the same name").isEmpty();
        }
        try (Database db = open(vfs.crashClone())) {
            assertThat(db.listTagsOfResource("Tickets")).isEmpty();
        }
    }

    private static void refused(Database db, Consumer<Database> call, String message) {
        assertThatThrownBy(() -> call.accept(db)).isInstanceOf(ValidationException.class).hasMessageStartingWith(message);
    }
}
