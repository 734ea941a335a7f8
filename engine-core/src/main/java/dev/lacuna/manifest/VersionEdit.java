package dev.lacuna.manifest;

import dev.lacuna.base.ByteBuilder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One change to the engine's persistent state, appended to the manifest: files added to and removed
 * from the LSM trees, and the counters and log positions that must survive a restart. An edit is applied
 * whole or not at all. A snapshot of the whole state is itself an edit (the first one of every manifest).
 *
 * <p>A tree is one partition of one keyspace: an LSM tree of its own. Keyspace 0 has trees
 * {@code 0 .. treeCount-1}; keyspaces created later take the next unused tree numbers. Not
 * thread-safe; built by one thread, then handed over.
 */
public final class VersionEdit {
    /** A file added to {@code level} of {@code tree}. */
    public record AddedFile(int tree, int level, FileMeta file) {
    }

    /** A file removed from {@code level} of {@code tree}. */
    public record DeletedFile(int tree, int level, long number) {
    }

    /**
     * A keyspace (created, or its descriptor replaced): {@code partitions} trees numbered from
     * {@code firstTree}, and an opaque descriptor the layer above keeps with it.
     */
    public record Keyspace(int id, int firstTree, int partitions, byte[] descriptor) {
        public Keyspace {
            descriptor = descriptor.clone();
        }

        @Override
        public byte[] descriptor() {
            return descriptor.clone();
        }
    }

    private static final int TAG_NEXT_FILE_NUMBER = 1;
    private static final int TAG_LAST_SEQUENCE = 2;
    private static final int TAG_WAL_START_LSN = 3;
    private static final int TAG_CHECKPOINT = 4;
    private static final int TAG_REMOVE_CHECKPOINT = 5;
    private static final int TAG_TREE_COUNT = 6;
    private static final int TAG_FLUSHED_LSN = 7;
    private static final int TAG_ADD_FILE = 8;
    private static final int TAG_DELETE_FILE = 9;
    private static final int TAG_KEYSPACE = 10;
    private static final int TAG_DROP_KEYSPACE = 11;
    private static final int TAG_NEXT_IDS = 12;
    private static final int TAG_LOG_DURABLE = 13;
    private static final int TAG_STORE = 14;
    /** Bounds applied while decoding, so damaged input cannot ask for absurd structures. */
    public static final int MAX_TREES = 1 << 20;
    static final int MAX_LEVELS = 16;

    private Long nextFileNumber;
    private Long lastSequence;
    private Long walStartLsn;
    private Long logDurable;
    private Integer treeCount;
    private final Map<String, Long> checkpoints = new LinkedHashMap<>();
    private final Set<String> removedCheckpoints = new LinkedHashSet<>();
    private final Map<Integer, Long> flushedLsns = new LinkedHashMap<>();
    private final List<AddedFile> added = new ArrayList<>();
    private final List<DeletedFile> deleted = new ArrayList<>();
    private final List<Keyspace> keyspaces = new ArrayList<>();
    private final List<Integer> droppedKeyspaces = new ArrayList<>();
    private long[] nextIds;
    private Integer storeFormat;
    private String owner;

    /** Records the next unused file number. */
    public VersionEdit nextFileNumber(long n) {
        nextFileNumber = n;
        return this;
    }

    /** Records the last sequence number used. */
    public VersionEdit lastSequence(long s) {
        lastSequence = s;
        return this;
    }

    /** Records that log records below {@code lsn} are no longer needed for recovery. */
    public VersionEdit walStartLsn(long lsn) {
        walStartLsn = lsn;
        return this;
    }

    /**
     * Records that the log was durable (fsynced) through {@code lsn} when the edit was written: a recovered
     * log that ends before it lost acknowledged records at rest, and recovery refuses it.
     */
    public VersionEdit logDurable(long lsn) {
        logDurable = lsn;
        return this;
    }

    /** Records the number of trees (set when the store is created). */
    public VersionEdit treeCount(int n) {
        treeCount = n;
        return this;
    }

    /** Records log consumer {@code name}'s durable checkpoint. */
    public VersionEdit checkpoint(String name, long lsn) {
        checkpoints.put(name, lsn);
        removedCheckpoints.remove(name);
        return this;
    }

    /** Forgets log consumer {@code name}. */
    public VersionEdit removeCheckpoint(String name) {
        checkpoints.remove(name);
        removedCheckpoints.add(name);
        return this;
    }

    /** Records that {@code tree}'s tables hold every write up to {@code lsn}. */
    public VersionEdit flushedLsn(int tree, long lsn) {
        flushedLsns.put(tree, lsn);
        return this;
    }

