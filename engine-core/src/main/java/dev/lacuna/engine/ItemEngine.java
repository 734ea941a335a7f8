package dev.lacuna.engine;

import dev.lacuna.BatchGetItem;
import dev.lacuna.BatchGetResult;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.DeleteItem;
import dev.lacuna.GetItem;
import dev.lacuna.Item;
import dev.lacuna.Page;
import dev.lacuna.PutItem;
import dev.lacuna.Query;
import dev.lacuna.Scan;
import dev.lacuna.ShardIteratorType;
import dev.lacuna.ShardRecords;
import dev.lacuna.StreamConsumer;
import dev.lacuna.StreamDescription;
import dev.lacuna.TableDescription;
import dev.lacuna.TableSpec;
import dev.lacuna.Tag;
import dev.lacuna.TimeToLiveDescription;
import dev.lacuna.TransactGet;
import dev.lacuna.TransactWrite;
import dev.lacuna.UpdateItem;
import dev.lacuna.index.IndexKind;
import dev.lacuna.item.KeyEncoding;
import dev.lacuna.kv.KeyspaceRouter;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.KvStats;
import dev.lacuna.lsm.CloseOnce;
import dev.lacuna.lsm.LsmStore;
import dev.lacuna.storage.Durability;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.function.Consumer;

/**
 * The item engine behind {@link dev.lacuna.Database}: one store, the catalog of its tables and indexes, and a
 * class per kind of request — {@link Writes} (the write path), {@link PointReads} (items by key) and
 * {@link Queries} (queries and scans). Thread-safe; each method is the {@code Database} method of its name.
 */
public final class ItemEngine implements AutoCloseable {
    private final LsmStore kv;
    private final Catalog catalog;
    private final Writes writes;
    private final IndexBackPressure backPressure;
    private final PointReads pointReads;
    private final Queries queries;
    private final TtlSweeper sweeper;
    private final Streams streams;
    private final StreamShards shards;
    private final CloseOnce closing;

    private ItemEngine(LsmStore kv, DatabaseOptions options, Path dir, Iterable<IndexKind> kinds,
                       Consumer<TtlSweeper> startSweeper) {
        this.kv = kv;
        this.closing = new CloseOnce("database " + dir);
        this.catalog = new Catalog(kv, options.clock(), kinds);
        Streams builtStreams = null;
        TtlSweeper builtSweeper = null;
        try {
            this.backPressure = new IndexBackPressure(kv, catalog, options.maxIndexLagRecords());
            this.writes = new Writes(kv, catalog, options.clock(), options.durability(), backPressure);
            this.pointReads = new PointReads(kv, catalog, options.clock(), options.returnExpiredItems());
            this.queries = new Queries(kv, options.clock(), options.returnExpiredItems());
            this.streams = builtStreams = new Streams(catalog, kv, options.clock(), options.streamRetention());
            this.shards = new StreamShards(catalog, kv, options.clock());
            this.sweeper = builtSweeper = new TtlSweeper(kv, catalog, writes, options.clock(),
                    options.timeToLiveSweepInterval(), options.timeToLiveSweepRate(),
                    streams::enforceRetentionInBackground);
            startSweeper.accept(sweeper);
        } catch (RuntimeException | Error e) {
            // The catalog has started its indexes' maintainers (threads following the log): stopped here, before
            // open closes the store under them, or they outlive the failed open and take the closed store for a
            // failure of their index. An Error too: Thread.start throws one when no thread can be made.
            closeAll(e, builtSweeper, builtStreams, catalog);
            throw e;
        }
    }

    /** Closes each of {@code parts} (null: not built), adding what they throw to {@code failure}. */
    private static void closeAll(Throwable failure, AutoCloseable... parts) {
        for (AutoCloseable part : parts) {
            if (part == null) {
                continue;
            }
            try {
                part.close();
            } catch (Throwable suppressed) {
                failure.addSuppressed(suppressed);
            }
        }
    }

    /** Opens (creating if needed) the store in {@code dir} and the engine over it; recovers after a crash. */
    public static ItemEngine open(Path dir, DatabaseOptions options) {
        return open(dir, options, ServiceLoader.load(IndexKind.class, ItemEngine.class.getClassLoader()),
                TtlSweeper::start);
    }

