package dev.lacuna;

import dev.lacuna.engine.ItemEngine;
import dev.lacuna.kv.KvStats;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.DatabaseClosedException;
import dev.lacuna.storage.Durability;
import dev.lacuna.storage.StorageIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

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
 * Secondary indexes are kept by the index kinds found on the module or class path ({@code engine-index}
 * provides global and local ones): local indexes in the write itself, global ones from the log.
 *
 * <p>Tables carry tags ({@link #tagResource}) and may have a time to live ({@link #updateTimeToLive}), whose
 * expired items a background thread deletes; {@link #close()} stops it.
 *
 * <p>This class is a facade: each method hands its request to the item engine in one call.
 */
public final class Database implements AutoCloseable {
    /**
     * How long a shard iterator stays valid after {@link #getShardIterator} or {@link #getRecords} handed it out,
     * by the database's clock ({@link DatabaseOptions#clock()}): 15 minutes, as DynamoDB Streams'.
     */
    public static final java.time.Duration SHARD_ITERATOR_LIFETIME = java.time.Duration.ofMinutes(15);

    private final ItemEngine engine;

    private Database(ItemEngine engine) {
        this.engine = engine;
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
     * @throws dev.lacuna.storage.IncompatibleStoreException if the directory holds a byte-level {@code KvStore}
     *         (or a store written by a newer Lacuna), or {@code dir} is a file; nothing in it is changed
     */
    public static Database open(Path dir, DatabaseOptions options) {
        return new Database(ItemEngine.open(dir, options));
    }

    /**
     * Creates a table; it is usable (and durable) when this returns.
     *
     * @throws ResourceInUseException if a table of that name exists
     */
    public TableDescription createTable(TableSpec spec) {
        return engine.createTable(spec);
    }

    /** The table named {@code name}; throws {@link ResourceNotFoundException} if there is none. */
    public TableDescription describeTable(String name) {
        return engine.describeTable(name);
    }

    /**
     * The names of all tables, sorted.
     *
     * @throws DatabaseClosedException if the database is closed (as every call but {@link #close()} then does)
     */
    public List<String> listTables() {
        return engine.listTables();
    }

    /**
     * Changes a table's index specifications (its key schema and partitions are fixed) and, if the spec has a
     * {@link TableSpec#streamSpecification()}, enables or disables its change stream (DynamoDB's rules: enabling
     * a stream that is enabled, or disabling one that is not, is a {@link ValidationException}; to change the
     * view type, disable the stream and enable it again — a new stream, with a new label, and the old stream's
     * consumers are deleted with it). Local indexes can only be defined at creation.
     */
    public TableDescription updateTable(TableSpec spec) {
        return engine.updateTable(spec);
    }

    /** Deletes a table and all its items; durable when it returns. */
    public TableDescription deleteTable(String name) {
        return engine.deleteTable(name);
    }

    /**
     * Adds tags to table {@code table}, or gives tags it has new values (DynamoDB's {@code TagResource}; the
     * table's name stands for its ARN). The whole request is checked first — at least one tag, keys unique,
     * each key 1 to 128 and each value 0 to 256 characters of Unicode letters, digits, white space and
     * {@code _ . : / = + - @}, no key starting with {@code aws:}, at most 50 tags on the table afterwards — and
     * then applied in one durable manifest edit: durable when it returns, kept with the table, dropped with it.
     *
     * @throws ValidationException       if a rule is broken (nothing changes)
     * @throws ResourceNotFoundException if there is no such table
     */
    public void tagResource(String table, List<Tag> tags) {
        engine.tagResource(table, tags);
    }

    /**
     * Removes the tags with these keys from table {@code table} (DynamoDB's {@code UntagResource}); a key the
     * table does not have is no error. Durable when it returns.
     *
     * @throws ValidationException       if no key is given, or a key is not a valid tag key (nothing changes)
     * @throws ResourceNotFoundException if there is no such table
     */
    public void untagResource(String table, List<String> tagKeys) {
        engine.untagResource(table, tagKeys);
    }

    /**
     * The tags of table {@code table}, sorted by key (DynamoDB's {@code ListTagsOfResource}, in one page: a
     * table has at most 50).
     *
     * @throws ResourceNotFoundException if there is no such table
     */
    public List<Tag> listTagsOfResource(String table) {
        return engine.listTagsOfResource(table);
    }

    /**
     * Enables or disables time to live on table {@code table} (DynamoDB's {@code UpdateTimeToLive}). While it is
     * enabled, an item whose attribute {@code attributeName} is a top-level number of epoch seconds at or before
     * now (by the database's clock) has expired: reads hide it (unless {@link DatabaseOptions#returnExpiredItems()})
     * and a background sweeper deletes it through the ordinary write path, so its index entries go as for any
     * delete. Values more than five years in the past are ignored, as DynamoDB does; an item without the
     * attribute, or with a value that is not a number, never expires. The change is durable and in effect when
     * this returns.
     *
     * @param enabled true to enable (refused if already enabled, also on another attribute: disable it first),
     *                false to disable (refused if already disabled, or if {@code attributeName} is not the enabled one)
     * @return the table's time to live as it now is
     * @throws ValidationException       if the name is empty or over 255 characters, or the change is refused
     * @throws ResourceNotFoundException if there is no such table
     */
    public TimeToLiveDescription updateTimeToLive(String table, String attributeName, boolean enabled) {
        return engine.updateTimeToLive(table, attributeName, enabled);
    }

    /**
     * Whether table {@code table}'s items expire, and by which attribute (DynamoDB's {@code DescribeTimeToLive};
     * also in {@link TableDescription#timeToLive()}).
     *
     * @throws ResourceNotFoundException if there is no such table
     */
    public TimeToLiveDescription describeTimeToLive(String table) {
        return engine.describeTimeToLive(table);
    }

    /**
     * Opens the durable consumer {@code consumerName} of table {@code table}'s change stream, creating it if it
     * does not exist (then it starts at the oldest record the stream holds, DynamoDB's {@code TRIM_HORIZON}).
     * Its checkpoint is kept in the database: opened again, also after a crash, it resumes after its last commit.
     *
     * <pre>{@code
     * try (StreamConsumer pager = db.streamConsumer("Tickets", "pager");
     *      StreamProcessor p = pager.start(records -> records.forEach(r -> notify(r)), 100)) {
     *     ...   // p calls the handler in order on its own thread, and commits after each batch
     * }
     * }</pre>
     *
     * @param consumerName 1 to 255 characters of {@code [a-zA-Z0-9_.-]}
     * @throws ResourceNotFoundException if there is no such table, or it has no enabled stream
     * @throws ResourceInUseException    if a handle on this consumer is open
     * @throws ValidationException       if the name is not valid
     */
    public StreamConsumer streamConsumer(String table, String consumerName) {
        return engine.streamConsumer(table, consumerName);
    }

    /**
     * Deletes consumer {@code consumerName} of table {@code table}'s stream: its checkpoint no longer keeps the log.
     *
     * @throws ResourceNotFoundException if there is no such table, stream or consumer
     * @throws ResourceInUseException    if a handle on it is open
     */
    public void deleteStreamConsumer(String table, String consumerName) {
        engine.deleteStreamConsumer(table, consumerName);
    }

    /**
     * The latest stream of every table that had one (enabled, or disabled), or only of table {@code table}'s if it
     * is not null (DynamoDB Streams' {@code ListStreams}), by table name.
     *
     * @throws ResourceNotFoundException if {@code table} is given and there is no such table
     */
    public List<StreamDescription> listStreams(String table) {
        return engine.listStreams(table);
    }

    /**
     * Stream {@code streamArn} ({@link TableDescription#latestStreamArn()}, or any ARN of the form
     * {@code arn:...:table/NAME/stream/LABEL}: the table's name and the label are what count) and its shards, one per hash partition
     * of the table (DynamoDB Streams' {@code DescribeStream}). A shard stays open while the stream is enabled: it
     * has no ending sequence number, and is never split.
     *
     * @throws ValidationException       if {@code streamArn} is not a stream ARN
     * @throws ResourceNotFoundException if it is not the latest stream of an existing table
     */
    public StreamDescription describeStream(String streamArn) {
        return engine.describeStream(streamArn);
    }

    /**
     * An iterator over shard {@code shardId} of stream {@code streamArn}, for {@link #getRecords}: an opaque string
     * encoding the stream, the shard and a position in the log (DynamoDB Streams' {@code GetShardIterator}). The
     * database keeps nothing per iterator: it costs nothing to drop, stays valid across a restart, and does not
     * keep the log — records past the stream's retention are gone whether or not an iterator points at them.
     * It expires {@link #SHARD_ITERATOR_LIFETIME} (15 minutes) after this call by the database's clock, as
     * DynamoDB's do.
     *
     * @param type           where to start: {@code TRIM_HORIZON} (the oldest record held), {@code LATEST} (writes
     *                       made after this call), {@code AT_SEQUENCE_NUMBER} or {@code AFTER_SEQUENCE_NUMBER}
     * @param sequenceNumber a record's {@link StreamRecord#sequenceNumber()}, for the last two types (else ignored)
     * @throws ValidationException         if the ARN or the sequence number is malformed, or the sequence number
     *                                     is past the stream's end
     * @throws ResourceNotFoundException   if the stream is not the latest enabled stream of an existing table, or
     *                                     it has no such shard
     * @throws TrimmedDataAccessException  if the sequence number is older than the stream's trim horizon
     */
    public String getShardIterator(String streamArn, String shardId, ShardIteratorType type, String sequenceNumber) {
        return engine.getShardIterator(streamArn, shardId, type, sequenceNumber);
    }

    /**
     * The records of an iterator's shard after its position, at most {@code limit}, and the iterator to go on
     * with (DynamoDB Streams' {@code GetRecords}). The records are the shard's only, in sequence-number order
     * (an item's in the order of its writes); none means nothing new yet, or that this call stopped after reading
     * its bound of the log (a few thousand log records, so that one call's cost stays bounded on a busy log) — the
     * next iterator then starts after what was read. The next iterator is never null: shards stay open while the
     * stream is enabled. Stateless: the same iterator may be read again, and gives the same records.
     *
     * @param limit 1 to 1,000 (DynamoDB's bound)
     * @throws ValidationException         if the iterator is not one {@link #getShardIterator} or this method made
     *                                     ("Invalid ShardIterator"), or the limit is out of range
     * @throws ResourceNotFoundException   if the stream was disabled or its table deleted
     * @throws TrimmedDataAccessException  if retention dropped records at the iterator's position (checked first)
     * @throws ExpiredIteratorException    if the iterator was handed out more than {@link #SHARD_ITERATOR_LIFETIME}
     *                                     ago; the next iterator returned starts a lifetime of its own
     */
    public ShardRecords getRecords(String shardIterator, int limit) {
        return engine.getRecords(shardIterator, limit);
    }

    /** A handle on the table named {@code name} for item operations. */
    public Table table(String name) {
        engine.requireTable(name);
        return new Table(this, name);
    }

    /** The item with the request's key (projected), if it exists. */
    public Optional<Item> getItem(String table, GetItem request) {
        return engine.getItem(table, request);
    }

    /**
     * Creates or replaces an item.
     *
     * @return the item it replaced, if {@code ALL_OLD} was asked and there was one
     * @throws ConditionalCheckFailedException if the condition was false (nothing written)
     */
    public Optional<Item> putItem(String table, PutItem request) {
        return engine.putItem(table, request);
    }

    /**
     * Changes (or creates) an item with an update expression.
     *
     * @return what {@link UpdateItem#returnValues} asked for, if anything
     * @throws ConditionalCheckFailedException if the condition was false (nothing written)
     */
    public Optional<Item> updateItem(String table, UpdateItem request) {
        return engine.updateItem(table, request);
    }

    /**
     * Deletes an item.
     *
     * @return the deleted item, if {@code ALL_OLD} was asked and there was one
     * @throws ConditionalCheckFailedException if the condition was false (nothing written)
     */
    public Optional<Item> deleteItem(String table, DeleteItem request) {
        return engine.deleteItem(table, request);
    }

    /** One page of the items of one partition key, in sort-key order (or reversed). */
    public Page query(String table, Query request) {
        return engine.query(table, request);
    }

    /** One page of the table's items (or of one segment of it), partition by partition. */
    public Page scan(String table, Scan request) {
        return engine.scan(table, request);
    }

    /**
     * Every page of {@code request} on table {@code table}, each read when iteration reaches it (as the AWS
     * SDK's {@code queryPaginator}): iterate the pages, or {@link PageIterable#items()} for every item, without
     * a {@link Page#lastEvaluatedKey()} loop. Nothing is read until iteration starts; {@link PageRequest#limit}
     * bounds each page. The request is copied (later changes to it do not apply) and never changed.
     *
     * @throws NullPointerException if an argument is null; the reads' own exceptions come from the iteration
     */
    public PageIterable queryPaginator(String table, Query request) {
        Objects.requireNonNull(table, "table");
        return PageIterable.of(Objects.requireNonNull(request, "request"), r -> query(table, r));
    }

    /**
     * Every page of {@code request} on table {@code table}, each read when iteration reaches it (as the AWS
     * SDK's {@code scanPaginator}); see {@link #queryPaginator}.
     *
     * @throws NullPointerException if an argument is null; the reads' own exceptions come from the iteration
     */
    public PageIterable scanPaginator(String table, Scan request) {
        Objects.requireNonNull(table, "table");
        return PageIterable.of(Objects.requireNonNull(request, "request"), r -> scan(table, r));
    }

    /**
     * Reads up to {@value BatchGetItem#MAX_KEYS} items across tables. Items not found are missing from the
     * responses; reads left over once the response reaches 16 MB are returned as unprocessed.
     */
    public BatchGetResult batchGetItem(BatchGetItem request) {
        return engine.batchGetItem(request);
    }

    /**
     * Applies up to {@value BatchWriteItem#MAX_WRITES} puts and deletes across tables. Lacuna checks them all
     * first and then applies them as one atomic write, so none is ever left unprocessed.
     *
     * @return the unprocessed writes: always empty here, kept for DynamoDB's shape
     */
    public List<TransactWrite> batchWriteItem(BatchWriteItem request) {
        engine.batchWriteItem(request.writes());
        return List.of();
    }

    /** {@link #transactWriteItems(List, String, Durability)} without a token, with the database's durability. */
    public void transactWriteItems(List<TransactWrite> items) {
        engine.transactWriteItems(items, null, null);
    }

    /** {@link #transactWriteItems(List, String, Durability)} with the database's durability. */
    public void transactWriteItems(List<TransactWrite> items, String clientRequestToken) {
        engine.transactWriteItems(items, clientRequestToken, null);
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
        engine.transactWriteItems(items, clientRequestToken, Objects.requireNonNull(durability, "durability"));
    }

    /**
     * Reads up to 100 distinct items, across tables, as of one moment: a transaction's writes are seen
     * all or not at all.
     *
     * @return one entry per request item, in order, empty where the item does not exist
     */
    public List<Optional<Item>> transactGetItems(List<TransactGet> gets) {
        return engine.transactGetItems(gets);
    }

    /**
     * Approximate items and bytes of table {@code name} and of each of its indexes, from the counts its files and
     * memtables keep (nothing is read from disk, so it is cheap): DynamoDB's {@code ItemCount},
     * {@code TableSizeBytes} and {@code IndexSizeBytes}, which DynamoDB too reports approximately (it updates them
     * about every six hours). Live items are estimated as entries less twice the deletions, so an item overwritten
     * since the last compaction counts more than once until a compaction merges its versions; bytes are the
     * stored (compressed) bytes in proportion. Not exact: count with a {@code Scan} and {@code Select.COUNT}.
     *
     * @throws ResourceNotFoundException if there is no such table
     */
    public TableSizeEstimate estimateSize(String name) {
        return engine.estimateSize(Objects.requireNonNull(name, "name"));
    }

    /** Counters and the shape of the storage engine (files per level, compactions, the log). */
    public KvStats storageStats() {
        return engine.storageStats();
    }

    /**
     * Writes every memtable to tables and waits until that is done (the log is then trimmed). Change streams'
     * retention is applied first ({@link DatabaseOptions#streamRetention()}), so that the trim also drops what
     * the streams no longer keep.
     */
    public void flush() {
        engine.flush();
    }

    /**
     * Backs up the database in {@code dir} into {@code dest} (a directory that must not exist or be empty),
     * whether or not a process has it open: the same copy as {@link #checkpoint}, which opens as a database of
     * its own. It is made from the files, without writing to {@code dir} or taking its lock, as a crash at one
     * instant would leave them: every write made durable ({@code SYNC}, or flushed) before this call began, and
     * of the later ones a prefix in log order. Tables are hard-linked where the file system allows. A process
     * writing the database meanwhile can leave a copy without what it needs (a table compacted away, log
     * segments trimmed, a table created under the copy); the copy is opened once to check it (and recover it, as
     * after a crash), and made again if that fails, up to 10 times. Writes acknowledged with {@code NONE} or
     * {@code BATCHED} durability that the writing process has not handed to the operating system yet are not in
     * it; an application that has the database open gets those too with {@link #checkpoint}.
     *
     * @param options the file system and settings to open the copy with
     * @return how many copies it took
     * @throws StorageIOException if {@code dir} holds no database, {@code dest} is not empty, copying fails, or
     *                            10 copies in a row failed
     * @throws dev.lacuna.storage.IncompatibleStoreException if {@code dir} holds a byte-level store or one
     *                            written by a newer Lacuna
     */
    public static BackupReport backup(Path dir, Path dest, DatabaseOptions options) {
        return dev.lacuna.engine.Backup.take(dir, dest, options);
    }

    /**
     * Writes a consistent copy of the database into {@code dest}, a directory that must not exist or be
     * empty, while reads and writes go on: a backup. The copy opens with {@link #open} as a database of its
     * own, with every table and index. It holds every write acknowledged before this call (whatever its
     * durability) and, of the writes after it, at most a prefix in log order: a transaction is in it whole or
     * not at all. Its global indexes catch up from the copied log once it is opened, as after a crash, and then
     * equal their recomputation from the tables.
     *
     * <p>Immutable files (SSTables, sealed log segments) are hard-linked where the file system allows (same
     * device), so a checkpoint costs little time and space; the rest is copied. Everything is fsynced before
     * this returns. Thread-safe; closing the database during the call may make it fail.
     *
     * @throws StorageIOException if {@code dest} exists and is not empty (or is a file), or copying fails; a
     *                            copy cut short has no {@code CURRENT} file, so it never opens as a database
     * @throws DatabaseClosedException if the database is closed
     */
    public void checkpoint(Path dest) {
        engine.checkpoint(Objects.requireNonNull(dest, "dest"));
    }

    /**
     * Reads everything the database has stored and checks it: every SSTable whole (each block against its
     * checksum, entries in order, each table against what the manifest says of it), the manifest's edits and
     * the log's records. Indexes are not compared with their tables here (that takes a full scan of each: see
     * {@code lacuna check}). Runs beside reads and writes.
     *
     * @return what it read, all intact
     * @throws CorruptionException at the first damage found, naming the file and the byte offset
     * @throws StorageIOException  if reading fails
     */
    public dev.lacuna.kv.CheckReport verifyChecksums() {
        return engine.verifyChecksums();
    }

    /**
     * A snapshot of the database's shape and counters: the storage engine's ({@link #storageStats()}), the
     * log's size on disk, and each table's description with its indexes' lag.
     */
    public DatabaseStats stats() {
        List<TableDescription> tables = new java.util.ArrayList<>();
        for (String name : engine.listTables()) {
            try {
                tables.add(engine.describeTable(name));
            } catch (ResourceNotFoundException e) {
                // deleted since it was listed
            }
        }
        return new DatabaseStats(engine.storageStats(), engine.logBytes(), List.copyOf(tables));
    }

    /**
     * Stops the background work, makes the log durable and releases the directory. Writes in flight when it is
     * called may fail with {@link DatabaseClosedException}.
     *
     * <p>Idempotent, and every call returns only once the database is closed and its directory released, so that
     * the caller may open it again at once: a call made while another thread's close is under way (waiting, say, for
     * a {@link #checkpoint} running in a third thread) waits for that close to end, and throws a
     * {@link StorageIOException} whose cause is that close's failure if it failed; a call after the close ended has
     * no effect. An interrupt does not end the wait; the thread's interrupt flag is set again when the call returns.
     * A call made, while another thread's close is under way, from a thread that close waits for returns at once
     * instead, as waiting would hang both: a {@link StreamHandler} (whether or not it closed its consumer first), or a
     * {@link dev.lacuna.vfs.Vfs} hook in one of the database's own threads, or in a {@link #checkpoint}, a
     * {@link #flush}'s stream-retention read, a write's log append, or a stream consumer's poll or close running in a
     * caller's thread.
     *
     * <p>Do not close the database from inside its own work: the first close, called from a thread whose work in
     * progress the close would wait for (a {@link dev.lacuna.vfs.Vfs} hook in a background flush or compaction, in a
     * {@link #checkpoint}, {@link #verifyChecksums}, a {@link #flush}'s stream-retention read, a write's log append or
     * fsync, or a stream consumer's poll or close), would wait for itself; it throws {@link IllegalStateException}
     * instead, closes nothing, and a close from another thread then closes the database as usual. A
     * {@link StreamHandler} may close the database: the close stops everything but the handler's own processor thread,
     * which ends once the handler returns (the batch it was given is not committed, and comes again to a consumer of
     * that name opened later).
     *
     * @throws IllegalStateException if called, with no other close under way, from a thread whose work in progress
     *                               the close would wait for
     */
    @Override
    public void close() {
        engine.close();
    }
}