    /** Adds a file. */
    public VersionEdit addFile(int tree, int level, FileMeta file) {
        added.add(new AddedFile(tree, level, file));
        return this;
    }

    /** Removes a file. */
    public VersionEdit deleteFile(int tree, int level, long number) {
        deleted.add(new DeletedFile(tree, level, number));
        return this;
    }

    /** Creates a keyspace, or replaces the descriptor of an existing one (same trees). */
    public VersionEdit keyspace(Keyspace keyspace) {
        keyspaces.add(keyspace);
        return this;
    }

    /** Drops a keyspace; its trees are never used again. */
    public VersionEdit dropKeyspace(int id) {
        droppedKeyspaces.add(id);
        return this;
    }

    /**
     * Marks the directory: its format version ({@code format}) and the API that owns it ({@code owner}, for
     * example {@code kv} or {@code items}). Every snapshot carries it once a store has been opened with it.
     */
    public VersionEdit store(int format, String owner) {
        this.storeFormat = format;
        this.owner = owner;
        return this;
    }

    /** The directory's format version, or null if this edit does not mark it. */
    public Integer storeFormat() {
        return storeFormat;
    }

    /** The API that owns the directory, or null if this edit does not mark it. */
    public String owner() {
        return owner;
    }

    /** Records the next unused keyspace id and tree number (ids are never reused). */
    public VersionEdit nextIds(int nextKeyspace, int nextTree) {
        nextIds = new long[] {nextKeyspace, nextTree};
        return this;
    }

    public List<Keyspace> keyspaces() {
        return keyspaces;
    }

    public List<Integer> droppedKeyspaces() {
        return droppedKeyspaces;
    }

    /** {@code [next keyspace id, next tree]}, or null if the edit does not record them. */
    public int[] nextIds() {
        return nextIds == null ? null : new int[] {(int) nextIds[0], (int) nextIds[1]};
    }

    public Long nextFileNumber() {
        return nextFileNumber;
    }

    public Long lastSequence() {
        return lastSequence;
    }

    public Long walStartLsn() {
        return walStartLsn;
    }

    public Long logDurable() {
        return logDurable;
    }

    public Integer treeCount() {
        return treeCount;
    }

    public Map<String, Long> checkpoints() {
        return checkpoints;
    }

    public Set<String> removedCheckpoints() {
        return removedCheckpoints;
    }

    public Map<Integer, Long> flushedLsns() {
        return flushedLsns;
    }

    public List<AddedFile> addedFiles() {
        return added;
    }

    public List<DeletedFile> deletedFiles() {
        return deleted;
    }

    /** Encodes the edit as tagged fields (see FORMAT.md). */
    public byte[] encode() {
        ByteBuilder out = new ByteBuilder(32);
        if (treeCount != null) {
            out.putUvarint64(TAG_TREE_COUNT);
            out.putUvarint64(treeCount);
        }
        if (nextFileNumber != null) {
            out.putUvarint64(TAG_NEXT_FILE_NUMBER);
            out.putUvarint64(nextFileNumber);
        }
        if (lastSequence != null) {
            out.putUvarint64(TAG_LAST_SEQUENCE);
            out.putUvarint64(lastSequence);
        }
        if (walStartLsn != null) {
            out.putUvarint64(TAG_WAL_START_LSN);
            out.putUvarint64(walStartLsn);
        }
        if (owner != null) {
            out.putUvarint64(TAG_STORE);
            out.putUvarint64(storeFormat);
            out.putLengthPrefixed(owner.getBytes(StandardCharsets.UTF_8));
        }
        if (logDurable != null) {
            out.putUvarint64(TAG_LOG_DURABLE);
            out.putUvarint64(logDurable);
        }
        if (nextIds != null) {
            out.putUvarint64(TAG_NEXT_IDS);
            out.putUvarint64(nextIds[0]);
            out.putUvarint64(nextIds[1]);
        }
        for (Keyspace k : keyspaces) {
            out.putUvarint64(TAG_KEYSPACE);
            out.putUvarint64(k.id());
            out.putUvarint64(k.firstTree());
            out.putUvarint64(k.partitions());
            out.putLengthPrefixed(k.descriptor);
        }
        for (int id : droppedKeyspaces) {
            out.putUvarint64(TAG_DROP_KEYSPACE);
            out.putUvarint64(id);
        }
        for (Map.Entry<String, Long> e : checkpoints.entrySet()) {
            out.putUvarint64(TAG_CHECKPOINT);
            out.putLengthPrefixed(e.getKey().getBytes(StandardCharsets.UTF_8));
            out.putUvarint64(e.getValue());
        }
        for (String name : removedCheckpoints) {
            out.putUvarint64(TAG_REMOVE_CHECKPOINT);
            out.putLengthPrefixed(name.getBytes(StandardCharsets.UTF_8));
        }
        for (Map.Entry<Integer, Long> e : flushedLsns.entrySet()) {
            out.putUvarint64(TAG_FLUSHED_LSN);
            out.putUvarint64(e.getKey());
            out.putUvarint64(e.getValue());
        }
        for (DeletedFile d : deleted) {
            out.putUvarint64(TAG_DELETE_FILE);
            out.putUvarint64(d.tree());
            out.putUvarint64(d.level());
            out.putUvarint64(d.number());
        }
        for (AddedFile a : added) {
            FileMeta f = a.file();
            out.putUvarint64(TAG_ADD_FILE);
            out.putUvarint64(a.tree());
            out.putUvarint64(a.level());
            out.putUvarint64(f.number());
            out.putUvarint64(f.size());
            out.putLengthPrefixed(f.smallest());
            out.putLengthPrefixed(f.largest());
            out.putUvarint64(f.minSequence());
            out.putUvarint64(f.maxSequence());
            out.putUvarint64(f.entries());
            out.putUvarint64(f.deletions());
            out.putUvarint64(f.oldestTombstoneTime());
        }
        return out.toByteArray();
    }

