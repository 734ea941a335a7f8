package dev.lacuna.semantics;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.DeleteItem;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.Page;
import dev.lacuna.PutItem;
import dev.lacuna.Scan;
import dev.lacuna.TableDescription;
import dev.lacuna.TableSpec;
import dev.lacuna.Tag;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.SoftAssertions.assertSoftly;

import dev.lacuna.semantics.BadInputCases.BadInput;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Runs every invalid request of {@link BadInputCases} against one populated database and checks the
 * promise of SEMANTICS.md, "Limits and validation": each is rejected with its specific exception, and
 * nothing is written. The whole visible state (tables, their descriptions, every item, read page by page)
 * is compared before and after each case, so a request that fails only after writing something is caught;
 * what a case wrongly changed is put back before the next one runs. Prints
 * {@code bad inputs: N, wrong or missing error: W, state changed: C}.
 */
class BadInputCorpusTest {
    private static final Path DIR = Path.of("/db");
    /** Small pages, so that the snapshots also page through exclusive start keys. */
    private static final int PAGE = 7;
    /** -Dlacuna.badInputs.verbose=true lists every case with what it threw. */
    private static final boolean VERBOSE = Boolean.getBoolean("lacuna.badInputs.verbose");

    /** What a client can see of the database. */
    private record State(List<String> tables, Map<String, TableDescription> descriptions,
                         Map<String, List<Item>> items, Map<String, List<Tag>> tags) {
    }

    @Test
    void shouldRejectEveryBadInputWithItsErrorAndChangeNothing() {
        try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(new MemVfs()).build())) {
            BadInputCases.populate(db);
            List<BadInput> cases = new BadInputCases().all();
            List<String> wrong = new ArrayList<>();
            List<String> changed = new ArrayList<>();
            for (BadInput c : cases) {
                State before = snapshot(db);
                Throwable thrown = run(c, db);
                if (VERBOSE) {
                    System.out.println(c.description() + " -> " + thrown);
                }
                String failure = check(c, thrown);
                if (failure != null) {
                    wrong.add(c.description() + ": " + failure);
                }
                if (!snapshot(db).equals(before)) {
                    changed.add(c.description());
                    restore(db, before);
                }
            }
            System.out.println("bad inputs: " + cases.size() + ", wrong or missing error: " + wrong.size()
                    + ", state changed: " + changed.size());
            assertSoftly(softly -> {
                softly.assertThat(cases).hasSizeGreaterThanOrEqualTo(150);
                softly.assertThat(wrong).as("cases with a wrong or missing error").isEmpty();
                softly.assertThat(changed).as("cases that changed the database").isEmpty();
            });
        }
    }

    @Test
    void shouldHoldAtLeast150DistinctCases() {
        List<BadInput> cases = new BadInputCases().all();
        Set<String> descriptions = new HashSet<>();
        List<String> repeated = new ArrayList<>();
        for (BadInput c : cases) {
            if (!descriptions.add(c.description())) {
                repeated.add(c.description());
            }
        }
        assertThat(repeated).as("descriptions used twice").isEmpty();
        assertThat(descriptions).hasSizeGreaterThanOrEqualTo(150);
    }

    /** What the case threw, or null if it returned. */
    private static Throwable run(BadInput c, Database db) {
        try {
            c.request().accept(db);
            return null;
        } catch (RuntimeException | StackOverflowError e) {
            return e;
        }
    }

    /** Why {@code thrown} is not what the case expects, or null if it is. */
    private static String check(BadInput c, Throwable thrown) {
        String expected = c.expected().getSimpleName() + (c.fragment() == null ? "" : " with \"" + c.fragment() + "\"");
        if (thrown == null) {
            return "expected " + expected + ", nothing thrown";
        }
        String message = String.valueOf(thrown.getMessage());
        if (thrown.getClass() == c.expected() && (c.fragment() == null || message.contains(c.fragment()))) {
            return null;
        }
        return "expected " + expected + ", got " + thrown.getClass().getSimpleName() + ": "
                + message.substring(0, Math.min(200, message.length()));
    }

    /**
     * Puts back what a case wrongly changed, so that its failure does not spill into the cases after it (a
     * table it created would make every later create fail with ResourceInUseException).
     */
    private static void restore(Database db, State before) {
        for (String table : db.listTables()) {
            if (!before.descriptions().containsKey(table)) {
                db.deleteTable(table);
            }
        }
        for (TableDescription d : before.descriptions().values()) {
            if (!db.listTables().contains(d.name())) {
                db.createTable(d.spec());
            } else if (!db.describeTable(d.name()).spec().equals(d.spec())) {
                db.updateTable(d.spec());
            }
        }
        State now = snapshot(db);
        for (TableDescription d : before.descriptions().values()) {
            List<Item> wanted = before.items().get(d.name());
            TableSpec spec = d.spec();
            for (Item item : now.items().get(d.name())) {
                if (!wanted.contains(item)) {
                    db.deleteItem(d.name(), new DeleteItem(Key.from(item, spec.partitionKey().name(),
                            spec.sortKey() == null ? null : spec.sortKey().name())));
                }
            }
            for (Item item : wanted) {
                db.putItem(d.name(), new PutItem(item));
            }
        }
        assertThat(snapshot(db).items()).as("the items after a restore").isEqualTo(before.items());
    }

    private static State snapshot(Database db) {
        List<String> tables = db.listTables();
        Map<String, TableDescription> descriptions = new LinkedHashMap<>();
        Map<String, List<Item>> items = new LinkedHashMap<>();
        Map<String, List<Tag>> tags = new LinkedHashMap<>();
        for (String table : tables) {
            descriptions.put(table, db.describeTable(table)); // its time to live included
            tags.put(table, db.listTagsOfResource(table));
            List<Item> all = new ArrayList<>();
            Map<String, AttributeValue> start = null;
            do {
                Scan scan = new Scan().limit(PAGE);
                if (start != null) {
                    scan.exclusiveStartKey(start);
                }
                Page page = db.scan(table, scan);
                all.addAll(page.items());
                start = page.lastEvaluatedKey();
            } while (start != null);
            items.put(table, all);
        }
        return new State(tables, descriptions, items, tags);
    }
}
