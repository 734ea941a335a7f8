package dev.lacuna.secondary;

import dev.lacuna.IndexStatus;
import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.IndexDescription;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.KeyAttribute;
import dev.lacuna.Page;
import dev.lacuna.Query;
import dev.lacuna.Scan;
import dev.lacuna.TableSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * Checks an index against the table it indexes: recomputes the index from a full scan of the table (the
 * sparse rule, the projection, the entry key) independently of the engine's own code, reads the index as
 * it is with {@code Scan.index}, and reports every entry that is missing, extra or different. Equality is
 * exact: an entry holding one attribute too many or too few is different.
 */
final class IndexChecker {
    /** Rows per scan page: small, so that paging with exclusive start keys is exercised too. */
    private static final int PAGE = 97;
    /** Examples of mismatches kept in a report (the counts are exact). */
    private static final int EXAMPLES = 12;

    private IndexChecker() {
    }

    /** Where an entry sits in an index: the index keys, then the table's keys (null where a key has no sort key). */
    record EntryKey(AttributeValue indexPk, AttributeValue indexSk, AttributeValue tablePk, AttributeValue tableSk) {
    }

    /**
     * What one comparison found.
     *
     * @param expected  entries the recomputation holds
     * @param actual    entries the index holds
     * @param missing   recomputed entries the index lacks
     * @param extra     index entries the recomputation lacks (including an entry read twice)
     * @param different entries at the same key with other contents
     * @param examples  a few of them, described
     */
    record Report(String table, String index, int expected, int actual, int missing, int extra, int different,
                  List<String> examples) {
        int mismatches() {
            return missing + extra + different;
        }

        @Override
        public String toString() {
            return table + "." + index + ": " + expected + " expected, " + actual + " actual, " + missing + " missing, "
                    + extra + " extra, " + different + " different" + (examples.isEmpty() ? "" : " " + examples);
        }
    }

    /**
     * Compares index {@code index} of {@code table} with its recomputation. The table and the index are read
     * one after the other: call it with no write in flight, and for a GSI after {@link #awaitCatchUp}.
     */
    static Report check(Database db, String table, String index) {
        TableSpec spec = db.describeTable(table).spec();
        IndexSpec indexSpec = Objects.requireNonNull(spec.index(index), index);
        Map<EntryKey, Item> expected = recompute(spec, indexSpec, scanAll(db, table, new Scan()));
        List<Item> actual = scanAll(db, table, new Scan().index(index));
        return compare(table, index, spec, indexSpec, expected, actual);
    }

    /** Checks every index of {@code table}, each after waiting for it to catch up. */
    static List<Report> checkAll(Database db, String table, Duration timeout) {
        List<Report> reports = new ArrayList<>();
        for (IndexSpec index : db.describeTable(table).spec().indexes()) {
            awaitCatchUp(db, table, index.name(), timeout);
            reports.add(check(db, table, index.name()));
        }
        return reports;
    }

    /** The index as its definition says it must be, for the items of a table. */
    static Map<EntryKey, Item> recompute(TableSpec table, IndexSpec index, List<Item> items) {
        Map<EntryKey, Item> entries = new LinkedHashMap<>();
        for (Item item : items) {
            AttributeValue pk = indexKey(item, index.partitionKey());
            AttributeValue sk = index.sortKey() == null ? null : indexKey(item, index.sortKey());
            if (pk == null || (index.sortKey() != null && sk == null)) {
                continue; // sparse: not in the index
            }
            Item old = entries.put(keyOf(table, index, item), project(table, index, item));
            if (old != null) {
                throw new IllegalStateException("two items of " + table.name() + " have the same key: " + item);
            }
        }
        return entries;
    }

    /** The value of an index key attribute if the item has it with the declared type and non-empty, else null. */
    private static AttributeValue indexKey(Item item, KeyAttribute key) {
        AttributeValue v = item.get(key.name());
        if (v == null || v.type() != key.type()) {
            return null;
        }
        if (v instanceof AttributeValue.S s && s.value().isEmpty()) {
            return null;
        }
        if (v instanceof AttributeValue.B b && b.value().length == 0) {
            return null;
        }
        return v;
    }

    private static Item project(TableSpec table, IndexSpec index, Item item) {
        if (index.projection() == IndexSpec.Projection.ALL) {
            return item;
        }
        List<String> kept = new ArrayList<>(List.of(table.partitionKey().name(), index.partitionKey().name()));
        if (table.sortKey() != null) {
            kept.add(table.sortKey().name());
        }
        if (index.sortKey() != null) {
            kept.add(index.sortKey().name());
        }
        kept.addAll(index.nonKeyAttributes()); // empty unless INCLUDE
        Map<String, AttributeValue> out = new LinkedHashMap<>();
        for (String name : kept) {
            if (item.get(name) != null) {
                out.put(name, item.get(name));
            }
        }
        return Item.of(out);
    }

