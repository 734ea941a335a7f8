package dev.lacuna;

import dev.lacuna.storage.Durability;
import dev.lacuna.item.ItemSize;
import dev.lacuna.item.KeyEncoding;
import dev.lacuna.lsm.KeyspaceRouter;
import dev.lacuna.lsm.KvOptions;
import dev.lacuna.lsm.KvSnapshot;
import dev.lacuna.lsm.KvStats;
import dev.lacuna.lsm.KvStore;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.Lock;
import java.util.function.Supplier;

/**
 * An embedded Lacuna database: tables of items with DynamoDB's data model and operations, stored in one
 * directory. Open it, create tables, and read and write items through {@link #table(String)} or the
 * operations here; close it when done.
 *
 * <pre>{@code
 * try (Database db = Database.open(Path.of("data"))) {
 *     db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S).build());
 *     Table tickets = db.table("Tickets");
 *     tickets.putItem(new PutItem(item).condition("attribute_not_exists(pk)"));
 * }
 * }</pre>
 *
 * <p>Thread-safe. Every request is validated completely before anything is logged: an invalid one throws
 * {@link ValidationException} (or {@link ResourceNotFoundException} for an unknown table) and changes
 * nothing. A write is acknowledged once it is as durable as its {@link Durability} (the database's by
 * default) asks; with {@code SYNC}, it survives power loss. Reads of base tables are strongly consistent.
 * Secondary index specifications are stored with their table and their key types enforced on every
 * write; the indexes themselves are maintained by {@code engine-index} (not yet built).
 */
public final class Database implements AutoCloseable {
    /** The largest response of {@link #batchGetItem}, in item bytes (DynamoDB's 16 MB). */
    static final long BATCH_GET_BYTES = 16L << 20;

    private final KvStore kv;
    private final DatabaseOptions options;
    private final Catalog catalog;
    private final Writes writes;
    private final Reads reads;

    private Database(KvStore kv, DatabaseOptions options) {
        this.kv = kv;
        this.options = options;
        this.catalog = new Catalog(kv, options.clock());
        this.writes = new Writes(kv, new ItemLocks(), options.clock(), catalog.tokensKeyspace());
        this.reads = new Reads(kv);
    }

    /** Opens (creating if needed) the database in {@code dir} with the default options. */
    public static Database open(Path dir) {
        return open(dir, DatabaseOptions.defaults());
    }

