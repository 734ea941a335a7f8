package dev.lacuna.engine;

import dev.lacuna.IndexStatus;
import dev.lacuna.IndexSpec;
import dev.lacuna.ResourceInUseException;
import dev.lacuna.ResourceNotFoundException;
import dev.lacuna.StreamSpecification;
import dev.lacuna.TableDescription;
import dev.lacuna.TableSpec;
import dev.lacuna.ValidationException;
import dev.lacuna.index.IndexKind;
import dev.lacuna.index.IndexMaintainer;
import dev.lacuna.lsm.Keyspace;
import dev.lacuna.kv.KvSnapshot;
import dev.lacuna.lsm.LsmStore;
import dev.lacuna.storage.Durability;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The tables of a database and their indexes. Each table and each index is a keyspace of the store, a
 * table's spec and its indexes' keyspaces kept as the keyspace's descriptor in the manifest, so creating,
 * changing or deleting a table is a durable manifest edit. Lookups are lock-free; changes are serialised on
 * this object. Writes hold their table's lock shared ({@link #writeLock}); a change to a table's indexes
 * holds it exclusively, so every write is logged knowing the indexes it must serve.
 */
final class Catalog implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Catalog.class.getName());
    private final LsmStore kv;
    private final Clock clock;
    private final List<IndexKind> kinds = new ArrayList<>();
    private final Map<String, TableSchema> byName = new ConcurrentHashMap<>();
    private final Map<String, ReentrantReadWriteLock> locks = new ConcurrentHashMap<>();
    /** Tables {@link #create} recorded, failed to publish and failed to drop again; guarded by this. */
    private final Set<String> unsettled = new HashSet<>();
    private final int tokensKeyspace;

    /** @param kinds the index kinds there are (those {@link java.util.ServiceLoader} finds, but in tests) */
    Catalog(LsmStore kv, Clock clock, Iterable<IndexKind> kinds) {
        this.kv = kv;
        this.clock = clock;
        kinds.forEach(this.kinds::add);
        int tokens;
        try {
            tokens = openTables();
        } catch (RuntimeException | Error e) {
            // The updaters of the tables opened so far are running: stopped here, before the store is closed
            // under them, they neither outlive the failed open nor take the closed store for a failure of
            // their index (logging it as FAILED and asking to mark it so).
            try {
                close();
            } catch (RuntimeException | Error suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        this.tokensKeyspace = tokens;
    }

    /**
     * Opens every table (starting its indexes' maintainers) and drops what a crash left behind; returns the keyspace
     * of the idempotency tokens.
     */
    private int openTables() {
        int tokens = -1;
        Set<Integer> indexKeyspaces = new HashSet<>();
        List<TableSchema> tables = new ArrayList<>();
        for (Keyspace k : kv.keyspaces()) {
            TableCodec.Descriptor d = TableCodec.decode(k.id(), k.descriptor());
            if (d.kind() == TableCodec.KIND_TOKENS) {
                tokens = k.id();
            } else if (d.kind() == TableCodec.KIND_INDEX) {
                indexKeyspaces.add(k.id());
            } else {
                tables.add(d.table());
            }
        }
        int tokensId = tokens >= 0 ? tokens : kv.createKeyspace(1, TableCodec.encodeTokens()).id();
        Set<String> liveCheckpoints = new HashSet<>();
        for (TableSchema t : tables) {
            for (IndexRef r : t.indexRefs()) {
                indexKeyspaces.remove(r.keyspace());
            }
        }
        for (int orphan : indexKeyspaces) { // a table or index creation cut short by a crash
            kv.dropKeyspace(orphan);
        }
        for (TableSchema t : tables) {
            TableSchema opened = open(restartBackfills(t));
            for (LiveIndex l : opened.live()) {
                liveCheckpoints.add(l.checkpointName());
            }
        }
        for (String name : kv.logCheckpoints().keySet()) {
            if (name.startsWith("index-") && !liveCheckpoints.contains(name)) {
                kv.removeLogCheckpoint(name); // of an index dropped before a crash could remove it
            }
        }
        openStreams(tables);
        return tokensId;
    }

    /**
     * Drops the log checkpoints of streams that are gone (disabled, or their table deleted, before a crash let
     * the checkpoints go), and gives an enabled stream whose own checkpoint a crash kept from being written (just
     * after its table was created: no write of the table can be in the log) one at the log's end.
     */
    private void openStreams(List<TableSchema> tables) {
        Set<String> holds = new HashSet<>();
        for (TableSchema t : tables) {
            StreamState s = t.settings().stream();
            if (s.enabled()) {
                holds.add(StreamState.holdName(t.id(), s.labelMillis()));
            }
        }
        Map<String, Long> checkpoints = kv.logCheckpoints();
        // The recovered log's end (which recovery forced): nothing has logged since the store opened. The index
        // maintainers open() started above apply the log to their indexes unlogged (applyUnlogged, at LSNs
        // already visible) and record their checkpoints in the manifest only; what logs (writes, the sweeper,
        // idempotency tokens' cleanup) starts once the catalog is open (ItemEngine).
        long end = kv.lastSequence();
        for (Map.Entry<String, Long> c : checkpoints.entrySet()) {
            String name = c.getKey();
            if (!name.startsWith(StreamState.PREFIX)) {
                continue;
            }
            if (!holds.contains(streamOf(name))) {
                kv.removeLogCheckpoint(name);
            } else if (c.getValue() > end) {
                // A checkpoint past the recovered log counts records a power loss took. This build forces the log
                // up to every stream checkpoint before saving it (create, update, retention, and the consumer's
                // commit), so that takes an earlier build (which saved them from writes not yet durable) or a
                // disk that lost writes it had reported durable. The writes logged from now on reuse those LSNs,
                // and the stream must deliver them: go on from the log's end, which is all that was durably read.
                LOG.log(System.Logger.Level.WARNING, "stream log checkpoint " + name + " was at LSN " + c.getValue()
                        + ", past the recovered log's end (" + end + "): the records after it were lost (a store"
                        + " written by an earlier build, or a disk that lost writes it had reported durable);"
                        + " moved to " + end);
                kv.setLogCheckpoint(name, end);
            }
        }
        for (String hold : holds) {
            if (!checkpoints.containsKey(hold)) {
                kv.awaitDurable(end, Durability.SYNC); // never a checkpoint past the durable log (see create)
                kv.setLogCheckpoint(hold, end);
            }
        }
    }

    /** The stream checkpoint {@code name} belongs to: {@code stream-ID-LABEL} (see {@link StreamState}). */
    private static String streamOf(String name) {
        int first = name.indexOf('-', StreamState.PREFIX.length());
        int second = first < 0 ? -1 : name.indexOf('-', first + 1);
        return second < 0 ? name : name.substring(0, second);
    }

    /** The log checkpoints of every stream table {@code id} had (its own and its consumers'). */
    private List<String> streamCheckpoints(int id) {
        String prefix = StreamState.PREFIX + id + "-";
        return kv.logCheckpoints().keySet().stream().filter(n -> n.startsWith(prefix)).sorted().toList();
    }

    /** The keyspace of transaction idempotency tokens. */
    int tokensKeyspace() {
        return tokensKeyspace;
    }

    /** The table named {@code name}; throws {@link ResourceNotFoundException} if there is none. */
    TableSchema get(String name) {
        TableSchema t = name == null ? null : byName.get(name);
        if (t == null) {
            throw new ResourceNotFoundException("Requested resource not found: Table: " + name + " not found");
        }
        return t;
    }

    /** Whether {@code table} is still the table of its name (not deleted, or deleted and created again). */
    boolean isLive(TableSchema table) {
        TableSchema now = byName.get(table.name());
        return now != null && now.id() == table.id();
    }

    /** Throws {@link ResourceNotFoundException} if {@code table} was deleted since it was looked up. */
    void requireLive(TableSchema table) {
        if (!isLive(table)) {
            throw new ResourceNotFoundException("Requested resource not found: Table: " + table.name()
                    + " was deleted");
        }
    }

    /**
     * Runs a storage operation on {@code table}, reporting a table deleted meanwhile (its keyspace gone: the
     * store's {@link IllegalArgumentException}) as not found.
     */
    <T> T whileLive(TableSchema table, Supplier<T> operation) {
        try {
            return operation.get();
        } catch (IllegalArgumentException e) {
            requireLive(table);
            throw e;
        }
    }

    /** The lock a write holds (shared) on table {@code name} from reading its schema until it is logged. */
    Lock writeLock(String name) {
        get(name);
        return locks.computeIfAbsent(name, n -> new ReentrantReadWriteLock()).readLock();
    }

    private Lock changeLock(String name) {
        return locks.computeIfAbsent(name, n -> new ReentrantReadWriteLock()).writeLock();
    }

    synchronized TableDescription create(TableSpec requested) {
        TableSpec spec = requested.withStreamSpecification(null); // the descriptor keeps the stream in the settings
        if (byName.containsKey(spec.name())) {
            throw new ResourceInUseException("Table already exists: " + spec.name());
        }
        if (unsettled.contains(spec.name())) {
            throw new ResourceInUseException("Table " + spec.name() + " was partly created or deleted and could not"
                    + " be settled; it is there once the database is reopened");
        }
        spec.indexes().forEach(i -> kindOf(i.kind())); // every index kind must be available before anything is made
        Instant now = clock.instant();
        StreamSpecification streamSpec = requested.streamSpecification();
        StreamState stream = streamSpec == null || !streamSpec.streamEnabled() ? StreamState.NONE
                : new StreamState(true, streamSpec.streamViewType(), Math.max(1, now.toEpochMilli()));
        TableSettings settings = TableSettings.NONE.withStream(stream);
        if (stream.enabled()) {
            // The stream's checkpoint is forced up to before it is set (below). Forced first before anything is
            // made: the fsync is what fails for a passing reason (an interrupt, a failed fsync the log recovers
            // from), and failing here leaves nothing to undo; below it then costs nothing unless other tables
            // logged without SYNC meanwhile.
            kv.awaitDurable(kv.lastSequence(), Durability.SYNC);
        }
        List<IndexRef> refs = new ArrayList<>();
        for (IndexSpec index : spec.indexes()) {
            refs.add(new IndexRef(index.name(), createIndexKeyspace(spec, index), false));
        }
        // The table and its global indexes' checkpoints in one manifest edit: a crash leaves both or neither (an
        // index without a checkpoint could never start). Index keyspaces made before it and left by a crash
        // belong to no table and are dropped at the next open.
        Map<String, Long> checkpoints = new HashMap<>();
        for (IndexRef r : refs) {
            if (spec.index(r.name()).kind() == IndexSpec.Kind.GLOBAL) {
                checkpoints.put(LiveIndex.checkpointName(r.keyspace()), kv.lastSequence());
            }
        }
        Keyspace k = kv.createKeyspace(spec.partitions(), TableCodec.encode(spec, now, refs, settings), checkpoints);
        TableSchema t = new TableSchema(k.id(), spec, now, refs, settings, List.of());
        String hold = StreamState.holdName(k.id(), stream.labelMillis());
        try {
            if (stream.enabled()) {
                // Read now, not before the keyspaces were made: the log may have been trimmed past an LSN read
                // then. No write of the table is below it, as the table is not published yet. The log is forced
                // up to it, as the visible sequence may count writes logged without SYNC, and a checkpoint past
                // what a power loss leaves would skip the writes a restart logs at the lost LSNs. A crash before
                // it is recorded leaves a stream without one, which the next open gives one (openStreams).
                long at = kv.lastSequence();
                kv.awaitDurable(at, Durability.SYNC);
                kv.setLogCheckpoint(hold, at);
            }
            return open(t).describe();
        } catch (RuntimeException | Error e) {
            // The table is in the manifest but not published: a retry would make a second keyspace of the name
            // (the next open would see two tables of one name), and the stream's checkpoint, if it was set,
            // would keep the log. So it is dropped again, with its indexes and checkpoints, in one edit.
            undoCreate(t, hold, checkpoints.keySet(), e);
            throw e;
        }
    }

    /**
     * Drops table {@code t}, which {@link #create} recorded and then failed to publish, with its index keyspaces
     * and the log checkpoints it may have ({@code hold}, its stream's; {@code indexCheckpoints}). If that fails
     * too, the table stays in the manifest, and the next open opens it (giving its stream a checkpoint if it
     * has none); until then its name is refused, so that no second keyspace of the name is made.
     */
    private void undoCreate(TableSchema t, String hold, Set<String> indexCheckpoints, Throwable failure) {
        TableSchema published = byName.get(t.name());
        if (published != null && published.id() == t.id()) {
            byName.remove(t.name()); // failed after publishing (starting a maintainer): no write may find it now
            discard(published.live(), List.of(), failure);
        }
        List<Integer> keyspaces = new ArrayList<>();
        for (IndexRef r : t.indexRefs()) {
            keyspaces.add(r.keyspace());
        }
        keyspaces.add(t.id());
        List<String> names = new ArrayList<>(indexCheckpoints);
        names.add(hold); // also clears what the log holds for it in memory if recording it failed
        try {
            kv.dropKeyspaces(keyspaces, names);
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
            unsettled.add(t.name());
            LOG.log(System.Logger.Level.WARNING, "creating table " + t.name() + " failed (" + failure + "), and so"
                    + " did undoing it (" + e + "): it is there, without its maintainers, once reopened");
        }
    }

    private int createIndexKeyspace(TableSpec table, IndexSpec index) {
        int partitions = index.kind() == IndexSpec.Kind.GLOBAL ? index.partitions() : table.partitions();
        return kv.createKeyspace(partitions, TableCodec.encodeIndex(table.name(), index.name())).id();
    }

    /** Opens the maintainers of {@code t}'s indexes, publishes the table, then starts them. */
    private TableSchema open(TableSchema t) {
        Map<String, KvSnapshot> backfills = new HashMap<>();
        List<LiveIndex> live = new ArrayList<>();
        try {
            for (IndexRef r : t.indexRefs()) {
                if (r.creating()) {
                    KvSnapshot s = kv.snapshot();
                    backfills.put(r.name(), s);
                    kv.setLogCheckpoint(LiveIndex.checkpointName(r.keyspace()), s.sequence());
                }
            }
            for (IndexSpec index : t.spec().indexes()) {
                live.add(openIndex(t, index, t.indexKeyspace(index.name())));
            }
        } catch (RuntimeException | Error e) {
            // Not published: nothing would ever close what was opened, nor the snapshots no backfill took. An Error
            // too (an index kind's open failing on one): the maintainers opened before it would run on for good.
            discard(live, backfills.values(), e);
            throw e;
        }
        TableSchema opened = t.withLive(live);
        byName.put(t.name(), opened);
        for (LiveIndex l : live) {
            l.maintainer().start(backfills.get(l.spec().name()));
        }
        return opened;
    }

    private LiveIndex openIndex(TableSchema t, IndexSpec index, int keyspace) {
        TableIndexContext context = new TableIndexContext(this, kv, clock, t, index, keyspace);
        IndexMaintainer m = kindOf(index.kind()).open(context);
        return new LiveIndex(index, keyspace, m, context.readLock(), new IndexWriteStalls());
    }

    /** Closes maintainers opened and snapshots taken for a change that failed, adding their errors to {@code failure}. */
    private static void discard(List<LiveIndex> opened, Collection<KvSnapshot> snapshots, Throwable failure) {
        for (LiveIndex l : opened) {
            try {
                l.maintainer().close();
            } catch (RuntimeException | Error e) { // an Error too: the others are closed all the same
                failure.addSuppressed(e);
            }
        }
        for (KvSnapshot s : snapshots) {
            try {
                s.close();
            } catch (RuntimeException | Error e) {
                failure.addSuppressed(e);
            }
        }
    }

    /**
     * An index whose backfill a crash interrupted (or that failed for good) is built again from scratch, in a
     * fresh keyspace. The new keyspaces are made first and the table's descriptor names them before the old ones
     * are dropped: a crash between any two of these edits leaves a keyspace nothing names (dropped with its
     * checkpoint at the next open) and a descriptor that names only keyspaces that exist. Dropping first left a
     * descriptor naming a dropped keyspace, and every later open failed on it.
     */
    private TableSchema restartBackfills(TableSchema t) {
        if (t.indexRefs().stream().noneMatch(IndexRef::creating)) {
            return t;
        }
        List<IndexRef> refs = new ArrayList<>();
        List<Integer> old = new ArrayList<>();
        for (IndexRef r : t.indexRefs()) {
            if (r.creating()) {
                // Once per index per open; the FAILED index's ERROR line said why it is rebuilt.
                LOG.log(System.Logger.Level.INFO, "index " + r.name() + " of table " + t.spec().name()
                        + " is built again from the table (it failed, or a crash cut its build short)");
                old.add(r.keyspace());
                refs.add(new IndexRef(r.name(), createIndexKeyspace(t.spec(), t.spec().index(r.name())), true));
            } else {
                refs.add(r);
            }
        }
        TableSchema restarted = new TableSchema(t.id(), t.spec(), t.createdAt(), refs, t.settings(), List.of());
        kv.updateKeyspace(t.id(), restarted.descriptor());
        Set<Integer> existing = new HashSet<>();
        kv.keyspaces().forEach(k -> existing.add(k.id()));
        for (int keyspace : old) {
            if (existing.contains(keyspace)) { // a store an earlier build left naming a dropped one: nothing to drop
                kv.dropKeyspaces(List.of(keyspace), List.of(LiveIndex.checkpointName(keyspace)));
            }
        }
        return restarted;
    }

    private IndexKind kindOf(IndexSpec.Kind kind) {
        for (IndexKind k : kinds) {
            if (k.kind() == kind) {
                return k;
            }
        }
        throw new ValidationException("no implementation of " + kind + " secondary indexes is on the class path "
                + "(add the engine-index module)");
    }

    /** Records that index {@code index} of {@code table} finished its backfill. */
    synchronized void activated(String table, String index) {
        TableSchema t = byName.get(table);
        if (t == null || t.indexKeyspace(index) < 0) {
            return; // deleted meanwhile
        }
        List<IndexRef> refs = new ArrayList<>();
        for (IndexRef r : t.indexRefs()) {
            refs.add(r.name().equals(index) ? new IndexRef(r.name(), r.keyspace(), false) : r);
        }
        TableSchema activated = new TableSchema(t.id(), t.spec(), t.createdAt(), refs, t.settings(), t.live());
        kv.updateKeyspace(t.id(), activated.descriptor());
        byName.put(table, activated);
    }

    /**
     * Records that index {@code index} of {@code table} failed for good: it is marked to be built again from the
     * table at the next open, as a backfill a crash cut short is ({@link #restartBackfills}), and then its log
     * checkpoint is removed, so that it no longer keeps the log. The mark is written first: a crash between the
     * two edits leaves an index to rebuild whose checkpoint the rebuild drops.
     */
    synchronized void failed(String table, String index) {
        TableSchema t = byName.get(table);
        int keyspace = t == null ? -1 : t.indexKeyspace(index);
        if (keyspace < 0) {
            return; // deleted meanwhile
        }
        List<IndexRef> refs = new ArrayList<>();
        for (IndexRef r : t.indexRefs()) {
            refs.add(r.name().equals(index) ? new IndexRef(r.name(), r.keyspace(), true) : r);
        }
        TableSchema marked = new TableSchema(t.id(), t.spec(), t.createdAt(), refs, t.settings(), t.live());
        try {
            kv.updateKeyspace(t.id(), marked.descriptor());
            byName.put(table, marked);
            kv.removeLogCheckpoint(LiveIndex.checkpointName(keyspace));
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "index " + index + " of table " + table + " failed, and recording"
                    + " that it must be rebuilt failed too; it keeps the log until the next open: " + e);
        }
    }

    /**
     * Changes table {@code name}'s settings (time to live, tags) in one manifest edit, and publishes the table
     * with them. {@code change} may refuse (throw) having changed nothing; if it returns the settings as they
     * were, nothing is written. Writes go on meanwhile: none depends on these settings.
     *
     * @return the table as it now stands
     */
    synchronized TableSchema changeSettings(String name, UnaryOperator<TableSettings> change) {
        TableSchema old = get(name);
        TableSettings settings = change.apply(old.settings());
        if (settings.equals(old.settings())) {
            return old;
        }
        TableSchema t = old.withSettings(settings);
        kv.updateKeyspace(t.id(), t.descriptor());
        byName.put(name, t);
        return t;
    }

    TableDescription update(TableSpec spec) {
        List<LiveIndex> removed = new ArrayList<>();
        TableDescription d = update(spec, removed);
        // Outside the catalog's monitor: a maintainer finishing a backfill calls back into it (activated).
        removed.forEach(this::dispose);
        return d;
    }

    /** Stops an index's maintainer and drops its keyspace and checkpoint (in one manifest edit). */
    private void dispose(LiveIndex l) {
        l.maintainer().close();
        kv.dropKeyspaces(List.of(l.keyspace()), l.maintainer().synchronous() ? List.of() : List.of(l.checkpointName()));
    }

    private synchronized TableDescription update(TableSpec requested, List<LiveIndex> removed) {
        TableSchema old = get(requested.name());
        StreamState stream = streamChange(old, requested.streamSpecification());
        TableSpec spec = requested.withStreamSpecification(null); // the descriptor keeps the stream in the settings
        TableSpec o = old.spec();
        if (!o.partitionKey().equals(spec.partitionKey()) || !Objects.equals(o.sortKey(), spec.sortKey())
                || o.partitions() != spec.partitions()) {
            throw new ValidationException("updateTable can change a table's indexes only, not its key schema or "
                    + "partitions: table " + spec.name());
        }
        List<IndexSpec> added = new ArrayList<>();
        for (IndexSpec index : spec.indexes()) {
            IndexSpec before = o.index(index.name());
            if (before == null) {
                if (index.kind() == IndexSpec.Kind.LOCAL) {
                    throw new ValidationException("local index " + index.name()
                            + " can only be defined when the table is created");
                }
                kindOf(index.kind());
                added.add(index);
            } else if (!before.equals(index)) {
                throw new ValidationException("index " + index.name() + " cannot be changed; delete it and create it "
                        + "again under another name");
            }
        }
        for (LiveIndex l : old.live()) {
            if (spec.index(l.spec().name()) == null) {
                if (l.spec().kind() == IndexSpec.Kind.LOCAL) {
                    throw new ValidationException("local index " + l.spec().name() + " cannot be removed");
                }
                removed.add(l);
            }
        }
        Lock lock = changeLock(spec.name());
        lock.lock(); // no write of this table is between reading its schema and logging
        try {
            StreamState was = old.settings().stream();
            boolean enabling = stream.enabled() && !was.enabled();
            // Every write of the table is logged by now (with the change lock held, no other is in flight). Waited
            // for before anything is made: waiting is what fails for a passing reason (an interrupt, a failed
            // fsync the log recovers from), and failing here leaves nothing to undo.
            long logged = kv.loggedSequence();
            if (enabling) {
                kv.awaitDurable(logged, Durability.SYNC); // for the stream's checkpoint, below
            } else if (!added.isEmpty()) {
                // A new index's snapshot must hold every write of the table logged so far: one still waiting for
                // its fsync is not visible yet, and the log after the snapshot holds no before-image of it for
                // the new index.
                kv.awaitVisible(logged);
            }
            List<IndexRef> refs = new ArrayList<>();
            List<LiveIndex> live = new ArrayList<>();
            for (LiveIndex l : old.live()) {
                if (!removed.contains(l)) {
                    live.add(l);
                    // A failed index is rebuilt at the next open, as one whose backfill was cut short.
                    IndexStatus status = l.maintainer().status();
                    refs.add(new IndexRef(l.spec().name(), l.keyspace(),
                            status == IndexStatus.CREATING || status == IndexStatus.FAILED));
                }
            }
            String hold = StreamState.holdName(old.id(), stream.labelMillis());
            List<Integer> made = new ArrayList<>();
            List<LiveIndex> opened = new ArrayList<>();
            List<KvSnapshot> taken = new ArrayList<>(); // each handed to its index's backfill once published
            Map<LiveIndex, KvSnapshot> backfills = new HashMap<>();
            TableSchema t;
            try {
                for (IndexSpec index : added) {
                    int keyspace = createIndexKeyspace(spec, index);
                    made.add(keyspace);
                    KvSnapshot snapshot = kv.snapshot(); // every write logged after it knows the new index
                    taken.add(snapshot);
                    kv.setLogCheckpoint(LiveIndex.checkpointName(keyspace), snapshot.sequence());
                    refs.add(new IndexRef(index.name(), keyspace, true));
                    TableSchema partial = new TableSchema(old.id(), spec, old.createdAt(), refs, old.settings(), live);
                    LiveIndex l = openIndex(partial, index, keyspace);
                    opened.add(l);
                    live.add(l);
                    backfills.put(l, snapshot);
                }
                if (enabling) {
                    // No write of the table is in flight (the change lock): every one logged so far is below the
                    // stream's start, every later one logs its before-image for it. Read now, not before the
                    // indexes were made: the log may have been trimmed past an LSN read then. The log is forced up
                    // to the checkpoint, not only made visible: writes logged without SYNC are visible before they
                    // are durable, and a checkpoint past what a power loss leaves would skip the writes a restart
                    // logs at the lost LSNs. The checkpoint is the LSN forced, not the visible sequence read after
                    // it, which other tables' writes may have moved past the durable log meanwhile. Costs nothing
                    // after the wait above unless other tables logged without SYNC meanwhile.
                    long at = kv.loggedSequence();
                    kv.awaitDurable(at, Durability.SYNC);
                    kv.setLogCheckpoint(hold, at);
                }
                t = new TableSchema(old.id(), spec, old.createdAt(), refs, old.settings().withStream(stream), live);
                // A manifest edit that fails is never installed, and the next one starts a manifest without it
                // (VersionSet.logAndApply): undoing after this one failed cannot leave a descriptor naming a
                // dropped keyspace.
                kv.updateKeyspace(old.id(), t.descriptor());
            } catch (RuntimeException | Error e) { // an Error too: the maintainers opened would run on for good
                undoUpdate(old, made, opened, taken, enabling ? hold : null, e);
                throw e;
            }
            byName.put(spec.name(), t);
            if (was.enabled() && !stream.enabled()) {
                // The stream and its consumers go; a crash before this is finished is finished by the next open.
                for (String name : streamCheckpoints(old.id())) {
                    kv.removeLogCheckpoint(name);
                }
            }
            backfills.forEach((l, snapshot) -> l.maintainer().start(snapshot));
            return t.describe();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes back what {@link #update} made for table {@code old} before it failed to record the change: closes the
     * new indexes' maintainers and snapshots, and drops their keyspaces with their checkpoints and the new
     * stream's ({@code hold}, null if none) in one edit. If that fails too, what is left belongs to no table: the
     * next open drops it (keyspaces and index checkpoints nothing names, stream checkpoints of no enabled stream).
     */
    private void undoUpdate(TableSchema old, List<Integer> made, List<LiveIndex> opened,
                            List<KvSnapshot> snapshots, String hold, Throwable failure) {
        discard(opened, snapshots, failure);
        List<String> checkpoints = new ArrayList<>();
        made.forEach(k -> checkpoints.add(LiveIndex.checkpointName(k)));
        if (hold != null) {
            checkpoints.add(hold);
        }
        if (made.isEmpty() && checkpoints.isEmpty()) {
            return;
        }
        try {
            if (made.isEmpty()) {
                checkpoints.forEach(kv::removeLogCheckpoint);
            } else {
                kv.dropKeyspaces(made, checkpoints);
            }
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
            LOG.log(System.Logger.Level.WARNING, "changing table " + old.name() + " failed (" + failure + "), and so"
                    + " did undoing it (" + e + "): what it made is dropped at the next open");
        }
    }

    /**
     * The table's stream after {@code change} (null: as it is), refused as DynamoDB refuses it: enabling a stream
     * that is enabled (also with another view type: disable it first), or disabling one that is not.
     */
    private StreamState streamChange(TableSchema table, StreamSpecification change) {
        StreamState was = table.settings().stream();
        if (change == null) {
            return was;
        }
        if (change.streamEnabled()) {
            if (was.enabled()) {
                throw new ValidationException("Table already has an enabled stream: " + table.name() + " ("
                        + was.viewType() + "); disable it before enabling a stream with another view type");
            }
            long label = Math.max(clock.millis(), was.labelMillis() + 1); // a new stream, with a label of its own
            return new StreamState(true, change.streamViewType(), Math.max(1, label));
        }
        if (!was.enabled()) {
            throw new ValidationException("Table " + table.name() + " has no enabled stream to disable");
        }
        return new StreamState(false, was.viewType(), was.labelMillis()); // DescribeStream still reports the view
    }

    TableDescription delete(String name) {
        TableSchema t = unpublish(name);
        // The table, its index keyspaces and their checkpoints go in one manifest edit: a crash leaves the
        // table whole or gone, never a table whose indexes are missing.
        List<Integer> keyspaces = new ArrayList<>();
        List<String> checkpoints = new ArrayList<>();
        for (LiveIndex l : t.live()) {
            l.maintainer().close();
            keyspaces.add(l.keyspace());
            if (!l.maintainer().synchronous()) {
                checkpoints.add(l.checkpointName());
            }
        }
        keyspaces.add(t.id());
        checkpoints.addAll(streamCheckpoints(t.id()));
        try {
            kv.dropKeyspaces(keyspaces, checkpoints);
        } catch (RuntimeException e) {
            // Not dropped (an interrupt undoes the drop; other failures stop the store), but no longer published:
            // the name is refused until the reopen brings the table back whole, or a second keyspace of the name
            // would be made and one of the two hidden behind the other.
            settleLater(name);
            throw e;
        }
        return t.description("DELETED", List.of());
    }

    private synchronized void settleLater(String name) {
        unsettled.add(name);
    }

    /** Removes table {@code name} from the catalog once no write of it is in flight; new writes find it gone. */
    private synchronized TableSchema unpublish(String name) {
        TableSchema t = get(name);
        Lock lock = changeLock(name);
        lock.lock();
        try {
            byName.remove(name);
        } finally {
            lock.unlock();
        }
        return t;
    }

    /**
     * Runs {@code change}, a change to the log checkpoints of table {@code table}'s stream {@code stream}, if the
     * table is still live with that stream enabled, under this object's monitor. Deleting the table (its
     * {@link #unpublish} is under the monitor, and the stream checkpoints it drops are listed after it) and
     * disabling the stream (all of it under the monitor) therefore either come after the change, and remove
     * what it set, or before it, and it does not run: a checkpoint set for a stream that is gone would keep the
     * log from being trimmed until the next open.
     *
     * @return whether the stream was still there (and {@code change} ran)
     */
    synchronized boolean ifStreamLive(TableSchema table, StreamState stream, Runnable change) {
        TableSchema now = byName.get(table.name());
        if (now == null || now.id() != table.id()) {
            return false;
        }
        StreamState s = now.settings().stream();
        if (!s.enabled() || s.labelMillis() != stream.labelMillis()) {
            return false;
        }
        change.run();
        return true;
    }

    /** Every table as it stands now. */
    List<TableSchema> tables() {
        return List.copyOf(byName.values());
    }

    List<String> names() {
        return byName.keySet().stream().sorted().toList();
    }

    /**
     * Stops every index maintainer, each even if another's close throws (an Error too: the ones after it would run on
     * under a closed store); throws the first failure, the others suppressed in it.
     */
    @Override
    public void close() {
        Throwable error = null;
        for (TableSchema t : byName.values()) {
            for (LiveIndex l : t.live()) {
                try {
                    l.maintainer().close();
                } catch (RuntimeException | Error e) {
                    if (error == null) {
                        error = e;
                    } else {
                        error.addSuppressed(e);
                    }
                }
            }
        }
        if (error instanceof RuntimeException e) {
            throw e;
        }
        if (error instanceof Error e) {
            throw e;
        }
    }
}
