package dev.lacuna;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.ItemModel.Action;
import dev.lacuna.ItemModel.Cond;
import dev.lacuna.ItemModel.Ex;
import dev.lacuna.ItemModel.Forms;
import dev.lacuna.ItemModel.Invalid;
import dev.lacuna.ItemModel.Schema;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Seeded random item operations — conditional puts, updates and deletes with every ReturnValues, transactions
 * (some cancelled), batch writes, gets with projections, batch and transactional gets, queries paged to the
 * end in both directions, parallel scans, flushes, clean reopens and power-loss reopens — run against a
 * {@link Database} and against {@link ItemModel}, under two option sets. Every read must agree exactly, and so
 * must every write's return value or exception. Keys come from small pools, so items collide often; the
 * pools mix orderings that differ between naive and DynamoDB comparisons (UTF-16 vs UTF-8 strings, signed vs
 * unsigned bytes, text vs numeric numbers).
 *
 * <p>Replay with {@code -Ditem.model.seed=S -Ditem.model.ops=N} (operations per option set; the CI default is
 * 2 × 25,000). A failure names the seed, the option set, the failing operation and the ones before it.
 */
class ItemModelTest {
    private static final Path DIR = Path.of("/db");
    private static final List<Schema> SCHEMAS = List.of(
            new Schema("Strs", "pk", AttributeValue.Type.S, "sk", AttributeValue.Type.S),
            new Schema("Nums", "pk", AttributeValue.Type.N, "sk", AttributeValue.Type.N),
            new Schema("Bins", "pk", AttributeValue.Type.B, "sk", AttributeValue.Type.B),
            new Schema("Flat", "id", AttributeValue.Type.S, null, null));

    private static final Object INVALID = "ValidationException";
    private static final Object IDEMPOTENT_MISMATCH = "IdempotentParameterMismatchException";

    /** A failed conditional write, with the item it reports. */
    record CheckFailed(Optional<Item> item) {
    }

    /** A cancelled transaction: the code and reported item of each of its writes. */
    record Cancelled(List<Reason> reasons) {
    }

    record Reason(String code, Item item) {
    }

    /** What a page of a query says. */
    record PageView(List<Item> items, int count, int scannedCount, Map<String, AttributeValue> lastEvaluatedKey) {
    }

    record OptionSet(String name, int partitions, KvOptions storage) {
    }

    static List<OptionSet> optionSets() {
        return List.of(
                new OptionSet("tiny memtables (flushes, compactions), 8 partitions per table", 8, KvOptions.builder()
                        .memtableBytes(4096).memoryBudget(64 * 1024).targetFileBytes(4096).levelBaseBytes(16 * 1024)
                        .build()),
                new OptionSet("default storage, 1 partition per table", 1, KvOptions.builder().build()));
    }

    @Test
    void shouldAgreeWithTheModelUnderEveryOptionSet() {
        int opsPerSet = Integer.getInteger("item.model.ops", 25_000);
        long seed = Long.getLong("item.model.seed", 20260611L);
        long total = 0;
        long compared = 0;
        long mismatches = 0;
        for (OptionSet set : optionSets()) {
            Run run = new Run(set, seed);
            try {
                run.execute(opsPerSet);
            } catch (Throwable t) {
                // A run stops at its first mismatch (the states part there); an error that is no mismatch
                // (the engine threw where the model did not expect it) counts as none.
                System.out.println("item model ops: " + (total + run.ops) + ", mismatches: " + (mismatches + run.mismatches));
                System.out.println("item model results compared: " + (compared + run.compared));
                throw new AssertionError("seed " + seed + ", option set '" + set.name() + "', operation " + run.ops
                        + " failed; replay with -Ditem.model.seed=" + seed + " -Ditem.model.ops=" + (run.ops + 1)
                        + "\nlast operations:\n" + String.join("\n", run.recent), t);
            }
            total += run.ops;
            compared += run.compared;
            mismatches += run.mismatches;
        }
        System.out.println("item model ops: " + total + ", mismatches: " + mismatches);
        System.out.println("item model results compared: " + compared);
        assertThat(mismatches).isZero();
        assertThat(total).isEqualTo(2L * opsPerSet);
        assertThat(compared).as("results compared").isGreaterThanOrEqualTo(total);
    }