    /**
     * Opens (creating if needed) the database in {@code dir}, recovering from a crash if there was one:
     * every write acknowledged with {@code SYNC} is there, every transaction whole or not at all.
     *
     * @throws CorruptionException if stored data is damaged (file and offset named)
     * @throws StorageIOException  if the file system fails or another process has the database open
     */
    public static Database open(Path dir, DatabaseOptions options) {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(options, "options");
        KvOptions storage = options.storage().toBuilder().vfs(options.vfs()).durability(options.durability())
                .clock(options.clock()).partitions(1).keyspaceRouter(KeyspaceRouter.FIRST_FOUR_BYTES)
                .keyPrefix(KeyEncoding::partitionPrefixLength).build();
        KvStore kv = KvStore.open(dir, storage);
        try {
            return new Database(kv, options);
        } catch (RuntimeException e) {
            try {
                kv.close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    // ---- tables

    /**
     * Creates a table; it is usable (and durable) when this returns.
     *
     * @throws ResourceInUseException if a table of that name exists
     */
    public TableDescription createTable(TableSpec spec) {
        return catalog.create(Objects.requireNonNull(spec, "spec"));
    }

    /** The table named {@code name}; throws {@link ResourceNotFoundException} if there is none. */
    public TableDescription describeTable(String name) {
        return catalog.get(name).describe();
    }

    /** The names of all tables, sorted. */
    public List<String> listTables() {
        return catalog.names();
    }

    /**
     * Changes a table's index specifications (its key schema and partitions are fixed). Local indexes can
     * only be defined at creation.
     */
    public TableDescription updateTable(TableSpec spec) {
        return catalog.update(Objects.requireNonNull(spec, "spec"));
    }

    /** Deletes a table and all its items; durable when it returns. */
    public TableDescription deleteTable(String name) {
        return catalog.delete(name);
    }

    /** A handle on the table named {@code name} for item operations. */
    public Table table(String name) {
        catalog.get(name);
        return new Table(this, name);
    }

    // ---- items

    /** The item with the request's key (projected), if it exists. */
    public Optional<Item> getItem(String table, GetItem request) {
        TableSchema t = catalog.get(table);
        return Optional.ofNullable(onTable(t, () -> reads.get(t, request, null)));
    }

    /**
     * Creates or replaces an item.
     *
     * @return the item it replaced, if {@code ALL_OLD} was asked and there was one
     * @throws ConditionalCheckFailedException if the condition was false (nothing written)
     */
    public Optional<Item> putItem(String table, PutItem request) {
        return write(table, request, request.returnValues(), request.durability());
    }

    /**
     * Changes (or creates) an item with an update expression.
     *
     * @return what {@link UpdateItem#returnValues} asked for, if anything
     * @throws ConditionalCheckFailedException if the condition was false (nothing written)
     */
    public Optional<Item> updateItem(String table, UpdateItem request) {
        return write(table, request, request.returnValues(), request.durability());
    }

    /**
     * Deletes an item.
     *
     * @return the deleted item, if {@code ALL_OLD} was asked and there was one
     * @throws ConditionalCheckFailedException if the condition was false (nothing written)
     */
    public Optional<Item> deleteItem(String table, DeleteItem request) {
        return write(table, request, request.returnValues(), request.durability());
    }

    private Optional<Item> write(String table, WriteOp op, ReturnValues returnValues, Durability durability) {
        Lock lock = catalog.writeLock(table);
        lock.lock(); // the schema read here (its indexes) stays current until the write is logged
        try {
            TableSchema t = catalog.get(table);
            PreparedWrite w = PreparedWrite.prepare(t, op, returnValues);
            Durability d = durability == null ? options.durability() : durability;
            return Optional.ofNullable(onTable(t, () -> writes.single(w, returnValues, d)));
        } finally {
            lock.unlock();
        }
    }

    /** Runs {@code body} holding the write locks of {@code items}' tables, taken in name order. */
    private void withTableLocks(List<TransactWrite> items, Runnable body) {
        List<Lock> held = new ArrayList<>();
        try {
            for (String name : new java.util.TreeSet<>(items.stream().map(TransactWrite::table).toList())) {
                Lock lock = catalog.writeLock(name);
                lock.lock();
                held.add(lock);
            }
            body.run();
        } finally {
            for (int i = held.size() - 1; i >= 0; i--) {
                held.get(i).unlock();
            }
        }
    }

    /** One page of the items of one partition key, in sort-key order (or reversed). */
    public Page query(String table, Query request) {
        TableSchema t = catalog.get(table);
        return onTable(t, () -> reads.query(t, request));
    }

    /** One page of the table's items (or of one segment of it), partition by partition. */
    public Page scan(String table, Scan request) {
        TableSchema t = catalog.get(table);
        return onTable(t, () -> reads.scan(t, request));
    }

    // ---- batches and transactions

    /**
     * Reads up to {@value BatchGetItem#MAX_KEYS} items across tables. Items not found are missing from the
     * responses; reads left over once the response reaches 16 MB are returned as unprocessed.
     */
    public BatchGetResult batchGetItem(BatchGetItem request) {
        List<TransactGet> gets = request.gets();
        checkCount("BatchGetItem", gets.size(), BatchGetItem.MAX_KEYS);
        List<TableSchema> tables = checkDistinctReads(gets);
        Map<String, List<Item>> responses = new LinkedHashMap<>();
        List<TransactGet> unprocessed = new ArrayList<>();
        long bytes = 0;
        for (int i = 0; i < gets.size(); i++) {
            TableSchema t = tables.get(i);
            TransactGet g = gets.get(i);
            if (bytes >= BATCH_GET_BYTES) {
                unprocessed.add(g);
                continue;
            }
            Item item = onTable(t, () -> reads.get(t, g.get(), null));
            if (item != null && bytes + ItemSize.of(item) > BATCH_GET_BYTES) {
                unprocessed.add(g); // it would not fit the 16 MB response
                bytes = BATCH_GET_BYTES;
                continue;
            }
            if (item != null) {
                responses.computeIfAbsent(g.table(), k -> new ArrayList<>()).add(item);
                bytes += ItemSize.of(item);
            }
        }
        return new BatchGetResult(responses, unprocessed);
    }

    /**
     * Applies up to {@value BatchWriteItem#MAX_WRITES} puts and deletes across tables. Lacuna checks them all
     * first and then applies them as one atomic write, so none is ever left unprocessed.
     *
     * @return the unprocessed writes: always empty here, kept for DynamoDB's shape
     */
    public List<TransactWrite> batchWriteItem(BatchWriteItem request) {
        List<TransactWrite> items = request.writes();
        checkCount("BatchWriteItem", items.size(), BatchWriteItem.MAX_WRITES);
        withTableLocks(items, () -> batchWrite(items));
        return List.of();
    }

    private void batchWrite(List<TransactWrite> items) {
        List<PreparedWrite> prepared = prepareAll(items, "BatchWriteItem");
        long bytes = 0;
        for (TransactWrite w : items) {
            if (w.op() instanceof PutItem p) {
                bytes += ItemSize.of(p.item());
            }
        }
        if (bytes > 16L << 20) {
            throw new ValidationException("BatchWriteItem: the items total " + bytes + " bytes; at most 16 MB");
        }
        runAtomic(prepared, null, null, options.durability());
    }

    /** {@link #transactWriteItems(List, String, Durability)} without a token, with the database's durability. */
    public void transactWriteItems(List<TransactWrite> items) {
        transactWriteItems(items, null, options.durability());
    }

    /** {@link #transactWriteItems(List, String, Durability)} with the database's durability. */
    public void transactWriteItems(List<TransactWrite> items, String clientRequestToken) {
        transactWriteItems(items, clientRequestToken, options.durability());
    }

    /**
     * Applies up to 100 writes on distinct items, across tables, all or nothing — also across a crash: they
     * are logged as one record. Every condition is checked against the items as they stand, under their
     * locks; if any fails, nothing is written.
     *
     * @param clientRequestToken if given (1 to 36 characters), a repeat of this request with the same token
     *                           within 10 minutes succeeds without writing again, also after a restart
     * @throws TransactionCanceledException          with one reason per item if a condition failed
     * @throws IdempotentParameterMismatchException if the token was used by a different request
     */
    public void transactWriteItems(List<TransactWrite> items, String clientRequestToken, Durability durability) {
        Objects.requireNonNull(durability, "durability");
        checkCount("TransactWriteItems", items.size(), 100);
        withTableLocks(items, () -> transact(items, clientRequestToken, durability));
    }

    private void transact(List<TransactWrite> items, String clientRequestToken, Durability durability) {
        List<PreparedWrite> prepared = prepareAll(items, "TransactWriteItems");
        long bytes = 0;
        for (TransactWrite w : items) {
            if (w.op() instanceof PutItem p) {
                bytes += ItemSize.of(p.item());
            }
        }
        if (bytes > 4L << 20) {
            throw new ValidationException("TransactWriteItems: the items total " + bytes + " bytes; at most 4 MB");
        }
        runAtomic(prepared, clientRequestToken, clientRequestToken == null ? null : Fingerprint.of(items), durability);
    }

    /**
     * Reads up to 100 distinct items, across tables, as of one moment: a transaction's writes are seen
     * all or not at all.
     *
     * @return one entry per request item, in order, empty where the item does not exist
     */
    public List<Optional<Item>> transactGetItems(List<TransactGet> gets) {
        checkCount("TransactGetItems", gets.size(), 100);
        List<TableSchema> tables = checkDistinctReads(gets);
        List<Optional<Item>> out = new ArrayList<>();
        try (KvSnapshot snapshot = kv.snapshot()) {
            for (int i = 0; i < gets.size(); i++) {
                TableSchema t = tables.get(i);
                TransactGet g = gets.get(i);
                out.add(Optional.ofNullable(onTable(t, () -> reads.get(t, g.get(), snapshot))));
            }
        }
        return out;
    }

    private void runAtomic(List<PreparedWrite> prepared, String token, String fingerprint, Durability durability) {
        try {
            writes.atomic(prepared, token, fingerprint, durability);
        } catch (IllegalArgumentException e) {
            for (PreparedWrite w : prepared) {
                if (!catalog.isLive(w.table)) {
                    throw new ResourceNotFoundException("Requested resource not found: Table: " + w.table.name()
                            + " was deleted");
                }
            }
            throw e;
        }
    }

    private List<PreparedWrite> prepareAll(List<TransactWrite> items, String operation) {
        List<PreparedWrite> prepared = new ArrayList<>();
        Set<ByteBuffer> seen = new HashSet<>();
        for (TransactWrite w : items) {
            PreparedWrite p = PreparedWrite.prepare(catalog.get(w.table()), w.op(), null);
            if (!seen.add(ByteBuffer.wrap(p.encodedKey))) {
                throw new ValidationException(operation.equals("BatchWriteItem")
                        ? "Provided list of item keys contains duplicates"
                        : "Transaction request cannot include multiple operations on one item");
            }
            prepared.add(p);
        }
        return prepared;
    }

    private List<TableSchema> checkDistinctReads(List<TransactGet> gets) {
        List<TableSchema> tables = new ArrayList<>();
        Set<ByteBuffer> seen = new HashSet<>();
        for (TransactGet g : gets) {
            TableSchema t = catalog.get(g.table());
            if (!seen.add(ByteBuffer.wrap(t.encode(t.check(g.get().key()))))) {
                throw new ValidationException("Provided list of item keys contains duplicates");
            }
            tables.add(t);
        }
        return tables;
    }

    private static void checkCount(String operation, int n, int max) {
        if (n < 1 || n > max) {
            throw new ValidationException(operation + " takes 1 to " + max + " items: " + n);
        }
    }

    /** Runs a storage operation on {@code t}, reporting a table deleted meanwhile as not found. */
    private <T> T onTable(TableSchema t, Supplier<T> operation) {
        try {
            return operation.get();
        } catch (IllegalArgumentException e) {
            if (!catalog.isLive(t)) {
                throw new ResourceNotFoundException("Requested resource not found: Table: " + t.name() + " was deleted");
            }
            throw e;
        }
    }

    // ---- the database

    /** Counters and the shape of the storage engine (files per level, compactions, the log). */
    public KvStats storageStats() {
        return kv.stats();
    }

    /** Writes every memtable to tables and waits until that is done (the log is then trimmed). */
    public void flush() {
        kv.flush();
    }

    /**
     * Stops the background work, makes the log durable and releases the directory. Idempotent. Writes in
     * flight when it is called may fail with {@link DatabaseClosedException}.
     */
    @Override
    public void close() {
        try {
            catalog.close();
        } finally {
            kv.close();
        }
    }
}
