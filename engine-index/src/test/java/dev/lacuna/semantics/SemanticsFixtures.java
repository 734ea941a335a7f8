package dev.lacuna.semantics;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.Page;
import dev.lacuna.Table;
import dev.lacuna.TableSpec;
import static dev.lacuna.AttributeValue.s;

import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * What the Semantics*Test classes share: an in-memory database, tables of the usual shapes, and reading
 * every page of a query or scan. The expected behaviour throughout is DynamoDB's (SEMANTICS.md).
 */
final class SemanticsFixtures {
    static final Path DIR = Path.of("/db");

    private SemanticsFixtures() {
    }

    static DatabaseOptions options(MemVfs vfs) {
        return DatabaseOptions.builder().vfs(vfs).build();
    }

    /** A database on a fresh in-memory file system. */
    static Database memDb() {
        return Database.open(DIR, options(new MemVfs()));
    }

    /** Creates a table with a partition key {@code pk} and, if {@code skType} is not null, a sort key {@code sk}. */
    static Table table(Database db, String name, AttributeValue.Type pkType, AttributeValue.Type skType) {
        TableSpec.Builder spec = TableSpec.builder(name).partitionKey("pk", pkType);
        if (skType != null) {
            spec.sortKey("sk", skType);
        }
        db.createTable(spec.build());
        return db.table(name);
    }

    /** A table keyed by string {@code pk} and string {@code sk}. */
    static Table stringTable(Database db, String name) {
        return table(db, name, AttributeValue.Type.S, AttributeValue.Type.S);
    }

    static Key key(String pk, String sk) {
        return Key.of("pk", s(pk), "sk", s(sk));
    }

    static Key key(String pk) {
        return Key.of("pk", s(pk));
    }

    /**
     * Every page of a query or scan: {@code request} builds the request for a start key (null for the
     * first page). Fails if the pages do not end within {@code maxPages}.
     */
    static List<Page> allPages(Function<Map<String, AttributeValue>, Page> request, int maxPages) {
        List<Page> pages = new ArrayList<>();
        Map<String, AttributeValue> start = null;
        do {
            if (pages.size() == maxPages) {
                throw new AssertionError("more than " + maxPages + " pages");
            }
            Page page = request.apply(start);
            pages.add(page);
            start = page.lastEvaluatedKey();
        } while (start != null);
        return pages;
    }

    /** The items of all {@code pages}, in order. */
    static List<Item> items(List<Page> pages) {
        List<Item> out = new ArrayList<>();
        pages.forEach(p -> out.addAll(p.items()));
        return out;
    }

    /** The values of {@code attribute} of {@code items}, in order (null where absent). */
    static List<AttributeValue> column(List<Item> items, String attribute) {
        List<AttributeValue> out = new ArrayList<>();
        items.forEach(i -> out.add(i.get(attribute)));
        return out;
    }

    /** {@code size} bytes of filler text. */
    static String filler(int size) {
        return "x".repeat(size);
    }
}
