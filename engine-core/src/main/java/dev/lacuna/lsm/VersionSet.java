package dev.lacuna.lsm;

import dev.lacuna.base.InternalKey;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.IncompatibleStoreException;
import dev.lacuna.manifest.FileMeta;
import dev.lacuna.manifest.Manifest;
import dev.lacuna.manifest.VersionEdit;
import dev.lacuna.vfs.Vfs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * The persistent state of the engine — each tree's current {@link Version} and flushed LSN, the next
 * file number, the log position recovery starts from, and log consumers' checkpoints — and the manifest
 * that makes it durable. Every change goes through {@link #logAndApply}: the edit is fsynced in the
 * manifest first, then installed. Tracks which files live versions still hold and reports the others as
 * obsolete, so they can be deleted. Thread-safe (edits are serialised on this object).
 */
final class VersionSet implements AutoCloseable {
    /**
     * The directory's format version, recorded in every manifest snapshot: the formats of the manifest, the
     * log, the tables and the log records together. A store marked with a higher one was written by a newer
     * Lacuna and is refused. Formats 1 and 2 are still read, and keep their mark until this code writes the first
     * thing only a later format has ({@link #markCurrentFormat}, a keyspace descriptor): once it appends a version 2
     * batch, which format 1 code reads as corruption, or writes a version 5 keyspace descriptor, which format 2 code
     * reads as corruption, an older Lacuna must refuse the store rather than report it damaged. Not before: an open that fails after reading the manifest (replay, the catalog) must leave a
     * store the older Lacuna still opens, or a rollback would be blocked by an open that never succeeded.
     * History: manifest/FORMAT.md.
     */
    static final int STORE_FORMAT = 3;
    private static final System.Logger LOG = System.getLogger(VersionSet.class.getName());

    private static final Comparator<FileMeta> BY_NEWEST = Comparator.comparingLong(FileMeta::maxSequence).reversed();
    private static final Comparator<FileMeta> BY_KEY = (a, b) -> InternalKey.compare(a.smallest(), b.smallest());

    private final Vfs vfs;
    private final Path dir;
    private final LongConsumer obsoleteFile;
    /** Trees of keyspace 0, fixed when the store is created. */
    private final int treeCount;
    private Version[] current;
    private long[] flushedLsn;
    /** Trees of dropped keyspaces: never used again. */
    private final BitSet droppedTrees = new BitSet();
    /** Level-0 file count per tree, readable without the lock (the write path checks it on every write). */
    private volatile AtomicIntegerArray l0Files;
    private final Map<Long, Integer> fileRefs = new HashMap<>();
    /** Told of each version installed, by tree ({@link #subscribe}); a dropped tree's is forgotten. */
    private final Map<Integer, Consumer<Version>> subscribers = new HashMap<>();
    private final Map<String, Long> checkpoints = new LinkedHashMap<>();
    private final Map<Integer, VersionEdit.Keyspace> keyspaces = new TreeMap<>();
    private int nextKeyspaceId = 1;
    private int nextTreeId;
    private long nextFileNumber;
    private long lastSequence;
    private long walStartLsn;
    /** Who owns the directory ({@link #claim}), and its format: null and 0 for a store made before the mark. */
    private String owner;
    private int storeFormat;
    /**
     * {@code storeFormat == STORE_FORMAT}, readable without the lock: the write path checks it before every
     * append, and marks the store ({@link #markCurrentFormat}) the first time it is false.
     */
    private volatile boolean formatCurrent;
    /** The log was durable through this LSN when the last edit read or written was made (tag 13). */
    private long logDurable;
    /** The log's durable LSN now, once the log is open ({@link #trackLog}); recorded with every edit. */
    private LongSupplier durableNow = () -> 0;
    private Manifest manifest;
    /** A write to {@link #manifest} failed: its end is unknown, so the next edit starts a new manifest. */
    private boolean manifestSuspect;
    /** Tables named only by edits that failed to be written ({@link #abandonOutputs}). */
    private final List<Long> abandoned = new ArrayList<>();
    private final long maxManifestBytes;
    /** No manifest was read at open: the store is new, and holds nothing an older Lacuna could read. */
    private boolean created;
    /** Set by {@link #open}, before the set is shared: see {@link #readFrom()}. */
    private String readFrom = "the state of a new store";

    private VersionSet(Vfs vfs, Path dir, int treeCount, long maxManifestBytes, LongConsumer obsoleteFile) {
        this.vfs = vfs;
        this.maxManifestBytes = maxManifestBytes;
        this.dir = dir;
        this.treeCount = treeCount;
        this.obsoleteFile = obsoleteFile;
        this.current = new Version[0];
        this.flushedLsn = new long[0];
        this.l0Files = new AtomicIntegerArray(0);
        ensureTrees(treeCount);
        this.nextTreeId = treeCount;
        this.nextFileNumber = 1;
        this.walStartLsn = 1;
    }

    /** Grows the per-tree arrays to hold trees {@code 0 .. n-1}. */
    private void ensureTrees(int n) {
        int old = current.length;
        if (n <= old) {
            return;
        }
        current = Arrays.copyOf(current, n);
        flushedLsn = Arrays.copyOf(flushedLsn, n);
        AtomicIntegerArray l0 = new AtomicIntegerArray(n);
        for (int t = 0; t < old; t++) {
            l0.set(t, l0Files.get(t));
        }
        for (int t = old; t < n; t++) {
            current[t] = Version.empty(this::release);
        }
        l0Files = l0;
    }

    /**
     * Loads the state from the current manifest of {@code dir}, or the state of a new store of
     * {@code treeCount} trees if there is none. Writes nothing: {@link #startManifest} does, once the caller
     * has checked the rest of the directory.
     *
     * @param obsoleteFile called with the number of each file no live version holds any more
     */
    static VersionSet open(Vfs vfs, Path dir, int treeCount, long maxManifestBytes, LongConsumer obsoleteFile)
            throws IOException {
        Manifest.Contents read = Manifest.readCurrent(vfs, dir);
        VersionSet set;
        if (read == null) {
            set = new VersionSet(vfs, dir, treeCount, maxManifestBytes, obsoleteFile);
            set.created = true;
        } else {
            List<VersionEdit> edits = read.edits();
            Integer stored = edits.get(0).treeCount();
            if (stored == null) {
                throw new CorruptionException(read.file(), read.offsets().get(0), "manifest snapshot has no tree count");
            }
            if (stored != treeCount) {
                throw new IncompatibleStoreException("the store in " + dir + " was created with " + stored
                        + " partitions; it cannot be opened with " + treeCount + " (KvOptions.partitions is fixed"
                        + " when a store is created)");
            }
            set = new VersionSet(vfs, dir, treeCount, maxManifestBytes, obsoleteFile);
            for (int i = 0; i < edits.size(); i++) {
                set.apply(edits.get(i), read.file(), read.offsets().get(i));
            }
            set.readFrom = "the manifest " + read.file() + (read.tornAt() < 0 ? ""
                    : " (which ends in an edit cut short at offset " + read.tornAt() + ", read as a last append torn"
                    + " by a crash: if it was cut or damaged at rest instead, the edits after it are lost, which would"
                    + " explain this)");
        }
        return set;
    }

    /**
     * Checks that the store read by {@link #open} is one {@code wanted} may open — owned by it (or by
     * nobody yet: a new store, or one made before directories were marked) and of a format this code reads
     * — and makes it {@code wanted}'s: the manifest {@link #startManifest} writes records the mark. A new store
     * is marked with the current format at once; one read keeps the format it was marked with (1 for one made
     * before the mark, whose contents are format 1's) until {@link #markCurrentFormat}.
     *
     * @throws IncompatibleStoreException if another API owns the directory, or a newer Lacuna wrote it
     */
    synchronized void claim(String wanted) {
        if (storeFormat > STORE_FORMAT) {
            throw new IncompatibleStoreException("the store in " + dir + " has directory format " + storeFormat
                    + ", written by a newer Lacuna; this one reads up to format " + STORE_FORMAT);
        }
        if (owner != null && !owner.equals(wanted)) {
            throw new IncompatibleStoreException("the store in " + dir + " was made " + describe(owner)
                    + "; it cannot be opened " + describe(wanted));
        }
        owner = wanted;
        storeFormat = created ? STORE_FORMAT : Math.max(storeFormat, 1);
        formatCurrent = storeFormat == STORE_FORMAT;
    }

    /**
     * Whether the store is marked with the current directory format: if not, {@link #markCurrentFormat} must
     * run before anything of that format (a version 2 log record) is written.
     */
    boolean formatCurrent() {
        return formatCurrent;
    }

    /**
     * Marks the store with the current directory format, durably, unless it is already (or has no owner: a set
     * opened without {@link #claim}, by a tool). Called before the first record of the current log format is
     * appended, so the mark precedes it: an older Lacuna then refuses the store instead of misreading the record.
     */
    synchronized void markCurrentFormat(long lastSequenceNow) throws IOException {
        if (storeFormat < STORE_FORMAT && owner != null) {
            logAndApply(new VersionEdit().store(STORE_FORMAT, owner), lastSequenceNow);
        }
    }

    /**
     * Gives {@code state}, a snapshot taken earlier ({@link #pin}), the store's mark as it is now. A checkpoint
     * calls it once it has copied the log: the mark only rises, and it is durable before the first record of the
     * current format is appended, so the copy's mark then covers every record it copied.
     */
    synchronized void markAsNow(VersionEdit state) {
        if (owner != null) {
            state.store(storeFormat, owner);
        }
    }

    /** Adds the current format's mark to {@code edit} if the store lacks it: the edit writes a format 2 thing. */
    private VersionEdit withCurrentFormat(VersionEdit edit) {
        if (storeFormat < STORE_FORMAT && owner != null) {
            edit.store(STORE_FORMAT, owner);
        }
        return edit;
    }

    private static String describe(String owner) {
        return switch (owner) {
            case LsmStore.OWNER_KV -> "as a byte-level KvStore";
            case LsmStore.OWNER_ITEMS -> "as an item Database";
            default -> "by '" + owner + "'";
        };
    }

    /**
     * Where the state read at open comes from, for a refusal of a directory that does not fit it: the manifest
     * file, and whether it ended in an edit cut short (the edits a cut at rest took are a likely cause).
     */
    String readFrom() {
        return readFrom;
    }

    /**
     * Starts a new manifest holding the state read by {@link #open} and makes it current, then deletes the
     * older manifests. Called once the directory has been checked whole ({@link OpenCheck}): until then an
     * open writes and deletes nothing.
     */
    synchronized void startManifest() throws IOException {
        long number = nextFileNumber++;
        manifest = Manifest.create(vfs, dir, number, snapshot());
        deleteOtherManifests(number);
    }

    /**
     * Has every edit from now on record how far {@code durableLsn} says the log is durable, so that a later
     * open can tell a log that lost acknowledged records at rest (cut or damaged at its end) from one that
     * merely lost what a power loss may take. Called once the log is open, before {@link #startManifest}.
     */
    synchronized void trackLog(LongSupplier durableLsn) {
        durableNow = durableLsn;
    }

    /**
     * How far the log was durable when the last edit of the manifest read at open (or written since) was
     * made: the recovered log must reach it. 0 if no edit said (a manifest of format version 1 or 2).
     */
    synchronized long logDurable() {
        return logDurable;
    }

    /** Trees of keyspace 0. */
    int treeCount() {
        return treeCount;
    }

    /** Trees ever allocated (dropped ones included): tree numbers are below it. */
    synchronized int allocatedTrees() {
        return current.length;
    }

    synchronized boolean isDropped(int tree) {
        return droppedTrees.get(tree);
    }

    /** The live keyspaces other than keyspace 0, by id. */
    synchronized List<VersionEdit.Keyspace> keyspaces() {
        return List.copyOf(keyspaces.values());
    }

    /**
     * Creates a keyspace of {@code partitions} new trees and makes it durable.
     *
     * @return the keyspace, with its id and first tree
     */
    synchronized VersionEdit.Keyspace createKeyspace(int partitions, byte[] descriptor, Map<String, Long> checkpoints,
                                                     long lastSequenceNow) throws IOException {
        VersionEdit.Keyspace k = new VersionEdit.Keyspace(nextKeyspaceId, nextTreeId, partitions, descriptor);
        VersionEdit edit = new VersionEdit().keyspace(k).nextIds(k.id() + 1, k.firstTree() + partitions);
        checkpoints.forEach(edit::checkpoint);
        // The descriptor is the caller's, in its current version (5 for a table: format 3 only).
        logAndApply(withCurrentFormat(edit), lastSequenceNow);
        return k;
    }

    /** Replaces the descriptor of keyspace {@code id}. */
    synchronized void updateKeyspace(int id, byte[] descriptor, long lastSequenceNow) throws IOException {
        VersionEdit.Keyspace k = keyspaces.get(id);
        if (k == null) {
            throw new IllegalArgumentException("no keyspace " + id);
        }
        logAndApply(withCurrentFormat(new VersionEdit().keyspace(
                new VersionEdit.Keyspace(id, k.firstTree(), k.partitions(), descriptor))), lastSequenceNow);
    }

    /**
     * Drops keyspaces {@code ids} with every file of their trees, and forgets the log checkpoints
     * {@code checkpoints}, in one edit: a crash leaves all of it done or none. Their trees must be idle.
     */
    synchronized void dropKeyspaces(List<Integer> ids, List<String> checkpoints, long lastSequenceNow)
            throws IOException {
        VersionEdit edit = new VersionEdit();
        for (int id : ids) {
            VersionEdit.Keyspace k = keyspaces.get(id);
            if (k == null) {
                throw new IllegalArgumentException("no keyspace " + id);
            }
            edit.dropKeyspace(id);
            for (int t = k.firstTree(); t < k.firstTree() + k.partitions(); t++) {
                List<List<FileMeta>> levels = current[t].levels();
                for (int level = 0; level < levels.size(); level++) {
                    for (FileMeta f : levels.get(level)) {
                        edit.deleteFile(t, level, f.number());
                    }
                }
            }
        }
        checkpoints.forEach(edit::removeCheckpoint);
        logAndApply(edit, lastSequenceNow);
    }

    /**
     * Calls {@code subscriber} with the current version of {@code tree} now, and with each version of it
     * installed from now on, under this object's monitor, after it became current and before the one it
     * replaces is released: a {@link Tree} keeps its view's version so. The subscriber takes its own
     * reference.
     */
    synchronized void subscribe(int tree, Consumer<Version> subscriber) {
        subscribers.put(tree, subscriber);
        subscriber.accept(current[tree]);
    }

    /** The current version of {@code tree}, referenced for the caller, who must {@link Version#unref()} it. */
    synchronized Version acquire(int tree) {
        Version v = current[tree];
        v.ref();
        return v;
    }

    /**
     * What a checkpoint copies: the whole state as one edit, every live tree's version (referenced, so that no
     * file the state names is deleted until the caller unrefs them), and the first LSN the log must hold for
     * that state (where recovery starts replaying, or a log consumer's checkpoint needs it from, whichever is
     * lower).
     */
    record Pinned(VersionEdit state, List<Version> versions, long logNeededFrom) {
    }

    /**
     * Pins the state for a checkpoint ({@link Pinned}), calling {@code keepLogFrom} with the first LSN it needs
     * while no edit can run: an edit that moves the log's start, and so the trim after it, comes after the call,
     * so the caller can keep the log from there (a log checkpoint) before anything trims it.
     */
    synchronized Pinned pin(LongConsumer keepLogFrom) {
        VersionEdit state = snapshot();
        List<Version> versions = new ArrayList<>();
        for (int t = 0; t < current.length; t++) {
            if (!droppedTrees.get(t)) {
                current[t].ref();
                versions.add(current[t]);
            }
        }
        long from = walStartLsn;
        for (long checkpoint : checkpoints.values()) {
            from = Math.min(from, checkpoint + 1);
        }
        keepLogFrom.accept(from);
        return new Pinned(state, versions, from);
    }

    /**
     * Reads the current manifest back from the disk, checking every edit against its checksum, while no edit
     * can switch it; returns the number of edits.
     *
     * @throws CorruptionException if it is damaged
     */
    synchronized int verifyManifest() throws IOException {
        return Manifest.readCurrent(vfs, dir).edits().size();
    }

    /** The current version of {@code tree} without a reference; valid only while the caller holds this lock. */
    synchronized Version currentUnreferenced(int tree) {
        return current[tree];
    }

    /** Level-0 files of {@code tree} in its current version. */
    int l0Files(int tree) {
        return l0Files.get(tree);
    }

    synchronized long flushedLsn(int tree) {
        return flushedLsn[tree];
    }

    /** The id the next keyspace made gets: it changes exactly when a keyspace is made. */
    synchronized int nextKeyspaceId() {
        return nextKeyspaceId;
    }

    synchronized long walStartLsn() {
        return walStartLsn;
    }

    synchronized long lastSequence() {
        return lastSequence;
    }

    synchronized Map<String, Long> checkpoints() {
        return Map.copyOf(checkpoints);
    }

    /** A fresh file number. */
    synchronized long newFileNumber() {
        return nextFileNumber++;
    }

    /** Every file number any live version refers to. */
    synchronized Set<Long> liveFiles() {
        return new HashSet<>(fileRefs.keySet());
    }

    /**
     * Makes {@code edit} durable in the manifest, then installs the versions it produces. {@code lastSequence}
     * is recorded with it (recovery takes the larger of it and the log's).
     *
     * <p>If writing the edit fails, nothing is installed, and the manifest's end is unknown: the edit may be
     * on disk whole, in part, or not at all. The next edit therefore starts a new manifest (a snapshot of the
     * state as installed, which does not hold the failed edit) instead of appending after what may be a
     * partial record; and files only the failed edit named ({@link #abandonOutputs}) are deleted only once that
     * new manifest is current, since a crash before then may recover the old manifest with the edit in it.
     */
    synchronized void logAndApply(VersionEdit edit, long lastSequenceNow) throws IOException {
        edit.nextFileNumber(nextFileNumber).lastSequence(Math.max(lastSequence, lastSequenceNow))
                .logDurable(Math.max(logDurable, durableNow.getAsLong()));
        // An edit the next open would refuse must never reach the manifest: that would make the store
        // unopenable over what is only a bug in the running process.
        try {
            validate(edit, dir.resolve(Manifest.fileName(manifest.number())).toString(), 0);
        } catch (CorruptionException e) {
            throw new IllegalStateException("refusing to write a version edit that recovery would refuse: "
                    + e.getMessage(), e);
        }
        // Nothing is installed before the edit is durable: installing releases the versions it replaces,
        // whose files are then deleted, which only the durable edit allows.
        try {
            if (manifestSuspect || manifest.size() > maxManifestBytes) {
                rotateManifest(edit);
            } else {
                manifest.append(edit);
            }
        } catch (IOException | RuntimeException | Error e) {
            manifestSuspect = true;
            throw e;
        }
        apply(edit, dir.resolve(Manifest.fileName(manifest.number())).toString(), -1);
    }

    /**
     * The tables {@code outputs} of a flush or compaction whose {@link #logAndApply} failed: deleted once a
     * manifest without the failed edit is current (at the next successful edit), or by the next open.
     */
    synchronized void abandonOutputs(List<FileMeta> outputs) {
        for (FileMeta f : outputs) {
            abandoned.add(f.number());
        }
    }

    /** Starts a new manifest holding the state as it is and then {@code edit}, and makes it current. */
    private void rotateManifest(VersionEdit edit) throws IOException {
        long number = nextFileNumber++;
        edit.nextFileNumber(nextFileNumber);
        Manifest next = Manifest.create(vfs, dir, number, snapshot(), edit);
        Manifest old = manifest;
        manifest = next;
        manifestSuspect = false;
        try {
            old.close();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot close the previous manifest in " + dir + ": " + e);
        }
        deleteOtherManifests(number);
        // Only now can no crash bring back a manifest naming them: CURRENT names the new one, durably.
        for (long n : abandoned) {
            if (!fileRefs.containsKey(n)) {
                obsoleteFile.accept(n);
            }
        }
        abandoned.clear();
    }

    /**
     * Deletes every manifest but {@code keep}, which is current. A failure is no error: the file is left for
     * the next open, which reads only the manifest {@code CURRENT} names.
     */
    private void deleteOtherManifests(long keep) {
        String keepName = Manifest.fileName(keep);
        try {
            for (String name : vfs.list(dir)) {
                if (name.startsWith("MANIFEST-") && !name.equals(keepName)) {
                    vfs.delete(dir.resolve(name));
                }
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot delete an old manifest in " + dir
                    + "; the next open deletes it: " + e);
        }
    }

    /** The whole state as one edit. */
    private VersionEdit snapshot() {
        VersionEdit edit = new VersionEdit().treeCount(treeCount).nextFileNumber(nextFileNumber)
                .lastSequence(lastSequence).walStartLsn(walStartLsn).nextIds(nextKeyspaceId, nextTreeId)
                .logDurable(Math.max(logDurable, durableNow.getAsLong()));
        if (owner != null) {
            edit.store(storeFormat, owner);
        }
        checkpoints.forEach(edit::checkpoint);
        keyspaces.values().forEach(edit::keyspace);
        for (int t = 0; t < current.length; t++) {
            if (droppedTrees.get(t) || (t >= treeCount && !ownedByKeyspace(t))) {
                continue;
            }
            edit.flushedLsn(t, flushedLsn[t]);
            List<List<FileMeta>> levels = current[t].levels();
            for (int level = 0; level < levels.size(); level++) {
                for (FileMeta f : levels.get(level)) {
                    edit.addFile(t, level, f);
                }
            }
        }
        return edit;
    }

    private boolean ownedByKeyspace(int tree) {
        for (VersionEdit.Keyspace k : keyspaces.values()) {
            if (tree >= k.firstTree() && tree < k.firstTree() + k.partitions()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Refuses, changing nothing, an edit that {@link #apply} would refuse part way through: checked before an
     * edit is written, and before one read from the manifest is applied.
     */
    private void validate(VersionEdit edit, String where, long offset) {
        int trees = current.length;
        int[] ids = edit.nextIds();
        if (ids != null) {
            trees = Math.max(trees, ids[1]);
        }
        Map<Integer, VersionEdit.Keyspace> defined = new HashMap<>(keyspaces);
        for (VersionEdit.Keyspace k : edit.keyspaces()) {
            VersionEdit.Keyspace old = defined.get(k.id());
            long end = (long) k.firstTree() + k.partitions();
            if (k.id() == 0 || k.partitions() < 1 || k.firstTree() < treeCount || end > VersionEdit.MAX_TREES
                    || (old != null && (old.firstTree() != k.firstTree() || old.partitions() != k.partitions()))) {
                throw new CorruptionException(where, offset, "manifest defines keyspace " + k.id() + " with trees "
                        + k.firstTree() + ".." + (end - 1) + (old == null ? "" : ", unlike before"));
            }
            if (old == null && droppedTrees.get(k.firstTree(), (int) end).cardinality() > 0) {
                throw new CorruptionException(where, offset, "manifest reuses dropped trees for keyspace " + k.id());
            }
            defined.put(k.id(), k);
            trees = Math.max(trees, (int) end);
        }
        for (int tree : edit.flushedLsns().keySet()) {
            checkTree(tree, trees, where, offset);
        }
        Set<String> removed = new HashSet<>();
        for (VersionEdit.DeletedFile d : edit.deletedFiles()) {
            checkTree(d.tree(), trees, where, offset);
            boolean present = d.level() >= 0 && d.level() < Version.LEVELS && d.tree() < current.length
                    && current[d.tree()].files(d.level()).stream().anyMatch(f -> f.number() == d.number());
            if (!present || !removed.add(d.tree() + "/" + d.level() + "/" + d.number())) {
                throw new CorruptionException(where, offset, "manifest removes file " + d.number()
                        + " that is not in level " + d.level() + " of tree " + d.tree());
            }
        }
        for (VersionEdit.AddedFile a : edit.addedFiles()) {
            checkTree(a.tree(), trees, where, offset);
            if (a.level() < 0 || a.level() >= Version.LEVELS) {
                throw new CorruptionException(where, offset, "manifest names level " + a.level());
            }
        }
        for (int id : edit.droppedKeyspaces()) {
            if (defined.remove(id) == null) {
                throw new CorruptionException(where, offset, "manifest drops keyspace " + id + " that does not exist");
            }
        }
    }

    /**
     * Installs {@code edit}; one that does not fit the state is a {@link CorruptionException} naming the manifest
     * {@code where} and the offset of its record ({@code at}, or the manifest's start for one being written).
     */
    private void apply(VersionEdit edit, String where, long at) {
        long offset = Math.max(at, 0);
        validate(edit, where, offset);
        if (edit.owner() != null) {
            owner = edit.owner();
            storeFormat = edit.storeFormat();
            formatCurrent = storeFormat == STORE_FORMAT;
        }
        int[] ids = edit.nextIds();
        if (ids != null) {
            nextKeyspaceId = Math.max(nextKeyspaceId, ids[0]);
            nextTreeId = Math.max(nextTreeId, ids[1]);
            ensureTrees(nextTreeId);
        }
        for (VersionEdit.Keyspace k : edit.keyspaces()) {
            VersionEdit.Keyspace old = keyspaces.get(k.id());
            long end = (long) k.firstTree() + k.partitions();
            if (k.id() == 0 || k.partitions() < 1 || k.firstTree() < treeCount || end > VersionEdit.MAX_TREES
                    || (old != null && (old.firstTree() != k.firstTree() || old.partitions() != k.partitions()))) {
                throw new CorruptionException(where, offset, "manifest defines keyspace " + k.id() + " with trees "
                        + k.firstTree() + ".." + (end - 1) + (old == null ? "" : ", unlike before"));
            }
            if (old == null && droppedTrees.get(k.firstTree(), (int) end).cardinality() > 0) {
                throw new CorruptionException(where, offset, "manifest reuses dropped trees for keyspace " + k.id());
            }
            keyspaces.put(k.id(), k);
            nextKeyspaceId = Math.max(nextKeyspaceId, k.id() + 1);
            nextTreeId = Math.max(nextTreeId, (int) end);
            ensureTrees(nextTreeId);
        }
        if (edit.nextFileNumber() != null) {
            nextFileNumber = Math.max(nextFileNumber, edit.nextFileNumber());
        }
        if (edit.lastSequence() != null) {
            lastSequence = Math.max(lastSequence, edit.lastSequence());
        }
        if (edit.walStartLsn() != null) {
            walStartLsn = Math.max(walStartLsn, edit.walStartLsn());
        }
        if (edit.logDurable() != null) {
            logDurable = Math.max(logDurable, edit.logDurable());
        }
        checkpoints.putAll(edit.checkpoints());
        edit.removedCheckpoints().forEach(checkpoints::remove);
        edit.flushedLsns().forEach((tree, lsn) -> {
            checkTree(tree, where, offset);
            flushedLsn[tree] = Math.max(flushedLsn[tree], lsn);
        });
        Map<Integer, List<List<FileMeta>>> changed = new HashMap<>();
        for (VersionEdit.DeletedFile d : edit.deletedFiles()) {
            checkTree(d.tree(), where, offset);
            List<FileMeta> level = levelsOf(changed, d.tree()).get(d.level());
            if (!level.removeIf(f -> f.number() == d.number())) {
                throw new CorruptionException(where, offset, "manifest removes file " + d.number()
                        + " that is not in level " + d.level() + " of tree " + d.tree());
            }
        }
        for (VersionEdit.AddedFile a : edit.addedFiles()) {
            checkTree(a.tree(), where, offset);
            if (a.level() >= Version.LEVELS) {
                throw new CorruptionException(where, offset, "manifest names level " + a.level());
            }
            levelsOf(changed, a.tree()).get(a.level()).add(a.file());
        }
        changed.forEach((tree, levels) -> {
            levels.get(0).sort(BY_NEWEST);
            for (int l = 1; l < levels.size(); l++) {
                levels.get(l).sort(BY_KEY);
            }
            Version next = new Version(levels, this::release);
            for (List<FileMeta> level : next.levels()) {
                for (FileMeta f : level) {
                    fileRefs.merge(f.number(), 1, Integer::sum);
                }
            }
            Version old = current[tree];
            current[tree] = next;
            l0Files.set(tree, next.files(0).size());
            Consumer<Version> subscriber = subscribers.get(tree);
            if (subscriber != null) {
                subscriber.accept(next);
            }
            old.unref();
        });
        for (int id : edit.droppedKeyspaces()) {
            VersionEdit.Keyspace k = keyspaces.remove(id);
            if (k == null) {
                throw new CorruptionException(where, offset, "manifest drops keyspace " + id + " that does not exist");
            }
            droppedTrees.set(k.firstTree(), k.firstTree() + k.partitions());
            for (int t = k.firstTree(); t < k.firstTree() + k.partitions(); t++) {
                subscribers.remove(t); // its tree was told of its last version (without files) above
            }
        }
    }

    private List<List<FileMeta>> levelsOf(Map<Integer, List<List<FileMeta>>> changed, int tree) {
        return changed.computeIfAbsent(tree, t -> {
            List<List<FileMeta>> copy = new ArrayList<>();
            for (List<FileMeta> level : current[t].levels()) {
                copy.add(new ArrayList<>(level));
            }
            return copy;
        });
    }

    private void checkTree(int tree, String where, long offset) {
        checkTree(tree, current.length, where, offset);
    }

    private void checkTree(int tree, int trees, String where, long offset) {
        if (tree < 0 || tree >= trees || droppedTrees.get(tree)) {
            throw new CorruptionException(where, offset, "manifest names tree " + tree + ", which "
                    + (tree >= 0 && tree < trees ? "was dropped" : "does not exist"));
        }
    }

    /**
     * Called when a version's last reference goes: its files lose a holder. While {@link #open} reads the
     * manifest (no manifest of our own yet), a file that drops out is one a later edit removed; it is not
     * reported, because an open deletes nothing before it has checked the directory, and the open deletes
     * every table the state does not name once it has ({@code Recovery}).
     */
    private void release(Version version) {
        List<Long> obsolete = new ArrayList<>();
        boolean reading;
        synchronized (this) {
            reading = manifest == null;
            for (List<FileMeta> level : version.levels()) {
                for (FileMeta f : level) {
                    int left = fileRefs.merge(f.number(), -1, Integer::sum);
                    if (left == 0) {
                        fileRefs.remove(f.number());
                        obsolete.add(f.number());
                    }
                }
            }
        }
        if (!reading) {
            obsolete.forEach(obsoleteFile::accept);
        }
    }

    @Override
    public synchronized void close() throws IOException {
        if (manifest != null) {
            manifest.close();
        }
    }
}
