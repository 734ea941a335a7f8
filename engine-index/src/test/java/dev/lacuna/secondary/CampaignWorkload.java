package dev.lacuna.secondary;

import static dev.lacuna.AttributeValue.s;

import dev.lacuna.AttributeValue;
import dev.lacuna.BatchWriteItem;
import dev.lacuna.ConditionalCheckFailedException;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.DeleteItem;
import dev.lacuna.GetItem;
import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.KeyAttribute;
import dev.lacuna.PutItem;
import dev.lacuna.Query;
import dev.lacuna.ResourceNotFoundException;
import dev.lacuna.Scan;
import dev.lacuna.TableSpec;
import dev.lacuna.TransactGet;
import dev.lacuna.TransactWrite;
import dev.lacuna.TransactionCanceledException;
import dev.lacuna.UpdateItem;
import dev.lacuna.ValidationException;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.secondary.CampaignModel.Outcome;
import dev.lacuna.secondary.CampaignModel.Write;
import dev.lacuna.storage.Durability;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.Vfs;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The fault campaign's workload: a fixed, seeded sequence of calls on one {@link Database}, made by one
 * thread, that within 150 steps goes through every kind of I/O the engine does — the log
 * and its group commit, memtable flushes, compactions and manifest rewrites (tiny sizes in
 * {@link #options}), WAL segment rolls and trims, GSI updaters applying, flushing and checkpointing their
 * keyspaces, schema changes (a GSI removed, another added and backfilled), a clean restart (each updater
 * checkpoints on close, the store recovers on open), transactions with and without a client request
 * token (retried at once, and again after the restart), batch writes, conditional writes and {@code NONE}
 * writes — with reads in between (gets, index queries, scans, transactional gets) whose results are
 * recorded in the {@link CampaignModel}.
 *
 * <p>The calls do not depend on what earlier calls returned, so a run with a fault makes the same calls
 * as a clean one up to the fault. A call that fails counts as not acknowledged and the workload goes on;
 * after the first failure (other than a condition) the database is closed and reopened once, as an
 * application would after an I/O error, and the workload continues on it. A second failure, or a reopen
 * that fails, ends the workload: a store that refuses writes after an I/O error is doing its job.
 */
final class CampaignWorkload {
    static final Path DIR = Path.of("/db");
    static final String TABLE = "Tickets";
    static final String BY_QUEUE = "ByQueue";
    static final String BY_LABEL = "ByLabel";
    static final String BY_OWNER = "ByOwner";
    /** Workload steps after the table's creation. */
    static final int STEPS = 150;
    /** Items written with SYNC, written over and over. */
    private static final int KEYS = 16;
    /** Items written with NONE only: acknowledged without a promise to survive. */
    private static final int NONE_KEYS = 3;
    private static final int REMOVE_LABEL_INDEX_AT = 60;
    private static final int RESTART_AT = 100;
    private static final int ADD_OWNER_INDEX_AT = 130;
    private static final Duration READ_YOUR_WRITES = Duration.ofSeconds(30);
    /** Fixed, so that token lifetimes and tombstone ages never depend on how long a run takes. */
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2025-01-01T00:00:00Z"), ZoneOffset.UTC);
    private static final String PAD = "x".repeat(90);

    /**
     * Tiny sizes, so that 150 steps flush memtables (4 KB) a dozen times, compact (at two level-0 files),
     * rewrite the manifest (2 KB) and roll log segments (8 KB), on two background threads.
     */
    static DatabaseOptions options(Vfs vfs) {
        return DatabaseOptions.builder().vfs(vfs).durability(Durability.SYNC).clock(CLOCK)
                .storage(KvOptions.builder().memtableBytes(4096).memoryBudget(16 * 1024).targetFileBytes(2048)
                        .levelBaseBytes(8 * 1024).l0CompactionTrigger(2).l0StopWritesTrigger(8)
                        .maxManifestBytes(2048).blockCacheBytes(64 * 1024).backgroundThreads(2)
                        .wal(WalOptions.defaults().withBlockSize(1024).withSegmentSize(8192).withPreallocate(1024))
                        .build())
                .build();
    }

    /** The table as created: a sparse GSI on the queue, holding the write tag, and a keys-only GSI on the label. */
    static TableSpec initialSpec() {
        return TableSpec.builder(TABLE).partitionKey("pk", AttributeValue.Type.S).partitions(2)
                .index(IndexSpec.global(BY_QUEUE, KeyAttribute.s("queue"), KeyAttribute.s("due"))
                        .withProjection(IndexSpec.Projection.INCLUDE, CampaignModel.TAG).withPartitions(2))
                .index(IndexSpec.global(BY_LABEL, KeyAttribute.s("label"), null)
                        .withProjection(IndexSpec.Projection.KEYS_ONLY).withPartitions(1))
                .build();
    }

    private static IndexSpec ownerIndex() {
        return IndexSpec.global(BY_OWNER, KeyAttribute.s("owner"), KeyAttribute.s("due")).withPartitions(2);
    }

    private final Vfs vfs;
    private final CampaignModel model;
    private final Random random;
    /** The database the workload (and any reader thread) uses; null once it is given up. */
    private volatile Database db;
    private boolean restartedAfterFailure;
    /** The first transaction with a token that was acknowledged, retried after the restart. */
    private List<TransactWrite> tokenTxn;
    private String tokenTxnToken;
    /** Calls that failed (other than by a condition), by exception class and first message. */
    final Map<String, String> failures = new TreeMap<>();
    /** Calls that failed after the reopen that followed the first failure. */
    final List<String> failuresAfterReopen = new ArrayList<>();
    int steps;

    CampaignWorkload(Vfs vfs, CampaignModel model, long seed) {
        this.vfs = vfs;
        this.model = model;
        this.random = new Random(seed);
    }

    /** The database now in use, or null: for reader threads. */
    Database database() {
        return db;
    }

    /** Runs the workload to its end, or until the database is given up. Throws nothing the database throws. */
    void run() {
        if (!open()) {
            return;
        }
        createTable();
        for (int i = 1; i <= STEPS && db != null; i++) {
            steps = i;
            step(i);
        }
    }

    /** Closes the database if it is open, ignoring what the close throws (the fault may have broken it). */
    void close() {
        Database d = db;
        db = null;
        if (d != null) {
            try {
                d.close();
            } catch (RuntimeException e) {
                // A store that failed may fail its close too: reported, not acted on (what matters is what survives).
                failures.putIfAbsent("close: " + e.getClass().getSimpleName(), String.valueOf(e.getMessage()));
            }
        }
    }

    private boolean open() {
        try {
            db = Database.open(DIR, options(vfs));
            return true;
        } catch (RuntimeException e) {
            failed("open", e);
            db = null;
            return false;
        }
    }

    private void step(int i) {
        if (i == REMOVE_LABEL_INDEX_AT) {
            changeIndexes(false);
        } else if (i == ADD_OWNER_INDEX_AT) {
            changeIndexes(true);
        }
        if (i == RESTART_AT) {
            restart();
            retryTokenTxnAfterRestart();
        }
        if (db == null) {
            return;
        }
        if (i % 40 == 20) {
            call("flush", () -> {
                db.flush();
                return null;
            });
        }
        int kind = i % 25 == 10 ? 0 : i % 30 == 15 ? 1 : i % 17 == 8 ? 2 : i % 11 == 5 ? 3 : 4;
        switch (kind) {
            case 0 -> tokenTransaction(i);
            case 1 -> mixedTransaction(i);
            case 2 -> batchWrite(i);
            case 3 -> noneWrite(i);
            default -> singleWrite(i);
        }
        read(i);
    }

    // ---- writes ----

    private void singleWrite(int i) {
        String key = key(random.nextInt(KEYS));
        int choice = random.nextInt(20);
        if (choice < 9) {
            put(i, key, false);
        } else if (choice < 15) {
            update(i, key);
        } else if (choice < 18) {
            Write w = model.attempt(key, model.newTag(), null, true, -1);
            settle(List.of(w), "delete", () -> db.deleteItem(TABLE, new DeleteItem(pk(key))));
        } else {
            put(i, key, true);
        }
    }

    private void put(int i, String key, boolean ifAbsent) {
        String tag = model.newTag();
        Item item = image(key, tag, i);
        Write w = model.attempt(key, tag, item, true, -1);
        PutItem put = new PutItem(item);
        if (ifAbsent) {
            put.condition("attribute_not_exists(pk)");
        }
        settle(List.of(w), "put", () -> db.putItem(TABLE, put));
    }

    /** An update that sets or removes every attribute, so its result does not depend on the item before. */
    private void update(int i, String key) {
        String tag = model.newTag();
        Item item = image(key, tag, i);
        List<String> set = new ArrayList<>();
        List<String> remove = new ArrayList<>();
        UpdateItem update = new UpdateItem(pk(key));
        for (String name : List.of(CampaignModel.TAG, "due", "pad", "queue", "label", "owner")) {
            if (item.get(name) != null) {
                set.add("#" + name + " = :" + name);
                update.name("#" + name, name).value(":" + name, item.get(name));
            } else {
                remove.add("#" + name);
                update.name("#" + name, name);
            }
        }
        update.update("SET " + String.join(", ", set) + (remove.isEmpty() ? "" : " REMOVE " + String.join(", ", remove)));
        Write w = model.attempt(key, tag, item, true, -1);
        settle(List.of(w), "update", () -> db.updateItem(TABLE, update));
    }

    private void noneWrite(int i) {
        String key = "N" + random.nextInt(NONE_KEYS);
        String tag = model.newTag();
        Item item = image(key, tag, i);
        Write w = model.attempt(key, tag, item, false, -1);
        settle(List.of(w), "NONE put", () -> db.putItem(TABLE, new PutItem(item).durability(Durability.NONE)));
    }

    /** Three puts with a client request token, then the same request again at once: it must not write twice. */
    private void tokenTransaction(int i) {
        int txn = model.newTxn();
        List<Write> writes = new ArrayList<>();
        List<TransactWrite> ops = new ArrayList<>();
        for (String key : distinctKeys(3)) {
            String tag = model.newTag();
            Item item = image(key, tag, i);
            writes.add(model.attempt(key, tag, item, true, txn));
            ops.add(new TransactWrite(TABLE, new PutItem(item)));
        }
        String token = "token-" + i;
        boolean first = settle(writes, "token transaction", () -> {
            db.transactWriteItems(ops, token);
            return null;
        });
        // The retry carries the same request: acknowledged, it acknowledges the transaction whether the first
        // attempt had committed (the retry then writes nothing) or not (the retry writes the same images).
        boolean retried = db != null && settle(writes, "token transaction retry", () -> {
            db.transactWriteItems(ops, token);
            return null;
        });
        if ((first || retried) && tokenTxn == null) {
            tokenTxn = ops;
            tokenTxnToken = token;
        }
    }

    /**
     * The first acknowledged token transaction again, after the restart and after its items were written
     * over: its token must still be known, so it must write nothing (it would undo later acknowledged writes).
     */
    private void retryTokenTxnAfterRestart() {
        if (db != null && tokenTxn != null) {
            call("token transaction retry after restart", () -> {
                db.transactWriteItems(tokenTxn, tokenTxnToken);
                return null;
            });
        }
    }

    /** A put, an update and a delete in one transaction without a token. */
    private void mixedTransaction(int i) {
        int txn = model.newTxn();
        List<String> keys = distinctKeys(3);
        List<Write> writes = new ArrayList<>();
        String putTag = model.newTag();
        Item put = image(keys.get(0), putTag, i);
        writes.add(model.attempt(keys.get(0), putTag, put, true, txn));
        String updateTag = model.newTag();
        Item updated = image(keys.get(1), updateTag, i).without("label").without("owner").with("queue", s("Q0"));
        writes.add(model.attempt(keys.get(1), updateTag, updated, true, txn));
        writes.add(model.attempt(keys.get(2), model.newTag(), null, true, txn));
        List<TransactWrite> ops = List.of(
                new TransactWrite(TABLE, new PutItem(put)),
                new TransactWrite(TABLE, new UpdateItem(pk(keys.get(1)))
                        .update("SET #v = :v, #d = :d, #p = :p, #q = :q REMOVE #l, #o")
                        .name("#v", CampaignModel.TAG).name("#d", "due").name("#p", "pad").name("#q", "queue")
                        .name("#l", "label").name("#o", "owner").value(":v", updated.get(CampaignModel.TAG))
                        .value(":d", updated.get("due")).value(":p", updated.get("pad")).value(":q", s("Q0"))),
                new TransactWrite(TABLE, new DeleteItem(pk(keys.get(2)))));
        settle(writes, "transaction", () -> {
            db.transactWriteItems(ops);
            return null;
        });
    }

    /** Two puts and a delete as one batch (atomic in Lacuna). */
    private void batchWrite(int i) {
        int txn = model.newTxn();
        List<String> keys = distinctKeys(3);
        List<Write> writes = new ArrayList<>();
        BatchWriteItem batch = new BatchWriteItem();
        for (int j = 0; j < 2; j++) {
            String tag = model.newTag();
            Item item = image(keys.get(j), tag, i);
            writes.add(model.attempt(keys.get(j), tag, item, true, txn));
            batch.put(TABLE, item);
        }
        writes.add(model.attempt(keys.get(2), model.newTag(), null, true, txn));
        batch.delete(TABLE, pk(keys.get(2)));
        settle(writes, "batch write", () -> db.batchWriteItem(batch));
    }

    /** Removes the label index, or adds the owner index (backfilled from the items there are). */
    private void changeIndexes(boolean addOwner) {
        if (db == null) {
            return;
        }
        TableSpec now;
        try {
            now = db.describeTable(TABLE).spec();
        } catch (RuntimeException e) {
            failed("describeTable", e);
            return;
        }
        TableSpec.Builder next = TableSpec.builder(TABLE).partitionKey("pk", AttributeValue.Type.S).partitions(2);
        Set<String> names = new LinkedHashSet<>();
        for (IndexSpec index : now.indexes()) {
            if (addOwner || !index.name().equals(BY_LABEL)) {
                next.index(index);
                names.add(index.name());
            }
        }
        if (addOwner && now.index(BY_OWNER) == null) {
            next.index(ownerIndex());
            names.add(BY_OWNER);
        }
        int schema = model.attemptSchema(names);
        TableSpec spec = next.build();
        boolean ok = call("updateTable", () -> db.updateTable(spec));
        model.settleSchema(schema, ok ? Outcome.ACKED : Outcome.FAILED);
    }

    private void createTable() {
        TableSpec spec = initialSpec();
        int schema = model.attemptSchema(names(spec));
        boolean ok = call("createTable", () -> db.createTable(spec));
        model.settleSchema(schema, ok ? Outcome.ACKED : Outcome.FAILED);
    }

    private static Set<String> names(TableSpec spec) {
        Set<String> names = new LinkedHashSet<>();
        spec.indexes().forEach(index -> names.add(index.name()));
        return names;
    }

    // ---- reads ----

    /** A read after every step; now and then an index query, a scan page or a transactional get. */
    private void read(int i) {
        if (db == null) {
            return;
        }
        String key = key(random.nextInt(KEYS));
        call("get", () -> {
            db.getItem(TABLE, new GetItem(pk(key))).ifPresent(model::saw);
            return null;
        });
        if (i % 7 == 3) {
            String queue = "Q" + random.nextInt(3);
            call("index query", () -> {
                db.query(TABLE, new Query("queue = :q").index(BY_QUEUE).value(":q", s(queue)).limit(20)
                        .readYourWrites(READ_YOUR_WRITES)).items().forEach(model::saw);
                return null;
            });
        }
        if (i % 13 == 6) {
            call("scan", () -> {
                db.scan(TABLE, new Scan().limit(30)).items().forEach(model::saw);
                return null;
            });
        }
        if (i % 19 == 9) {
            List<String> keys = distinctKeys(2);
            call("transactGet", () -> {
                db.transactGetItems(List.of(new TransactGet(TABLE, new GetItem(pk(keys.get(0)))),
                        new TransactGet(TABLE, new GetItem(pk(keys.get(1)))))).forEach(o -> o.ifPresent(model::saw));
                return null;
            });
        }
        if (i % 23 == 11 && i > ADD_OWNER_INDEX_AT) {
            String owner = "O" + random.nextInt(2);
            call("backfilled index query", () -> {
                if (db.describeTable(TABLE).spec().index(BY_OWNER) == null) {
                    return null; // its creation failed
                }
                try {
                    db.query(TABLE, new Query("#o = :o").index(BY_OWNER).name("#o", "owner").value(":o", s(owner))
                            .limit(20).readYourWrites(READ_YOUR_WRITES)).items().forEach(model::saw);
                } catch (ValidationException e) {
                    // DynamoDB's answer while the index is still backfilling, as it may be after a reopen
                    // restarted its backfill: not a failure.
                    if (!String.valueOf(e.getMessage()).contains("backfilling")) {
                        throw e;
                    }
                }
                return null;
            });
        }
    }

    // ---- calls and failures ----

    /**
     * Makes a write call and records its outcome for {@code writes}: acknowledged if it returned, refused if a
     * condition failed, failed otherwise.
     *
     * @return whether it was acknowledged
     */
    private boolean settle(List<Write> writes, String what, Supplier<?> call) {
        if (db == null) {
            model.settle(writes, Outcome.FAILED); // never sent: nothing written
            return false;
        }
        try {
            call.get();
            model.settle(writes, Outcome.ACKED);
            return true;
        } catch (ConditionalCheckFailedException | TransactionCanceledException e) {
            model.settle(writes, Outcome.REFUSED);
            return false;
        } catch (RuntimeException e) {
            model.settle(writes, e instanceof ResourceNotFoundException ? Outcome.REFUSED : Outcome.FAILED);
            failed(what, e);
            return false;
        }
    }

    /** Makes a call that writes no item; returns whether it returned normally. */
    private boolean call(String what, Supplier<?> call) {
        if (db == null) {
            return false;
        }
        try {
            call.get();
            return true;
        } catch (RuntimeException e) {
            failed(what, e);
            return false;
        }
    }

    /** After the first failure the database is reopened, as an application would; after a second one, given up. */
    private void failed(String what, RuntimeException e) {
        failures.putIfAbsent(e.getClass().getSimpleName(), what + ": " + e.getMessage());
        if (restartedAfterFailure) {
            failuresAfterReopen.add(what + ": " + e);
            close();
            return;
        }
        restartedAfterFailure = true;
        restart();
    }

    /** Closes the database and opens it again on the same (live, not crashed) file system. */
    private void restart() {
        close();
        if (open()) {
            ensureTable();
        }
    }

    /** After a reopen: if the table's creation failed and did not happen, the workload creates it again. */
    private void ensureTable() {
        try {
            if (!db.listTables().contains(TABLE)) {
                createTable();
            }
        } catch (RuntimeException e) {
            failed("listTables", e);
        }
    }

    // ---- items ----

    /** The item a put or update with {@code tag} leaves: its indexed attributes present or not, at random. */
    private Item image(String key, String tag, int step) {
        Item.Builder b = Item.builder().s("pk", key).s(CampaignModel.TAG, tag).s("due", due(step))
                .s("pad", PAD);
        int shape = random.nextInt(8);
        if ((shape & 1) != 0) {
            b.s("queue", "Q" + random.nextInt(3)); // sparse: items enter and leave the queue index
        }
        if ((shape & 2) != 0) {
            b.s("label", "L" + random.nextInt(2));
        }
        if ((shape & 4) != 0) {
            b.s("owner", "O" + random.nextInt(2));
        }
        return b.build();
    }

    private List<String> distinctKeys(int n) {
        List<String> keys = new ArrayList<>();
        while (keys.size() < n) {
            String key = key(random.nextInt(KEYS));
            if (!keys.contains(key)) {
                keys.add(key);
            }
        }
        return keys;
    }

    private static String key(int n) {
        return n < 10 ? "T0" + n : "T" + n;
    }

    /** The step as a sortable index sort key. */
    private static String due(int step) {
        String digits = Integer.toString(step);
        return "00000".substring(digits.length()) + digits;
    }

    static Key pk(String key) {
        return Key.of("pk", s(key));
    }

    /**
     * One read by a concurrent reader thread (the {@code fault.campaign.readers} knob): a get, or a page of
     * the queue index, recorded in the model like the workload's own reads.
     */
    static void readerStep(Database d, CampaignModel model, Random r) {
        if (r.nextBoolean()) {
            d.getItem(TABLE, new GetItem(pk(key(r.nextInt(KEYS))))).ifPresent(model::saw);
        } else {
            d.query(TABLE, new Query("queue = :q").index(BY_QUEUE).value(":q", s("Q" + r.nextInt(3))).limit(20))
                    .items().forEach(model::saw);
        }
    }
}
