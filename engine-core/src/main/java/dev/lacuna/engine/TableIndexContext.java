package dev.lacuna.engine;

import dev.lacuna.IndexSpec;
import dev.lacuna.Item;
import dev.lacuna.TableSpec;
import dev.lacuna.AttributeValue;
import dev.lacuna.Key;
import dev.lacuna.index.ChangeLog;
import dev.lacuna.index.ChangeRecord;
import dev.lacuna.index.IndexContext;
import dev.lacuna.index.IndexEntry;
import dev.lacuna.item.KeyEncoding;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import java.time.Duration;
import dev.lacuna.index.ItemChange;
import dev.lacuna.item.ItemCodec;
import dev.lacuna.kv.KvCursor;
import dev.lacuna.lsm.KvLogReader;
import dev.lacuna.kv.KvSnapshot;
import dev.lacuna.lsm.LsmStore;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The {@link IndexContext} of one index of one table: decodes the table's writes from the log (each put or
 * delete paired with the before-image its record carries, see {@link Writes}) and scans the table.
 */
final class TableIndexContext implements IndexContext {
    private final Catalog catalog;
    private final LsmStore kv;
    private final Clock clock;
    private final TableSchema table;
    private final IndexSpec index;
    private final int keyspace;
    /** Applying a batch of entries holds it exclusively; a reader of a page sees each batch whole through it. */
    private final IndexReadLock entries = new IndexReadLock();

    TableIndexContext(Catalog catalog, LsmStore kv, Clock clock, TableSchema table, IndexSpec index, int keyspace) {
        this.catalog = catalog;
        this.kv = kv;
        this.clock = clock;
        this.table = table;
        this.index = index;
        this.keyspace = keyspace;
    }

    @Override
    public TableSpec table() {
        return table.spec();
    }

    @Override
    public IndexSpec index() {
        return index;
    }

    @Override
    public long lastLsn() {
        return kv.lastSequence();
    }

    @Override
    public long checkpointLsn() {
        Long checkpoint = kv.logCheckpoints().get(LiveIndex.checkpointName(keyspace));
        if (checkpoint == null) {
            throw new IllegalStateException("index " + index.name() + " has no log checkpoint");
        }
        // A checkpoint is never past the durable log (see checkpoint); this guards against logs recovered
        // shorter all the same.
        return Math.min(checkpoint, kv.lastSequence());
    }

    @Override
    public ChangeLog readChanges(long afterLsn) {
        KvLogReader log = kv.logReader(afterLsn + 1);
        return new ChangeLog() {
            @Override
            public ChangeRecord next(Duration timeout) throws InterruptedException {
                KvLogReader.Batch record = log.next(timeout);
                return record == null ? null : new ChangeRecord(record.lsn(), changes(record), record.writeTimeMillis());
            }

            @Override
            public void close() {
                log.close();
            }
        };
    }

    @Override
    public IndexEntry entry(AttributeValue pk, AttributeValue sk, Key baseKey, Item projected) {
        return new IndexEntry(KeyEncoding.encodeIndexKey(keyspace, pk, sk, baseKey), ItemCodec.encode(projected));
    }

    @Override
    public void checkpoint(long lsn) {
        // The log first: records written without SYNC may not be durable yet, and a checkpoint past the
        // log's recovered end could not be resumed from. Then the entries, then the checkpoint itself.
        // The entries of keys written after lsn may stay in memory: the log from the checkpoint writes them again.
        kv.awaitDurable(lsn, Durability.SYNC);
        kv.flushKeyspace(keyspace, lsn);
        kv.setLogCheckpoint(LiveIndex.checkpointName(keyspace), lsn);
    }

    @Override
    public void flush() {
        kv.flushKeyspace(keyspace);
    }

    @Override
    public Clock clock() {
        return clock;
    }

    /** The changes a log record made to this table's items, in order; none if it did not touch the table. */
    private List<ItemChange> changes(KvLogReader.Batch batch) {
        Map<ByteBuffer, byte[]> befores = null;
        List<KvLogReader.Op> writes = new ArrayList<>();
        for (KvLogReader.Op op : batch.ops()) {
            if (!inTable(op.key())) {
                continue;
            }
            if (op.kind() == KvLogReader.Kind.LOG_ONLY) {
                if (befores == null) {
                    befores = new HashMap<>();
                }
                befores.put(ByteBuffer.wrap(op.key()), op.value());
            } else {
                writes.add(op);
            }
        }
        List<ItemChange> changes = new ArrayList<>(writes.size());
        String where = writes.isEmpty() ? null : "log record " + batch.lsn(); // for errors; built once per record
        for (KvLogReader.Op op : writes) {
            byte[] before = befores == null ? null : befores.get(ByteBuffer.wrap(op.key()));
            if (before == null) {
                throw new IllegalStateException("log record " + batch.lsn() + " writes an item of table " + table.name()
                        + " without its before-image, which index " + index.name() + " needs");
            }
            Item after = op.kind() == KvLogReader.Kind.PUT ? decode(op.value(), where) : null;
            changes.add(new ItemChange(op.key(), before.length == 0 ? null : decode(before, where), after));
        }
        return changes;
    }

    private boolean inTable(byte[] key) {
        int id = table.id();
        return key.length >= 4 && key[0] == (byte) (id >>> 24) && key[1] == (byte) (id >>> 16)
                && key[2] == (byte) (id >>> 8) && key[3] == (byte) id;
    }

    private static Item decode(byte[] value, String where) {
        return ItemCodec.decode(value, 0, value.length, where, 0);
    }

    @Override
    public void apply(WriteBatch batch, long lsn) {
        entries.writeLock().lock();
        try {
            kv.applyUnlogged(batch, lsn);
        } finally {
            entries.writeLock().unlock();
        }
    }

    /** What index readers read a page through. */
    IndexReadLock readLock() {
        return entries;
    }

    @Override
    public void scanTable(KvSnapshot snapshot, Consumer<Item> item) {
        for (int p = 0; p < table.spec().partitions(); p++) {
            try (KvCursor c = kv.scanPartition(table.id(), p, table.lowest(), table.highest(), false, snapshot)) {
                for (; c.valid(); c.next()) {
                    item.accept(ItemCodec.decode(c.value()));
                }
            }
        }
    }

    @Override
    public Thread newThread(Runnable body, String name) {
        return kv.ownedThreads().newThread(body, name);
    }

    @Override
    public void activated() {
        catalog.activated(table.name(), index.name());
    }

    @Override
    public void failed() {
        catalog.failed(table.name(), index.name());
    }
}
