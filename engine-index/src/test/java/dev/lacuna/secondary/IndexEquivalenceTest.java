package dev.lacuna.secondary;

import static dev.lacuna.AttributeValue.n;
import static dev.lacuna.AttributeValue.s;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.BatchWriteItem;
import dev.lacuna.ConditionCheck;
import dev.lacuna.ConditionalCheckFailedException;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.DeleteItem;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.KeyAttribute;
import dev.lacuna.PutItem;
import dev.lacuna.Scan;
import dev.lacuna.TableSpec;
import dev.lacuna.TransactWrite;
import dev.lacuna.TransactionCanceledException;
import dev.lacuna.UpdateItem;
import dev.lacuna.ValidationException;
import dev.lacuna.WriteOp;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every index equals its recomputation from the table after seeded random workloads: items moved between
 * index partitions, index keys removed and added again, projected and unprojected attributes changed,
 * deletes, re-puts, transactions and batches, on a table with an overloaded GSI (the CRM seed's GSI1), a
 * GSI with a number sort key and a narrow projection, and an LSI; with default and with tiny memtables (so
 * that index keyspaces are flushed and compacted while the updater writes them), across a clean restart.
 * Knobs: {@code -Dindex.equivalence.ops=N} (per run), {@code -Dindex.equivalence.seed=S}.
 */
class IndexEquivalenceTest {
    static final Path DIR = Path.of("/db");
    static final Duration WAIT = Duration.ofSeconds(30);

    static DatabaseOptions options(MemVfs vfs, boolean tiny) {
        DatabaseOptions.Builder b = DatabaseOptions.builder().vfs(vfs);
        if (tiny) {
            b.storage(KvOptions.builder().memtableBytes(8192).memoryBudget(64 * 1024).targetFileBytes(8192)
                    .levelBaseBytes(32 * 1024).build());
        }
        return b.build();
    }

    @ParameterizedTest(name = "tiny memtables {0}, {1} projection, more shapes {2}")
    @CsvSource({"false, INCLUDE, false", "true, INCLUDE, false", "false, KEYS_ONLY, false", "true, KEYS_ONLY, false",
        "true, INCLUDE, true"})
    void shouldKeepEveryIndexEqualToItsRecomputation(boolean tiny, IndexSpec.Projection projection, boolean shapes) {
        int ops = Integer.getInteger("index.equivalence.ops", 3000);
        long seed = Long.getLong("index.equivalence.seed", 42L) + (tiny ? 1 : 0) + projection.ordinal() * 10L
                + (shapes ? 100 : 0);
        MemVfs vfs = new MemVfs();
        Random random = new Random(seed);
        Database db = Database.open(DIR, options(vfs, tiny));
        Workload w = new Workload(db, random, 40);
        try {
            db.createTable(shapes ? Workload.moreShapes(projection) : Workload.spec(projection));
            for (int i = 1; i <= ops; i++) {
                if (i == ops / 2) { // a clean restart: the updaters resume from their checkpoints
                    db.close();
                    db = Database.open(DIR, options(vfs, tiny));
                    Workload next = new Workload(db, random, 40);
                    next.counts.putAll(w.counts);
                    w = next;
                }
                w.step();
                if (i % 500 == 0 || i == ops) {
                    List<IndexChecker.Report> reports = IndexChecker.checkAll(db, Workload.TABLE, WAIT);
                    assertThat(IndexChecker.mismatches(reports)).as("seed %d after %d ops: %s", seed, i, reports).isZero();
                    assertThat(reports).allSatisfy(r -> assertThat(r.expected()).as("%s", r).isPositive());
                }
            }
            if (tiny) {
                assertThat(db.storageStats().flushes()).as("tiny memtables flush").isPositive();
            }
        } finally {
            db.close();
        }
        assertThat(w.counts.keySet()).as("every kind of operation ran").containsAll(Workload.KINDS);
    }

    @Test
    void shouldReportMissingExtraAndDifferentEntries() {
        TableSpec spec = Workload.spec(IndexSpec.Projection.KEYS_ONLY);
        IndexSpec seen = spec.index(Workload.GSI2);
        Item a = Item.builder().s("pk", "CONTACT#1").s("sk", "PROFILE").s("region", "EU").n("lastSeenAt", 5).build();
        Item b = a.with("pk", s("CONTACT#2"));
        Item c = a.with("pk", s("CONTACT#3")).with("lastSeenAt", s("not a number")); // wrong type: not indexed
        Map<IndexChecker.EntryKey, Item> expected = IndexChecker.recompute(spec, seen, List.of(a, b, c));
        assertThat(expected).hasSize(2);
        IndexChecker.Report same = IndexChecker.compare("t", "i", spec, seen, expected, List.of(b, a));
        assertThat(same.mismatches()).isZero();
        // a is missing, b carries an attribute KEYS_ONLY leaves out, c's entry should not be there, a stale copy
        // of b sits under another sort key, and one entry is read twice.
        Item stale = b.with("lastSeenAt", n(4));
        IndexChecker.Report bad = IndexChecker.compare("t", "i", spec, seen, expected,
                List.of(b.with("note", s("x")), a.with("pk", s("CONTACT#3")), stale, stale));
        assertThat(bad.missing()).isEqualTo(1);
        assertThat(bad.different()).isEqualTo(1);
        assertThat(bad.extra()).isEqualTo(3);
        assertThat(bad.mismatches()).isEqualTo(5);
    }

    @Test
    void shouldRefuseWritesThatBreakAnIndexKeyType() {
        try (Database db = Database.open(DIR, options(new MemVfs(), false))) {
            db.createTable(Workload.spec(IndexSpec.Projection.INCLUDE));
            Workload w = new Workload(db, new Random(1), 4);
            for (int i = 0; i < 20; i++) {
                assertThatThrownBy(() -> w.invalid()).isInstanceOf(ValidationException.class);
            }
            assertThat(IndexChecker.scanAll(db, Workload.TABLE, new Scan())).isEmpty();
        }
    }

    /**
     * The random workload on the CRM-like table, one step at a time; several instances may share a database
     * (one per writer thread). Keys are drawn from a small set so that items are often written again.
     */
    static final class Workload {
        static final String TABLE = "Contacts";
        static final String GSI1 = "GSI1";
        static final String GSI2 = "BySeen";
        static final String LSI = "ByScore";
        static final List<String> KINDS = List.of("put", "move", "projected", "unprojected", "removeKey", "addKey",
                "bump", "delete", "conditionFailed", "transaction", "transactionCancelled", "batch", "noop");
        private static final String[] COMPANIES = {"halden-mill", "orrin-labs", "vale-co", "wick-and-sons"};
        private static final String[] TAGS = {"decision-maker", "champion", "churn-risk", "new"};
        private static final String[] NAMES = {"Nadia", "Priya", "Tomas", "Ines", "Jun", "Ola", "Bea", "Kofi"};
        private static final String[] REGIONS = {"EU", "US", "APAC"};

        final Map<String, Integer> counts = new TreeMap<>();
        private final Database db;
        private final Random random;
        private final int contacts;

        Workload(Database db, Random random, int contacts) {
            this.db = db;
            this.random = random;
            this.contacts = contacts;
        }

        /** The table: GSI1 overloaded (COMPANY#/TAG#), BySeen (region, lastSeenAt N; narrow), ByScore (LSI on score). */
        static TableSpec spec(IndexSpec.Projection seenProjection) {
            IndexSpec seen = IndexSpec.global(GSI2, KeyAttribute.s("region"), KeyAttribute.n("lastSeenAt"))
                    .withPartitions(2);
            seen = seenProjection == IndexSpec.Projection.INCLUDE
                    ? seen.withProjection(IndexSpec.Projection.INCLUDE, "name", "score") : seen.withProjection(seenProjection);
            return TableSpec.builder(TABLE).partitionKey("pk", AttributeValue.Type.S).sortKey("sk", AttributeValue.Type.S)
                    .index(IndexSpec.global(GSI1, KeyAttribute.s("GSI1PK"), KeyAttribute.s("GSI1SK")))
                    .index(seen)
                    .index(IndexSpec.local(LSI, KeyAttribute.n("score")).withProjection(IndexSpec.Projection.INCLUDE, "note"))
                    .build();
        }

        /**
         * The same table with two more GSIs of other shapes: the inverted index (the table's sort key as
         * partition key, its partition key as sort key; KEYS_ONLY) and one with a partition key only.
         */
        static TableSpec moreShapes(IndexSpec.Projection seenProjection) {
            TableSpec t = spec(seenProjection);
            List<IndexSpec> indexes = new ArrayList<>(t.indexes());
            indexes.add(IndexSpec.global("Inverted", KeyAttribute.s("sk"), KeyAttribute.s("pk"))
                    .withProjection(IndexSpec.Projection.KEYS_ONLY));
            indexes.add(IndexSpec.global("ByCompany", KeyAttribute.s("company"), null).withPartitions(1));
            return new TableSpec(t.name(), t.partitionKey(), t.sortKey(), t.partitions(), indexes);
        }

        /** One random operation; throws only on behaviour that is wrong. */
        void step() {
            int r = random.nextInt(100);
            if (r < 18) {
                count("put");
                db.putItem(TABLE, new PutItem(item(randomKey())));
            } else if (r < 30) {
                count("move"); // also adds GSI1 keys back to an item that lost them
                update("SET GSI1PK = :p, GSI1SK = :s", Map.of(":p", s(gsi1pk()), ":s", s(pick(NAMES))));
            } else if (r < 40) {
                count("projected");
                update("SET #n = :n, note = :x", Map.of(":n", s(pick(NAMES)), ":x", s("note-" + random.nextInt(9))));
            } else if (r < 45) {
                count("unprojected"); // in GSI1 (ALL) only
                update("SET company = :c", Map.of(":c", s(pick(COMPANIES))));
            } else if (r < 55) {
                count("removeKey");
                String[] keys = {"GSI1PK", "GSI1SK", "#r", "lastSeenAt", "score"};
                update("REMOVE " + pick(keys), Map.of());
            } else if (r < 63) {
                count("addKey");
                update("SET #r = :r, lastSeenAt = :t, score = :v",
                        Map.of(":r", s(pick(REGIONS)), ":t", number(), ":v", number()));
            } else if (r < 68) {
                count("bump"); // moves within an index partition (a number sort key changes)
                update("ADD lastSeenAt :d", Map.of(":d", n(1 + random.nextInt(3))));
            } else if (r < 76) {
                count("delete");
                db.deleteItem(TABLE, new DeleteItem(randomKey()));
            } else if (r < 79) {
                conditional();
            } else if (r < 88) {
                transaction();
            } else if (r < 96) {
                count("batch");
                BatchWriteItem batch = new BatchWriteItem();
                for (Key k : distinctKeys(2 + random.nextInt(9))) {
                    if (random.nextInt(4) == 0) {
                        batch.delete(TABLE, k);
                    } else {
                        batch.put(TABLE, item(k));
                    }
                }
                assertThat(db.batchWriteItem(batch)).as("unprocessed writes").isEmpty();
            } else {
                count("noop"); // a write that changes nothing
                update("SET company = if_not_exists(company, :c)", Map.of(":c", s(pick(COMPANIES))));
            }
        }

        private void conditional() {
            try {
                db.putItem(TABLE, new PutItem(item(randomKey())).condition("attribute_not_exists(pk)"));
                count("put");
            } catch (ConditionalCheckFailedException e) {
                count("conditionFailed");
            }
        }

        private void transaction() {
            List<Key> keys = distinctKeys(3 + random.nextInt(3)); // the last one is for the doomed check
            List<TransactWrite> ops = new ArrayList<>();
            for (Key k : keys.subList(0, keys.size() - 1)) {
                WriteOp op = switch (random.nextInt(3)) {
                    case 0 -> new PutItem(item(k));
                    case 1 -> new UpdateItem(k).update("SET GSI1PK = :p, #r = :r").name("#r", "region")
                            .value(":p", s(gsi1pk())).value(":r", s(pick(REGIONS)));
                    default -> new DeleteItem(k);
                };
                ops.add(new TransactWrite(TABLE, op));
            }
            boolean doomed = random.nextInt(6) == 0;
            if (doomed) {
                ops.add(new TransactWrite(TABLE, new ConditionCheck(keys.get(keys.size() - 1),
                        "attribute_exists(pk) AND attribute_not_exists(pk)")));
            }
            try {
                db.transactWriteItems(ops);
                assertThat(doomed).as("a transaction with a false condition committed").isFalse();
                count("transaction");
            } catch (TransactionCanceledException e) {
                assertThat(doomed).as("cancelled: %s", e.reasons()).isTrue();
                count("transactionCancelled");
            }
        }

        /** A write that gives an index key the wrong type or an empty value: refused, nothing written. */
        void invalid() {
            Key k = randomKey();
            switch (random.nextInt(4)) {
                case 0 -> db.putItem(TABLE, new PutItem(item(k).with("GSI1PK", n(7))));
                case 1 -> db.putItem(TABLE, new PutItem(item(k).with("region", s(""))));
                case 2 -> db.updateItem(TABLE, new UpdateItem(k).update("SET lastSeenAt = :t").value(":t", s("yesterday")));
                default -> db.updateItem(TABLE, new UpdateItem(k).update("SET score = :v").value(":v", s("high")));
            }
        }

        private void update(String expression, Map<String, AttributeValue> values) {
            UpdateItem u = new UpdateItem(randomKey()).update(expression);
            if (expression.contains("#n")) {
                u.name("#n", "name");
            }
            if (expression.contains("#r")) {
                u.name("#r", "region");
            }
            values.forEach(u::value);
            db.updateItem(TABLE, u);
        }

        /** A profile row (in every index when it has the keys) or a tag row (GSI1 under TAG#, the LSI if scored). */
        private Item item(Key key) {
            String sk = ((AttributeValue.S) key.sortKey()).value();
            String name = pick(NAMES);
            Item.Builder b = Item.builder().put("pk", key.partitionKey()).s("sk", sk);
            if (sk.equals("PROFILE")) {
                String company = pick(COMPANIES);
                b.s("name", name).s("company", company);
                if (random.nextInt(5) > 0) {
                    b.s("GSI1PK", "COMPANY#" + company).s("GSI1SK", name);
                }
                if (random.nextInt(6) > 0) {
                    b.s("region", pick(REGIONS)).put("lastSeenAt", number());
                }
            } else {
                b.s("GSI1PK", sk).s("GSI1SK", name);
            }
            if (random.nextBoolean()) {
                b.put("score", number());
            }
            if (random.nextBoolean()) {
                b.s("note", "n" + random.nextInt(100));
            }
            return b.build();
        }

        private String gsi1pk() {
            return random.nextBoolean() ? "COMPANY#" + pick(COMPANIES) : "TAG#" + pick(TAGS);
        }

        /** Numbers in several spellings: the index must key 1.50 and 1.5 alike. */
        private AttributeValue number() {
            int v = random.nextInt(200) - 20;
            return switch (random.nextInt(3)) {
                case 0 -> n(v);
                case 1 -> n(v + ".50");
                default -> n(v + ".5");
            };
        }

        private Key randomKey() {
            String pk = "CONTACT#" + random.nextInt(contacts);
            String sk = random.nextInt(3) == 0 ? "TAG#" + pick(TAGS) : "PROFILE";
            return Key.of("pk", s(pk), "sk", s(sk));
        }

        private List<Key> distinctKeys(int n) {
            Set<Key> keys = new LinkedHashSet<>();
            while (keys.size() < n) {
                keys.add(randomKey());
            }
            return new ArrayList<>(keys);
        }

        private String pick(String[] values) {
            return values[random.nextInt(values.length)];
        }

        private void count(String kind) {
            counts.merge(kind, 1, Integer::sum);
        }
    }
}