    private static EntryKey keyOf(TableSpec table, IndexSpec index, Item entry) {
        return new EntryKey(entry.get(index.partitionKey().name()),
                index.sortKey() == null ? null : entry.get(index.sortKey().name()),
                entry.get(table.partitionKey().name()),
                table.sortKey() == null ? null : entry.get(table.sortKey().name()));
    }

    /** Compares a recomputed index with the entries read from the index. */
    static Report compare(String table, String index, TableSpec spec, IndexSpec indexSpec, Map<EntryKey, Item> expected,
                          List<Item> actualEntries) {
        List<String> examples = new ArrayList<>();
        int extra = 0;
        int different = 0;
        Map<EntryKey, Item> actual = new LinkedHashMap<>();
        for (Item entry : actualEntries) {
            EntryKey key = keyOf(spec, indexSpec, entry);
            if (actual.put(key, entry) != null) {
                extra++;
                example(examples, "read twice: " + entry);
            }
        }
        for (Map.Entry<EntryKey, Item> e : actual.entrySet()) {
            Item want = expected.get(e.getKey());
            if (want == null) {
                extra++;
                example(examples, "extra: " + e.getValue());
            } else if (!want.equals(e.getValue())) {
                different++;
                example(examples, "different: " + e.getValue() + " instead of " + want);
            }
        }
        int missing = 0;
        for (Map.Entry<EntryKey, Item> e : expected.entrySet()) {
            if (!actual.containsKey(e.getKey())) {
                missing++;
                example(examples, "missing: " + e.getValue());
            }
        }
        return new Report(table, index, expected.size(), actualEntries.size(), missing, extra, different, examples);
    }

    private static void example(List<String> examples, String s) {
        if (examples.size() < EXAMPLES) {
            examples.add(s.length() > 240 ? s.substring(0, 240) + "…" : s);
        }
    }

    /** Every row of a table or (with {@code Scan.index}) of an index, page by page. */
    static List<Item> scanAll(Database db, String table, Scan first) {
        List<Item> items = new ArrayList<>();
        Scan scan = first.limit(PAGE);
        while (true) {
            Page page = db.scan(table, scan);
            items.addAll(page.items());
            if (!page.hasMore()) {
                return items;
            }
            Scan next = new Scan().limit(PAGE).exclusiveStartKey(page.lastEvaluatedKey());
            scan = first.index() == null ? next : next.index(first.index());
        }
    }

    /**
     * Waits until index {@code index} has applied every write acknowledged before the call: waits for its
     * backfill to end if one runs, takes the LSN of the last write from describeTable (applied plus lag),
     * runs a read-your-writes query on the index (which waits for the index to reach the last LSN when it
     * begins), and checks that describeTable then reports that LSN applied.
     *
     * @return the index's applied LSN afterwards
     */
    static long awaitCatchUp(Database db, String table, String index, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        await(() -> db.describeTable(table).index(index).status() != IndexStatus.CREATING, timeout,
                "index " + index + " still CREATING");
        IndexDescription before = db.describeTable(table).index(index);
        long lastWrite = before.appliedLsn() + before.lagLsn();
        IndexSpec spec = db.describeTable(table).spec().index(index);
        Duration left = Duration.ofNanos(Math.max(1, deadline - System.nanoTime()));
        // Any key value will do: the query waits for the index before it reads.
        db.query(table, new Query("#k = :v").index(index).name("#k", spec.partitionKey().name())
                .value(":v", probe(spec.partitionKey().type())).limit(1).readYourWrites(left));
        await(() -> db.describeTable(table).index(index).appliedLsn() >= lastWrite, left,
                "index " + index + " did not report LSN " + lastWrite + " applied");
        IndexDescription after = db.describeTable(table).index(index);
        if (after.status() != IndexStatus.ACTIVE) {
            throw new AssertionError("index " + index + " is " + after.status());
        }
        return after.appliedLsn();
    }

    private static AttributeValue probe(AttributeValue.Type type) {
        return switch (type) {
            case S -> AttributeValue.s("probe");
            case N -> AttributeValue.n(0);
            case B -> AttributeValue.b(new byte[] {0});
            default -> throw new IllegalArgumentException("not a key type: " + type);
        };
    }

    /**
     * Polls {@code condition} until it holds (a state change this test can only observe, not be told of);
     * fails with {@code what} after {@code timeout}.
     */
    static void await(BooleanSupplier condition, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + " after " + timeout);
            }
            try {
                Thread.sleep(5); // a polling interval, not a synchronisation: the condition decides
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting: " + what, e);
            }
        }
    }

    /** Sums the mismatches of several reports. */
    static int mismatches(List<Report> reports) {
        return reports.stream().mapToInt(Report::mismatches).sum();
    }
}