    /**
     * The model's first finding, shrunk. A query reads the store with a prefix scan, which skips every table
     * whose bloom filter rules out the item's partition prefix; but the database sets that prefix only for
     * routing ({@code KvOptions.keyPrefix}), not for the tables' filters ({@code SstableOptions.keyPrefix} stays
     * whole-key), so on a table with a sort key every item already flushed is skipped.
     */
    @Test
    void shouldQueryItemsAlreadyFlushedToTables() {
        try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(new MemVfs()).build())) {
            db.createTable(TableSpec.builder("Strs").partitionKey("pk", AttributeValue.Type.S)
                    .sortKey("sk", AttributeValue.Type.S).build());
            Table t = db.table("Strs");
            t.putItem(Item.builder().s("pk", "b").s("sk", "ab").build());
            db.flush();
            t.putItem(Item.builder().s("pk", "b").s("sk", "a").build());
            Page p = t.query(new Query("pk = :p").value(":p", AttributeValue.s("b")));
            assertThat(p.items()).extracting(i -> i.get("sk"))
                    .containsExactly(AttributeValue.s("a"), AttributeValue.s("ab"));
        }
    }

    /** One option set's run: the database, the model, and the random sequence that drives both. */
    static final class Run {
        final OptionSet set;
        final Random random;
        final Forms forms;
        final ItemModel model = new ItemModel(SCHEMAS);
        final ArrayDeque<String> recent = new ArrayDeque<>();
        MemVfs vfs = new MemVfs();
        Database db;
        long ops;
        /** Results compared with the model's, and how many differed (a run stops at the first). */
        long compared;
        long mismatches;
        String lastRejection;

        Run(OptionSet set, long seed) {
            this.set = set;
            this.random = new Random(seed ^ set.name().hashCode());
            this.forms = new Forms(random);
        }

        void execute(int count) {
            db = open();
            for (Schema s : SCHEMAS) {
                TableSpec.Builder spec = TableSpec.builder(s.name()).partitionKey(s.pk(), s.pkType())
                        .partitions(set.partitions());
                db.createTable(s.sk() == null ? spec.build() : spec.sortKey(s.sk(), s.skType()).build());
            }
            try {
                for (ops = 0; ops < count; ops++) {
                    step();
                }
                verifyAll();
            } finally {
                db.close();
            }
        }

        private Database open() {
            return Database.open(DIR, DatabaseOptions.builder().vfs(vfs).storage(set.storage()).build());
        }

        private void step() {
            int dice = random.nextInt(1000);
            if (dice < 170) {
                put();
            } else if (dice < 400) {
                update();
            } else if (dice < 480) {
                delete();
            } else if (dice < 580) {
                get();
            } else if (dice < 660) {
                transact();
            } else if (dice < 700) {
                batchWrite();
            } else if (dice < 890) {
                query();
            } else if (dice < 975) {
                scan();
            } else if (dice < 988) {
                note("flush");
                db.flush();
            } else {
                reopen(dice >= 994);
            }
        }

        // ---- writes

        private void put() {
            Schema s = schema();
            Key key = forms.key(s);
            Item before = model.get(s.name(), key);
            Ex ex = new Ex(random);
            Cond cond = random.nextInt(5) < 2 ? forms.writeCondition(ex, s) : null;
            PutItem request = new PutItem(forms.item(s, key)).returnItemOnConditionFailure(random.nextBoolean())
                    .returnValues(random.nextBoolean() ? ReturnValues.ALL_OLD : ReturnValues.NONE);
            if (cond != null) {
                request.condition(cond.text());
            }
            ex.on(request);
            Object expected;
            if (cond != null && !cond.test().test(attributes(before))) {
                expected = new CheckFailed(Optional.ofNullable(request.returnItemOnConditionFailure() ? before : null));
            } else {
                expected = Optional.ofNullable(request.returnValues() == ReturnValues.ALL_OLD ? before : null);
                model.put(s.name(), request.item());
            }
            note(s.name() + ": " + request + " returning " + request.returnValues());
            agree(expected, outcome(() -> db.putItem(s.name(), request)));
        }

        private void update() {
            Schema s = schema();
            Key key = forms.key(s);
            Item before = model.get(s.name(), key);
            Ex ex = new Ex(random);
            List<Action> actions = random.nextInt(25) == 0 ? List.of() : forms.actions(ex, before);
            Cond cond = random.nextInt(3) == 0 ? forms.writeCondition(ex, s) : null;
            UpdateItem request = new UpdateItem(key).returnValues(ReturnValues.values()[random.nextInt(5)])
                    .returnItemOnConditionFailure(random.nextBoolean());
            if (!actions.isEmpty()) {
                request.update(forms.render(actions));
            }
            boolean elementAction = actions.stream().anyMatch(x -> x.text().contains("["));
            if (elementAction && request.returnValues().name().startsWith("UPDATED")) {
                // For a changed list element DynamoDB returns a fragment of the list, which the model does not
                // compute: it knows UPDATED_OLD and UPDATED_NEW for whole top-level attributes only.
                request.returnValues(ReturnValues.ALL_NEW);
            }
            if (cond != null) {
                request.condition(cond.text());
            }
            ex.on(request);
            Object expected;
            if (cond != null && !cond.test().test(attributes(before))) {
                expected = new CheckFailed(Optional.ofNullable(request.returnItemOnConditionFailure() ? before : null));
            } else {
                try {
                    Item after = ItemModel.applyUpdate(before, key, actions);
                    List<String> touched = actions.stream().map(Action::attribute).toList();
                    expected = Optional.ofNullable(switch (request.returnValues()) {
                        case NONE -> null;
                        case ALL_OLD -> before;
                        case ALL_NEW -> after;
                        case UPDATED_OLD -> ItemModel.updated(before, touched);
                        case UPDATED_NEW -> ItemModel.updated(after, touched);
                    });
                    model.store(s.name(), key, after);
                } catch (Invalid e) {
                    expected = INVALID;
                }
            }
            note(s.name() + ": " + request + " returning " + request.returnValues());
            agree(expected, outcome(() -> db.updateItem(s.name(), request)));
        }

        private void delete() {
            Schema s = schema();
            Key key = forms.key(s);
            Item before = model.get(s.name(), key);
            Ex ex = new Ex(random);
            Cond cond = random.nextInt(5) < 2 ? forms.writeCondition(ex, s) : null;
            DeleteItem request = new DeleteItem(key).returnItemOnConditionFailure(random.nextBoolean())
                    .returnValues(random.nextBoolean() ? ReturnValues.ALL_OLD : ReturnValues.NONE);
            if (cond != null) {
                request.condition(cond.text());
            }
            ex.on(request);
            Object expected;
            if (cond != null && !cond.test().test(attributes(before))) {
                expected = new CheckFailed(Optional.ofNullable(request.returnItemOnConditionFailure() ? before : null));
            } else {
                expected = Optional.ofNullable(request.returnValues() == ReturnValues.ALL_OLD ? before : null);
                model.store(s.name(), key, null);
            }
            note(s.name() + ": " + request + " returning " + request.returnValues());
            agree(expected, outcome(() -> db.deleteItem(s.name(), request)));
        }

        /** 2 to 5 writes on two tables; now and then the same item twice, which is invalid. */
        private void transact() {
            List<Schema> pair = new ArrayList<>(SCHEMAS);
            Collections.shuffle(pair, random);
            List<TransactWrite> writes = new ArrayList<>();
            List<Reason> reasons = new ArrayList<>();
            Map<String, Map<Key, Item>> afters = new LinkedHashMap<>();
            Set<String> seen = new HashSet<>();
            boolean duplicate = false;
            boolean cancelled = false;
            int n = 2 + random.nextInt(4);
            for (int i = 0; i < n; i++) {
                Schema s = pair.get(random.nextInt(2));
                Key key = forms.key(s);
                duplicate |= !seen.add(s.name() + key);
                Item before = model.get(s.name(), key);
                Ex ex = new Ex(random);
                int kind = random.nextInt(4);
                Cond cond = kind == 3 || random.nextInt(4) == 0 ? forms.writeCondition(ex, s) : null;
                boolean withItem = random.nextBoolean();
                Item after = before;
                Reason reason = new Reason("None", null);
                boolean passes = cond == null || cond.test().test(attributes(before));
                WriteOp op;
                if (kind == 0) {
                    PutItem put = new PutItem(forms.item(s, key)).returnItemOnConditionFailure(withItem);
                    op = cond == null ? put : put.condition(cond.text());
                    after = put.item();
                } else if (kind == 1) {
                    List<Action> actions = forms.actions(ex, before);
                    UpdateItem update = new UpdateItem(key).update(forms.render(actions))
                            .returnItemOnConditionFailure(withItem);
                    op = cond == null ? update : update.condition(cond.text());
                    if (passes) {
                        try {
                            after = ItemModel.applyUpdate(before, key, actions);
                        } catch (Invalid e) {
                            reason = new Reason("ValidationError", null);
                        }
                    }
                } else if (kind == 2) {
                    DeleteItem delete = new DeleteItem(key).returnItemOnConditionFailure(withItem);
                    op = cond == null ? delete : delete.condition(cond.text());
                    after = null;
                } else {
                    op = new ConditionCheck(key, cond.text()).returnItemOnConditionFailure(withItem);
                }
                ex.onAny((ExpressionRequest<?>) op);
                if (!passes) {
                    reason = new Reason("ConditionalCheckFailed", withItem ? before : null);
                }
                cancelled |= !reason.code().equals("None");
                reasons.add(reason);
                afters.computeIfAbsent(s.name(), k -> new LinkedHashMap<>()).put(key, after);
                writes.add(new TransactWrite(s.name(), op));
            }
            String token = random.nextInt(10) == 0 ? "token-" + ops : null;
            Object expected = duplicate ? INVALID : cancelled ? new Cancelled(reasons) : null;
            note("transact " + writes + (token == null ? "" : " token " + token));
            agree(expected, outcome(() -> {
                db.transactWriteItems(writes, token);
                return null;
            }));
            if (expected == null) {
                afters.forEach((table, items) -> items.forEach((key, item) -> model.store(table, key, item)));
                if (token != null) {
                    note("transact again with token " + token + ": nothing more happens");
                    agree(null, outcome(() -> {
                        db.transactWriteItems(writes, token);
                        return null;
                    }));
                    List<TransactWrite> other = writes.subList(1, writes.size());
                    note("transact " + other + " with token " + token + ", which names another request");
                    agree(IDEMPOTENT_MISMATCH, outcome(() -> {
                        db.transactWriteItems(other, token);
                        return null;
                    }));
                }
            }
        }

        private void batchWrite() {
            BatchWriteItem batch = new BatchWriteItem();
            Map<String, Map<Key, Item>> afters = new LinkedHashMap<>();
            Set<String> seen = new HashSet<>();
            boolean duplicate = false;
            int n = 1 + (random.nextInt(5) == 0 ? random.nextInt(25) : random.nextInt(6));
            for (int i = 0; i < n; i++) {
                Schema s = schema();
                Key key = forms.key(s);
                duplicate |= !seen.add(s.name() + key);
                Item item = random.nextInt(3) == 0 ? null : forms.item(s, key);
                if (item == null) {
                    batch.delete(s.name(), key);
                } else {
                    batch.put(s.name(), item);
                }
                afters.computeIfAbsent(s.name(), k -> new LinkedHashMap<>()).put(key, item);
            }
            note("batch write " + batch.writes());
            Object expected = duplicate ? INVALID : List.of();
            agree(expected, outcome(() -> db.batchWriteItem(batch)));
            if (!duplicate) {
                afters.forEach((table, items) -> items.forEach((key, item) -> model.store(table, key, item)));
            }
        }

        // ---- reads

        private void get() {
            int kind = random.nextInt(10);
            if (kind < 6) {
                Schema s = schema();
                Key key = forms.key(s);
                Ex ex = new Ex(random);
                List<String> paths = random.nextBoolean() ? forms.projection(s) : null;
                GetItem request = new GetItem(key);
                if (paths != null) {
                    request.projection(ex.paths(paths));
                }
                ex.on(request);
                note(s.name() + ": get " + key + " projecting " + request.projection() + " " + ex);
                agree(Optional.ofNullable(projected(model.get(s.name(), key), paths)),
                        outcome(() -> db.getItem(s.name(), request)));
                return;
            }
            // batch or transactional get of distinct keys, some projected
            List<TransactGet> gets = new ArrayList<>();
            List<Optional<Item>> expected = new ArrayList<>();
            Map<String, Map<Item, Integer>> expectedBatch = new HashMap<>();
            Set<String> seen = new HashSet<>();
            int n = 1 + random.nextInt(6);
            for (int i = 0; i < n; i++) {
                Schema s = schema();
                Key key = forms.key(s);
                if (!seen.add(s.name() + key)) {
                    continue;
                }
                Ex ex = new Ex(random);
                List<String> paths = random.nextInt(3) == 0 ? forms.projection(s) : null;
                GetItem g = new GetItem(key);
                if (paths != null) {
                    g.projection(ex.paths(paths));
                }
                ex.on(g);
                gets.add(new TransactGet(s.name(), g));
                Item item = projected(model.get(s.name(), key), paths);
                expected.add(Optional.ofNullable(item));
                if (item != null) {
                    expectedBatch.computeIfAbsent(s.name(), k -> new HashMap<>()).merge(item, 1, Integer::sum);
                }
            }
            if (kind < 8) {
                note("transact get " + describe(gets));
                agree(expected, outcome(() -> db.transactGetItems(gets)));
            } else {
                BatchGetItem batch = new BatchGetItem();
                gets.forEach(g -> batch.get(g.table(), g.get()));
                note("batch get " + describe(gets));
                agree(expectedBatch, outcome(() -> {
                    BatchGetResult result = db.batchGetItem(batch);
                    assertThat(result.unprocessed()).isEmpty();
                    Map<String, Map<Item, Integer>> bag = new HashMap<>();
                    result.responses().forEach((table, items) -> bag.put(table, bag(items)));
                    return bag;
                }));
            }
        }

        /** A query paged to its end, each page checked against the model's. */
        private void query() {
            Schema s = schema();
            AttributeValue pk = forms.partitionKey(s);
            Ex ex = new Ex(random);
            String pkTerm = ex.p(s.pk()) + " = " + ex.v(pk);
            Predicate<AttributeValue> inRange = sk -> true;
            String keyCondition = pkTerm;
            boolean invalid = false;
            if (s.sk() != null && random.nextInt(5) != 0) {
                String sk = ex.p(s.sk());
                String skTerm;
                int kind = random.nextInt(7);
                if (kind < 5) {
                    String op = Forms.COMPARATORS.get(kind == 0 ? 0 : kind + 1);
                    AttributeValue v = forms.keyConditionValue(s);
                    skTerm = sk + " " + op + " " + ex.v(v);
                    inRange = x -> ItemModel.compare(x, op, v);
                } else if (kind == 5) {
                    AttributeValue a = forms.keyConditionValue(s);
                    AttributeValue b = forms.keyConditionValue(s);
                    if (random.nextInt(8) != 0 && ItemModel.compareKeyValues(a, b) > 0) {
                        AttributeValue t = a;
                        a = b;
                        b = t;
                    }
                    invalid = ItemModel.compareKeyValues(a, b) > 0; // DynamoDB rejects a reversed BETWEEN
                    AttributeValue lo = a;
                    AttributeValue hi = b;
                    skTerm = sk + " BETWEEN " + ex.v(a) + " AND " + ex.v(b);
                    inRange = x -> ItemModel.compareKeyValues(x, lo) >= 0 && ItemModel.compareKeyValues(x, hi) <= 0;
                } else {
                    AttributeValue prefix = forms.sortKeyPrefix(s);
                    invalid = s.skType() == AttributeValue.Type.N; // begins_with takes no number
                    skTerm = "begins_with(" + sk + ", " + ex.v(prefix) + ")";
                    inRange = x -> ItemModel.beginsWith(x, prefix);
                }
                keyCondition = random.nextInt(5) == 0 ? skTerm + " AND " + pkTerm : pkTerm + " AND " + skTerm;
            }
            Query q = new Query(keyCondition).scanIndexForward(random.nextBoolean());
            Cond filter = random.nextInt(10) < 3 ? forms.condition(ex, s, false, 0) : null;
            List<String> paths = random.nextInt(5) == 0 ? forms.projection(s) : null;
            if (filter != null) {
                q.filter(filter.text());
            }
            if (paths != null) {
                q.projection(ex.paths(paths));
            } else if (random.nextInt(10) == 0) {
                q.count();
            }
            if (random.nextInt(5) < 2) {
                q.limit(1 + random.nextInt(5));
            }
            ex.on(q);
            List<Item> range = new ArrayList<>();
            for (Item item : model.partition(s.name(), pk)) {
                if (s.sk() == null || inRange.test(item.get(s.sk()))) {
                    range.add(item);
                }
            }
            if (!q.forward()) {
                Collections.reverse(range);
            }
            Map<String, AttributeValue> start = null;
            if (random.nextInt(8) == 0 && !range.isEmpty()) {
                start = s.keyOf(range.get(random.nextInt(range.size()))).attributes();
            }
            note(s.name() + ": query " + keyCondition + " filter " + q.filter() + " projection " + q.projection()
                    + " limit " + q.limit() + " forward " + q.forward() + " count " + q.isCount() + " start " + start + " " + ex);
            int from = start == null ? 0 : range.indexOf(itemAt(range, s, start)) + 1;
            for (int page = 0; ; page++) {
                assertThat(page).as("pages of one query").isLessThan(100);
                q.exclusiveStartKey(start);
                Object expected;
                if (invalid) {
                    expected = INVALID;
                } else {
                    int to = q.limit() == 0 ? range.size() : Math.min(range.size(), from + q.limit());
                    List<Item> read = range.subList(from, to);
                    List<Item> matched = read.stream()
                            .filter(i -> filter == null || filter.test().test(i.attributes())).toList();
                    Map<String, AttributeValue> last = q.limit() > 0 && read.size() == q.limit()
                            ? s.keyOf(read.get(read.size() - 1)).attributes() : null;
                    List<Item> items = q.isCount() ? List.of() : matched.stream().map(i -> projected(i, paths)).toList();
                    expected = new PageView(items, matched.size(), read.size(), last);
                    from = to;
                }
                Object actual = outcome(() -> {
                    Page p = db.query(s.name(), q);
                    return new PageView(p.items(), p.count(), p.scannedCount(), p.lastEvaluatedKey());
                });
                int pageNumber = page;
                agree(() -> "page " + pageNumber + " (the model's range: " + range.stream().map(s::keyOf).toList()
                        + "; the table holds " + db.scan(s.name(), new Scan()).items().stream().map(s::keyOf).toList() + ")",
                        expected, actual);
                if (!(expected instanceof PageView view) || view.lastEvaluatedKey() == null) {
                    return;
                }
                start = view.lastEvaluatedKey();
                note("  next page from " + start);
            }
        }

        private static String describe(List<TransactGet> gets) {
            return gets.stream().map(g -> g.table() + " " + g.get().key() + " projecting " + g.get().projection() + " "
                    + g.get().names() + g.get().values()).toList().toString();
        }

        private static Item itemAt(List<Item> range, Schema s, Map<String, AttributeValue> key) {
            for (Item i : range) {
                if (s.keyOf(i).attributes().equals(key)) {
                    return i;
                }
            }
            throw new IllegalStateException("no item with key " + key);
        }

        /**
         * A parallel scan, every segment paged to its end. The segments must be disjoint and together hold
         * every item; within a segment, a partition key's items come together and in sort key order.
         */
        private void scan() {
            Schema s = schema();
            Ex ex = new Ex(random);
            int total = List.of(1, 1, 2, 3, 4, 5, 8, 13).get(random.nextInt(8));
            Cond filter = random.nextInt(10) < 3 ? forms.condition(ex, s, false, 0) : null;
            List<String> paths = random.nextInt(5) == 0 ? forms.projection(s) : null;
            boolean count = paths == null && random.nextInt(10) == 0;
            int limit = random.nextInt(5) < 2 ? 1 + random.nextInt(7) : 0;
            String projection = paths == null ? null : ex.paths(paths);
            note(s.name() + ": scan in " + total + " segments, filter " + (filter == null ? null : filter.text())
                    + " projection " + paths + " count " + count + " limit " + limit + " " + ex);
            List<Item> found = new ArrayList<>();
            int scanned = 0;
            int matched = 0;
            for (int segment = 0; segment < total; segment++) {
                List<Item> inSegment = new ArrayList<>();
                Map<String, AttributeValue> start = null;
                for (int page = 0; ; page++) {
                    assertThat(page).as("pages of one scan segment").isLessThan(1000);
                    Scan request = ex.on(new Scan().segment(segment, total)).exclusiveStartKey(start);
                    if (filter != null) {
                        request.filter(filter.text());
                    }
                    if (projection != null) {
                        request.projection(projection);
                    }
                    if (count) {
                        request.count();
                    }
                    if (limit > 0) {
                        request.limit(limit);
                    }
                    Page p = db.scan(s.name(), request);
                    String at = "scan segment " + segment + "/" + total + " page " + page;
                    Supplier<String> where = () -> at + ": " + p;
                    agree(where, true, p.count() <= p.scannedCount() && p.items().size() == (count ? 0 : p.count()));
                    agree(where, true, limit > 0
                            ? p.scannedCount() <= limit && p.hasMore() == (p.scannedCount() == limit) : !p.hasMore());
                    scanned += p.scannedCount();
                    matched += p.count();
                    inSegment.addAll(p.items());
                    if (!p.hasMore()) {
                        break;
                    }
                    start = p.lastEvaluatedKey();
                }
                if (paths == null && s.sk() != null) {
                    checkGrouped(s, segment, inSegment);
                }
                found.addAll(inSegment);
            }
            Collection<Item> all = model.items(s.name());
            List<Item> passing = all.stream().filter(i -> filter == null || filter.test().test(i.attributes())).toList();
            agree("items scanned", all.size(), scanned);
            agree("items matched", passing.size(), matched);
            if (!count) {
                agree("items found", bag(passing.stream().map(i -> projected(i, paths)).toList()), bag(found));
            }
        }

        private void checkGrouped(Schema s, int segment, List<Item> items) {
            Set<AttributeValue> done = new HashSet<>();
            Item previous = null;
            for (Item item : items) {
                AttributeValue pk = item.get(s.pk());
                if (previous != null && previous.get(s.pk()).equals(pk)) {
                    agree("sort key order in scan segment " + segment + ": " + previous + " then " + item, true,
                            ItemModel.compareKeyValues(previous.get(s.sk()), item.get(s.sk())) < 0);
                } else {
                    agree("partition key " + pk + " comes together in scan segment " + segment, true, done.add(pk));
                }
                previous = item;
            }
        }

        // ---- the database as a whole

        private void reopen(boolean powerLoss) {
            if (powerLoss) {
                // Every write was acknowledged with SYNC, so all of it must survive losing what was not synced.
                MemVfs crashed = random.nextBoolean() ? vfs.crashClone() : vfs.crashClone(random);
                note("power loss and reopen");
                db.close();
                vfs = crashed;
            } else {
                note("close and reopen");
                db.close();
            }
            db = open();
            verifyAll();
        }

        private void verifyAll() {
            for (Schema s : SCHEMAS) {
                Page p = db.scan(s.name(), new Scan());
                agree("whole table " + s.name(), bag(model.items(s.name())), bag(p.items()));
                for (Item item : model.items(s.name())) {
                    agree("item " + s.keyOf(item), Optional.of(item), db.getItem(s.name(), new GetItem(s.keyOf(item))));
                }
            }
        }

        private Schema schema() {
            return SCHEMAS.get(random.nextInt(SCHEMAS.size()));
        }

        // ---- checking

        private void note(String op) {
            recent.addLast("#" + ops + " " + op);
            if (recent.size() > 15) {
                recent.removeFirst();
            }
        }

        private void agree(Object expected, Object actual) {
            agree("result", expected, actual);
        }

        private void agree(String what, Object expected, Object actual) {
            agree(() -> what, expected, actual);
        }

        private void agree(Supplier<String> what, Object expected, Object actual) {
            compared++;
            if (!Objects.equals(expected, actual)) {
                mismatches++;
                throw new AssertionError(what.get() + " differs\n  model:    " + expected + "\n  database: " + actual
                        + (actual == INVALID ? " (" + lastRejection + ")" : ""));
            }
        }

        /** What a call returned, or the exception it threw as a comparable value. */
        private Object outcome(Supplier<?> call) {
            try {
                return call.get();
            } catch (ConditionalCheckFailedException e) {
                return new CheckFailed(e.item());
            } catch (TransactionCanceledException e) {
                return new Cancelled(e.reasons().stream().map(r -> new Reason(r.code(), r.item())).toList());
            } catch (ValidationException e) {
                lastRejection = e.getMessage();
                return INVALID;
            } catch (IdempotentParameterMismatchException e) {
                return IDEMPOTENT_MISMATCH;
            }
        }
    }

    private static Item projected(Item item, List<String> paths) {
        return item == null || paths == null ? item : ItemModel.project(item, paths);
    }

    private static Map<String, AttributeValue> attributes(Item item) {
        return item == null ? Map.of() : item.attributes();
    }

    private static Map<Item, Integer> bag(Collection<Item> items) {
        Map<Item, Integer> bag = new HashMap<>();
        items.forEach(i -> bag.merge(i, 1, Integer::sum));
        return bag;
    }
}
