package dev.lacuna.secondary;

import dev.lacuna.BatchWriteItem;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.DeleteItem;
import dev.lacuna.Item;
import dev.lacuna.PutItem;
import dev.lacuna.TableSpec;
import dev.lacuna.TransactWrite;
import dev.lacuna.UpdateItem;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.KvStats;
import dev.lacuna.kv.SstableOptions;
import dev.lacuna.secondary.CampaignModel.Outcome;
import dev.lacuna.secondary.CampaignModel.Write;
import dev.lacuna.storage.Durability;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * The store the corruption-at-rest suite damages: a seeded, single-threaded workload on a {@link MemVfs}
 * through the item API, every write recorded in a {@link CampaignModel} (so {@link CampaignCheck} can compare
 * a reopened store with what was acknowledged). It runs once per suite and leaves two stores at rest:
 * <ul>
 *   <li><b>closed</b>: after {@link Database#close()} — every log segment sealed, each GSI updater's
 *       checkpoint saved;</li>
 *   <li><b>crashed</b>: a power-loss image ({@link MemVfs#crashClone()}) taken while the store was open —
 *       the last segment unsealed, ending in zero fill, its records only in the log.</li>
 * </ul>
 * Both hold every file kind the suite damages: log segments (the last one and several before it, because
 * the second phase writes ~6 segments' worth without a flush and the memtables keep them all), SSTables
 * of the table and of its GSIs at level 0 and below (the first phase flushes twenty times, and small
 * levels push compactions down), a manifest rewritten many times ({@code maxManifestBytes} 2 KiB), and
 * {@code CURRENT}.
 */
final class CorruptionWorkload {
    /** Item keys written over and over: enough that the table spans several SSTables per level. */
    private static final int KEYS = 90;
    /** Writes of the first phase, flushed every {@link #FLUSH_EVERY}: the tables and their levels. */
    private static final int LEVEL_WRITES = 700;
    private static final int FLUSH_EVERY = 35;
    /** Writes of the second phase, never flushed: the log's segments. */
    private static final int LOG_WRITES = 140;
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2025-01-01T00:00:00Z"), ZoneOffset.UTC);
    private static final String PAD = "p".repeat(60);

    /**
     * What the workload left: the two stores and what they must hold.
     *
     * @param closed  the durable image after a clean close
     * @param crashed the durable image of the open store before that close
     * @param stats   the store's shape just before the crash image was taken
     */
    record Stores(MemVfs closed, MemVfs crashed, CampaignModel model, List<TokenTransaction> tokens, KvStats stats) {
    }

    /** An acknowledged transaction made with a client request token: retried, it must write nothing. */
    record TokenTransaction(String token, List<TransactWrite> ops) {
    }

    /**
     * Small sizes, so that a few hundred writes make many files: 4 KiB log segments in 512-byte blocks, 512-byte
     * SSTable blocks (several data blocks and a real index block per table), 2 KiB tables, 8 KiB for level 1,
     * a compaction at two level-0 files. Memtables (32 KiB, 1 MiB in all) are large so that only the
     * workload's own flushes trim the log: the second phase stays in it.
     */
    static DatabaseOptions options(Vfs vfs) {
        return DatabaseOptions.builder().vfs(vfs).durability(Durability.SYNC).clock(CLOCK)
                .storage(KvOptions.builder().memtableBytes(32 * 1024).memoryBudget(1 << 20).targetFileBytes(1024)
                        .levelBaseBytes(2048).l0CompactionTrigger(2).l0StopWritesTrigger(8)
                        .maxManifestBytes(2048).blockCacheBytes(64 * 1024).backgroundThreads(1)
                        .table(SstableOptions.defaults().withBlockSize(512))
                        .wal(WalOptions.defaults().withBlockSize(512).withSegmentSize(4096).withPreallocate(512))
                        .build())
                .build();
    }

    private final Random random;
    private final CampaignModel model = new CampaignModel();
    private final List<TokenTransaction> tokens = new ArrayList<>();
    private Database db;
    private int step;

    private CorruptionWorkload(long seed) {
        this.random = new Random(seed);
    }

    /** Runs the workload with {@code seed} and returns the stores it left. */
    static Stores build(long seed) {
        return new CorruptionWorkload(seed).run();
    }

    private Stores run() {
        MemVfs disk = new MemVfs();
        db = Database.open(CampaignWorkload.DIR, options(disk));
        MemVfs crashed;
        KvStats stats;
        try {
            TableSpec spec = CampaignWorkload.initialSpec();
            int schema = model.attemptSchema(indexNames(spec));
            db.createTable(spec);
            model.settleSchema(schema, Outcome.ACKED);
            for (int i = 0; i < LEVEL_WRITES; i++) {
                write();
                if (i % FLUSH_EVERY == FLUSH_EVERY - 1) {
                    db.flush();
                }
            }
            // Restarted once: the manifest is started afresh by the open, the updaters checkpoint on close.
            db.close();
            db = Database.open(CampaignWorkload.DIR, options(disk));
            for (int i = 0; i < LOG_WRITES; i++) {
                write();
            }
            stats = db.storageStats();
            crashed = disk.crashClone();
        } finally {
            db.close();
        }
        return new Stores(disk.crashClone(), crashed, model, List.copyOf(tokens), stats);
    }

    /** One write, every kind the item API has, each acknowledged ({@code SYNC}) or the workload fails. */
    private void write() {
        step++;
        int choice = random.nextInt(100);
        if (choice < 45) {
            put(key());
        } else if (choice < 70) {
            update(key());
        } else if (choice < 82) {
            String key = key();
            Write w = model.attempt(key, model.newTag(), null, true, -1);
            db.deleteItem(CampaignWorkload.TABLE, new DeleteItem(CampaignWorkload.pk(key)));
            model.settle(List.of(w), Outcome.ACKED);
        } else if (choice < 90) {
            batch();
        } else if (choice < 97) {
            transaction(choice < 93 ? "token-" + step : null);
        } else {
            none();
        }
    }

    private void put(String key) {
        String tag = model.newTag();
        Item item = image(key, tag);
        Write w = model.attempt(key, tag, item, true, -1);
        db.putItem(CampaignWorkload.TABLE, new PutItem(item));
        model.settle(List.of(w), Outcome.ACKED);
    }

    /** An update that sets or removes every attribute, so the image it leaves is known without reading. */
    private void update(String key) {
        String tag = model.newTag();
        Item item = image(key, tag);
        List<String> set = new ArrayList<>();
        List<String> remove = new ArrayList<>();
        UpdateItem update = new UpdateItem(CampaignWorkload.pk(key));
        for (String name : List.of(CampaignModel.TAG, "due", "pad", "queue", "label", "owner")) {
            update.name("#" + name, name);
            if (item.get(name) != null) {
                set.add("#" + name + " = :" + name);
                update.value(":" + name, item.get(name));
            } else {
                remove.add("#" + name);
            }
        }
        update.update("SET " + String.join(", ", set) + (remove.isEmpty() ? "" : " REMOVE " + String.join(", ", remove)));
        Write w = model.attempt(key, tag, item, true, -1);
        db.updateItem(CampaignWorkload.TABLE, update);
        model.settle(List.of(w), Outcome.ACKED);
    }

    /** Two puts and a delete in one batch (one log record). */
    private void batch() {
        int txn = model.newTxn();
        List<String> keys = distinctKeys(3);
        List<Write> writes = new ArrayList<>();
        BatchWriteItem batch = new BatchWriteItem();
        for (int j = 0; j < 2; j++) {
            String tag = model.newTag();
            Item item = image(keys.get(j), tag);
            writes.add(model.attempt(keys.get(j), tag, item, true, txn));
            batch.put(CampaignWorkload.TABLE, item);
        }
        writes.add(model.attempt(keys.get(2), model.newTag(), null, true, txn));
        batch.delete(CampaignWorkload.TABLE, CampaignWorkload.pk(keys.get(2)));
        db.batchWriteItem(batch);
        model.settle(writes, Outcome.ACKED);
    }

    /** Three puts in one transaction, with a client request token (which the tokens keyspace keeps) or without. */
    private void transaction(String token) {
        int txn = model.newTxn();
        List<Write> writes = new ArrayList<>();
        List<TransactWrite> ops = new ArrayList<>();
        for (String key : distinctKeys(3)) {
            String tag = model.newTag();
            Item item = image(key, tag);
            writes.add(model.attempt(key, tag, item, true, txn));
            ops.add(new TransactWrite(CampaignWorkload.TABLE, new PutItem(item)));
        }
        if (token == null) {
            db.transactWriteItems(ops);
        } else {
            db.transactWriteItems(ops, token);
            tokens.add(new TokenTransaction(token, List.copyOf(ops)));
        }
        model.settle(writes, Outcome.ACKED);
    }

    /** A put with {@code NONE}: acknowledged without a promise to survive a power loss (a model that allows it). */
    private void none() {
        String key = "N" + random.nextInt(3);
        String tag = model.newTag();
        Item item = image(key, tag);
        Write w = model.attempt(key, tag, item, false, -1);
        db.putItem(CampaignWorkload.TABLE, new PutItem(item).durability(Durability.NONE));
        model.settle(List.of(w), Outcome.ACKED);
    }

    /** The item a write leaves: in the queue index or not, with a label or not (both GSIs are sparse). */
    private Item image(String key, String tag) {
        Item.Builder b = Item.builder().s("pk", key).s(CampaignModel.TAG, tag)
                .s("due", String.format("%05d", step)).s("pad", PAD);
        int shape = random.nextInt(8);
        if ((shape & 1) != 0) {
            b.s("queue", "Q" + random.nextInt(3));
        }
        if ((shape & 2) != 0) {
            b.s("label", "L" + random.nextInt(2));
        }
        if ((shape & 4) != 0) {
            b.s("owner", "O" + random.nextInt(2));
        }
        return b.build();
    }

    private String key() {
        return String.format("T%03d", random.nextInt(KEYS));
    }

    private List<String> distinctKeys(int n) {
        Set<String> keys = new LinkedHashSet<>();
        while (keys.size() < n) {
            keys.add(key());
        }
        return new ArrayList<>(keys);
    }

    private static Set<String> indexNames(TableSpec spec) {
        Set<String> names = new LinkedHashSet<>();
        spec.indexes().forEach(index -> names.add(index.name()));
        return names;
    }
}