    /**
     * Decodes an edit.
     *
     * @param file   the manifest's name, for errors
     * @param offset where the edit starts in the manifest, for errors
     * @throws dev.lacuna.storage.CorruptionException if the bytes are not a valid edit
     */
    public static VersionEdit decode(byte[] bytes, String file, long offset) {
        EditReader in = new EditReader(bytes, file, offset);
        VersionEdit edit = new VersionEdit();
        while (in.hasMore()) {
            int tag = in.smallInt(Integer.MAX_VALUE);
            switch (tag) {
                case TAG_TREE_COUNT -> edit.treeCount(in.smallInt(MAX_TREES));
                case TAG_NEXT_FILE_NUMBER -> edit.nextFileNumber(in.varint());
                case TAG_LAST_SEQUENCE -> edit.lastSequence(in.varint());
                case TAG_WAL_START_LSN -> edit.walStartLsn(in.varint());
                case TAG_LOG_DURABLE -> edit.logDurable(in.varint());
                case TAG_CHECKPOINT -> edit.checkpoint(in.string(), in.varint());
                case TAG_REMOVE_CHECKPOINT -> edit.removeCheckpoint(in.string());
                case TAG_FLUSHED_LSN -> edit.flushedLsn(in.smallInt(MAX_TREES), in.varint());
                case TAG_DELETE_FILE -> edit.deleteFile(in.smallInt(MAX_TREES), in.smallInt(MAX_LEVELS), in.varint());
                case TAG_ADD_FILE -> {
                    int tree = in.smallInt(MAX_TREES);
                    int level = in.smallInt(MAX_LEVELS);
                    long number = in.varint();
                    long size = in.varint();
                    byte[] smallest = in.bytes();
                    byte[] largest = in.bytes();
                    long minSeq = in.varint();
                    long maxSeq = in.varint();
                    long entries = in.varint();
                    long deletions = in.varint();
                    long oldestTombstone = in.varint();
                    try {
                        edit.addFile(tree, level, new FileMeta(number, size, smallest, largest, minSeq, maxSeq,
                                entries, deletions, oldestTombstone));
                    } catch (IllegalArgumentException e) {
                        throw in.corrupt(e.getMessage());
                    }
                }
                case TAG_NEXT_IDS -> edit.nextIds(in.smallInt(MAX_TREES), in.smallInt(MAX_TREES));
                case TAG_KEYSPACE -> {
                    int id = in.smallInt(MAX_TREES);
                    int firstTree = in.smallInt(MAX_TREES);
                    int partitions = in.smallInt(MAX_TREES);
                    edit.keyspace(new Keyspace(id, firstTree, partitions, in.bytes()));
                }
                case TAG_DROP_KEYSPACE -> edit.dropKeyspace(in.smallInt(MAX_TREES));
                case TAG_STORE -> edit.store(in.smallInt(Integer.MAX_VALUE), in.string());
                default -> throw in.corrupt("unknown field tag " + tag);
            }
        }
        return edit;
    }
}