    /**
     * {@link #open(Path, DatabaseOptions)} with the index kinds {@code kinds}, starting the sweeper with
     * {@code startSweeper}: package-private, so that a test can give index kinds of its own and fail the constructor
     * after its catalog was built.
     */
    static ItemEngine open(Path dir, DatabaseOptions options, Iterable<IndexKind> kinds,
                           Consumer<TtlSweeper> startSweeper) {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(options, "options");
        KvOptions storage = options.storage().toBuilder().vfs(options.vfs()).durability(options.durability())
                .clock(options.clock()).partitions(1).keyspaceRouter(KeyspaceRouter.FIRST_FOUR_BYTES)
                .keyPrefix(KeyEncoding::partitionPrefixLength).build();
        LsmStore kv = LsmStore.open(dir, storage, LsmStore.OWNER_ITEMS);
        try {
            return new ItemEngine(kv, options, dir, kinds, startSweeper);
        } catch (RuntimeException | Error e) {
            // An Error too: the store left open would keep the directory locked for this process.
            try {
                kv.close();
            } catch (RuntimeException | Error suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    public TableDescription createTable(TableSpec spec) {
        return catalog.create(Objects.requireNonNull(spec, "spec"));
    }

    public TableDescription describeTable(String name) {
        kv.checkOpen(); // the catalog is in memory: without this, it would answer after close
        TableSchema t = catalog.get(name);
        return t.describe(sweeper.progress(t.id()));
    }

    public List<String> listTables() {
        kv.checkOpen();
        return catalog.names();
    }

    public TableDescription updateTable(TableSpec spec) {
        return catalog.update(Objects.requireNonNull(spec, "spec"));
    }

    public TableDescription deleteTable(String name) {
        return catalog.delete(name);
    }

    public void tagResource(String table, List<Tag> tags) {
        Objects.requireNonNull(tags, "tags");
        List<Tag> copy = List.copyOf(tags);
        catalog.changeSettings(table, s -> s.withTags(TagRules.tag(s.tags(), copy)));
    }

    public void untagResource(String table, List<String> tagKeys) {
        Objects.requireNonNull(tagKeys, "tagKeys");
        List<String> copy = new ArrayList<>(tagKeys); // a null key is refused with its position, not here
        catalog.changeSettings(table, s -> s.withTags(TagRules.untag(s.tags(), copy)));
    }

    public List<Tag> listTagsOfResource(String table) {
        kv.checkOpen();
        return catalog.get(table).settings().tagList();
    }

    public TimeToLiveDescription updateTimeToLive(String table, String attributeName, boolean enabled) {
        return catalog.changeSettings(table, s -> TimeToLive.update(s, attributeName, enabled)).settings().timeToLive();
    }

    public TimeToLiveDescription describeTimeToLive(String table) {
        kv.checkOpen();
        return catalog.get(table).settings().timeToLive();
    }

    public StreamConsumer streamConsumer(String table, String consumerName) {
        return streams.consumer(table, consumerName);
    }

    public void deleteStreamConsumer(String table, String consumerName) {
        streams.deleteConsumer(table, consumerName);
    }

    public List<StreamDescription> listStreams(String table) {
        return shards.listStreams(table);
    }

    public StreamDescription describeStream(String streamArn) {
        return shards.describeStream(streamArn);
    }

    public String getShardIterator(String streamArn, String shardId, ShardIteratorType type, String sequenceNumber) {
        return shards.getShardIterator(streamArn, shardId, type, sequenceNumber);
    }

    public ShardRecords getRecords(String shardIterator, int limit) {
        return shards.getRecords(shardIterator, limit);
    }

    /** The time-to-live sweeper (tests run its passes on their own thread). */
    TtlSweeper sweeper() {
        return sweeper;
    }

    /** Throws {@link dev.lacuna.ResourceNotFoundException} unless table {@code name} exists. */
    public void requireTable(String name) {
        kv.checkOpen();
        catalog.get(name);
    }

    public Optional<Item> getItem(String table, GetItem request) {
        return pointReads.get(table, request);
    }

    public Optional<Item> putItem(String table, PutItem request) {
        return writes.write(table, request, request.returnValues(), request.durability());
    }

    public Optional<Item> updateItem(String table, UpdateItem request) {
        return writes.write(table, request, request.returnValues(), request.durability());
    }

    public Optional<Item> deleteItem(String table, DeleteItem request) {
        return writes.write(table, request, request.returnValues(), request.durability());
    }

    public Page query(String table, Query request) {
        TableSchema t = catalog.get(table);
        return catalog.whileLive(t, () -> queries.query(t, request));
    }

    public Page scan(String table, Scan request) {
        TableSchema t = catalog.get(table);
        return catalog.whileLive(t, () -> queries.scan(t, request));
    }

    public BatchGetResult batchGetItem(BatchGetItem request) {
        return pointReads.batchGet(request);
    }

    public void batchWriteItem(List<TransactWrite> items) {
        writes.batchWrite(items);
    }

    public void transactWriteItems(List<TransactWrite> items, String clientRequestToken, Durability durability) {
        writes.transact(items, clientRequestToken, durability);
    }

    public List<Optional<Item>> transactGetItems(List<TransactGet> gets) {
        return pointReads.transactGet(gets);
    }

    public KvStats storageStats() {
        return kv.stats();
    }

    /** See {@link dev.lacuna.Database#estimateSize}: from the counts the table's and indexes' keyspaces keep. */
    public dev.lacuna.TableSizeEstimate estimateSize(String name) {
        kv.checkOpen();
        TableSchema t = catalog.get(name);
        return catalog.whileLive(t, () -> {
            java.util.Map<String, dev.lacuna.SizeEstimate> indexes = new java.util.HashMap<>();
            for (IndexRef r : t.indexRefs()) {
                indexes.put(r.name(), estimate(kv.keyspaceStats(r.keyspace())));
            }
            return new dev.lacuna.TableSizeEstimate(estimate(kv.keyspaceStats(t.id())), indexes);
        });
    }

    private static dev.lacuna.SizeEstimate estimate(dev.lacuna.kv.KeyspaceStats s) {
        return new dev.lacuna.SizeEstimate(s.estimatedLiveEntries(), s.estimatedLiveBytes());
    }

    public void flush() {
        // Counted in while retention reads the log: it holds the Streams monitor the database's close takes, so a
        // close from a file system hook in that read must not wait for another close, and, alone, is refused.
        kv.ownedThreads().counted(() -> {
            streams.enforceRetention(); // first, so that the flush's trim of the log drops what retention let go
            return null;
        });
        kv.flush();
    }

    public void checkpoint(Path dest) {
        kv.checkpoint(dest);
    }

    public dev.lacuna.kv.CheckReport verifyChecksums() {
        return kv.verifyChecksums();
    }

    public long logBytes() {
        return kv.logBytes();
    }

    /** See {@link dev.lacuna.Database#close()}: every call returns once the database is closed. */
    @Override
    public void close() {
        // A thread the close under way waits for (a stream handler's, the sweeper's, an index updater's, one of the
        // store's, a checkpoint's in a caller's thread) calling close must not wait for that close in turn; the
        // first close from such a thread is refused, as it would wait for itself (a stream handler's is not: the
        // close does not join the handler's own processor thread).
        closing.close(this::closeOnce, kv::closeWaitsForCurrentThread, kv::closeHereWaitsForItself);
    }

    /**
     * Every step runs whatever the earlier ones threw: a step that failed must not leave the store open (its LOCK held
     * for the process's life) nor the maintainers running. The first failure is thrown, the later ones suppressed in
     * it (a catalog's failure was lost when the store's close then failed too).
     */
    private void closeOnce() {
        Throwable failure = step(null, backPressure::close); // writers stalled on an index's lag give up
        failure = step(failure, sweeper::close); // before the catalog and the store: it writes through both
        failure = step(failure, streams::close);
        failure = step(failure, catalog::close);
        failure = step(failure, kv::close); // last: it releases the directory
        if (failure instanceof RuntimeException e) {
            throw e;
        }
        if (failure instanceof Error e) {
            throw e;
        }
    }

    /** Runs {@code step}: returns {@code failure}, or what the step threw if none, the step's suppressed in it. */
    private static Throwable step(Throwable failure, Runnable step) {
        try {
            step.run();
        } catch (RuntimeException | Error e) {
            if (failure == null) {
                return e;
            }
            failure.addSuppressed(e);
        }
        return failure;
    }
}
