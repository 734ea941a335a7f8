package dev.lacuna.kv;

import dev.lacuna.lsm.LsmStore;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.Durability;
import dev.lacuna.storage.StorageIOException;
import java.nio.file.Path;

/**
 * A persistent, ordered byte-key/byte-value store: Lacuna's LSM engine without the item layer, for
 * benchmarks and embedders who want bytes. Keys are ordered unsigned-bytewise. Writes go to the
 * write-ahead log and a memtable, then to SSTables in leveled trees, one per hash partition of the key
 * prefix ({@link KvOptions#keyPrefix()}).
 *
 * <p>Thread-safe. Reads see every write acknowledged before they began. {@link #close()} stops the
 * background threads and releases the directory; a crash instead is recovered by the next
 * {@link #open}, which keeps every write acknowledged with {@link Durability#SYNC}.
 *
 * <p>This class is a facade: each method hands its call to the LSM engine ({@code dev.lacuna.lsm}, not
 * exported) in one line.
 */
public final class KvStore implements AutoCloseable {
    private final LsmStore store;

    private KvStore(LsmStore store) {
        this.store = store;
    }

    /**
     * Opens the store in {@code dir}, creating it if needed, and recovers from a crash if there was one:
     * the manifest gives the tables, the log replays every write not yet in them.
     *
     * @throws CorruptionException  if stored data is damaged (file and offset named)
     * @throws StorageIOException   if the file system fails or another process has the store open
     * @throws dev.lacuna.storage.IncompatibleStoreException if the directory holds an item {@code Database}, a
     *         store written by a newer Lacuna, or one created with another partition count; nothing in it is
     *         changed
     */
    public static KvStore open(Path dir, KvOptions options) {
        return new KvStore(LsmStore.open(dir, options));
    }

    /** Sets {@code key} to {@code value} with the store's default durability. */
    public void put(byte[] key, byte[] value) {
        store.put(key, value);
    }

    /** Deletes {@code key} with the store's default durability. */
    public void delete(byte[] key) {
        store.delete(key);
    }

    /** Single-deletes {@code key} (see {@link WriteBatch#singleDelete}) with the store's default durability. */
    public void singleDelete(byte[] key) {
        store.singleDelete(key);
    }

    /**
     * Applies {@code batch} atomically and returns once it is as durable as {@code durability} asks.
     *
     * @return the batch's sequence number (its log LSN)
     * @throws StorageIOException if the log failed this write (the next one recovers it), if a partition it
     *                            writes to waits for a flush or compaction being retried after an I/O error
     *                            ({@link KvOptions#retry()}), or if a background job failed for good
     *                            (corruption: the store then refuses writes until reopened)
     * @throws dev.lacuna.storage.DatabaseClosedException if the store is closed
     */
    public long write(WriteBatch batch, Durability durability) {
        return store.write(batch, durability);
    }

    /**
     * Applies {@code batch} atomically like {@link #write}, but returns as soon as it is logged, before the
     * log is forced: call {@link #awaitDurable} with the result before acknowledging it. Lets a caller
     * release its own locks before waiting for the disk, so that concurrent writers share one fsync.
     *
     * <p>A {@code SYNC} write made this way is not visible to {@link #get} until its fsync returned. A
     * caller that, under its own lock, reads a value to compute the next one must therefore read with
     * {@link #getForUpdate} (which sees such pending writes), and before it reports anything that rests on
     * what it read, wait with {@link #awaitVisible} for the {@link #loggedSequence} it read at.
     */
    public long writeNoWait(WriteBatch batch, Durability durability) {
        return store.writeNoWait(batch, durability);
    }

    /** Waits until the write with sequence {@code lsn} is as durable as {@code durability} asks. */
    public void awaitDurable(long lsn, Durability durability) {
        store.awaitDurable(lsn, durability);
    }

    /**
     * Waits until reads see every write up to {@code lsn}, forcing the log if a {@code SYNC} write up to there
     * still waits for its fsync.
     */
    public void awaitVisible(long lsn) {
        store.awaitVisible(lsn);
    }

    /** The sequence number of the newest logged write, visible or not. */
    public long loggedSequence() {
        return store.loggedSequence();
    }

    /**
     * The newest value of {@code key}, including writes logged but not yet visible (a {@code SYNC} write
     * waiting for its fsync): for a caller that holds its own lock on the key and computes the next value
     * from it (see {@link #writeNoWait}). Reading with {@link #get} there would miss a pending write and lose
     * its update.
     */
    public byte[] getForUpdate(byte[] key) {
        return store.getForUpdate(key);
    }

    /** The value of {@code key}, or null if it has none. */
    public byte[] get(byte[] key) {
        return store.get(key);
    }

    /** The value of {@code key} in {@code snapshot}, or null. */
    public byte[] get(byte[] key, KvSnapshot snapshot) {
        return store.get(key, snapshot);
    }

    /**
     * A cursor over the keys in {@code [from, to)} (either may be null for an open end), ascending, or
     * descending if {@code reverse}. Reads at the moment of the call, or at {@code snapshot} if given.
     */
    public KvCursor scan(byte[] from, byte[] to, boolean reverse, KvSnapshot snapshot) {
        return store.scan(from, to, reverse, snapshot);
    }

    /**
     * Like {@link #scan}, for a range whose keys all share {@code prefix} (as extracted by
     * {@link KvOptions#keyPrefix()}): only that prefix's partition is read, and tables whose bloom filter
     * rules the prefix out are skipped.
     */
    public KvCursor scanPrefix(byte[] prefix, byte[] from, byte[] to, boolean reverse, KvSnapshot snapshot) {
        return store.scanPrefix(prefix, from, to, reverse, snapshot);
    }

    /** A snapshot of the store as of now; close it when done. */
    public KvSnapshot snapshot() {
        return store.snapshot();
    }

    /** Writes every memtable to SSTables and waits until that is done. */
    public void flush() {
        store.flush();
    }

    /**
     * Flushes, then compacts every file holding keys in {@code [from, to]} (null = open) down to the bottom
     * of each partition, rewriting bottom files that carry deletions, so that no deletion in the range
     * survives that no snapshot needs. Runs in the caller's thread.
     */
    public void compactRange(byte[] from, byte[] to) {
        store.compactRange(from, to);
    }

    /** Counters and the shape of the trees. */
    public KvStats stats() {
        return store.stats();
    }

    /**
     * Writes a consistent copy of the store into {@code dest}, a directory that must not exist or be empty,
     * while writes go on (a backup; RocksDB's checkpoint). The copy opens with {@link #open} as a store of its
     * own; it holds every write acknowledged before this call, whatever its durability, and of later writes
     * at most a prefix, in order. Tables are immutable and hard-linked where the file system allows (a link
     * shares the disk blocks: it costs no space until the store deletes its own name for the table); the log
     * is copied. Everything is fsynced before this returns. Thread-safe; a close during the call may fail it.
     *
     * @throws StorageIOException if {@code dest} exists and is not empty (or is a file), or the copy fails;
     *                            a copy cut short has no {@code CURRENT} file, so it never opens as a store
     * @throws dev.lacuna.storage.DatabaseClosedException if the store is closed
     */
    public void checkpoint(java.nio.file.Path dest) {
        store.checkpoint(dest);
    }

    /**
     * Reads everything the store holds and checks it: every SSTable whole (each block against its checksum, the
     * entries in order, the table against what the manifest says of it), the manifest's edits and the log's
     * records. Runs beside reads and writes; it reads every byte, so it takes as long as reading the store.
     *
     * @return what it read, all intact
     * @throws CorruptionException at the first damage found, naming the file and the byte offset
     * @throws StorageIOException  if reading fails
     */
    public CheckReport verifyChecksums() {
        return store.verifyChecksums();
    }

    /** Bytes the write-ahead log takes on disk now. */
    public long logBytes() {
        return store.logBytes();
    }

    /**
     * Stops the background threads (letting running jobs finish), makes the log durable, closes every
     * file and releases the directory. Writes not yet in tables stay in the log and are replayed by the
     * next open.
     *
     * <p>Idempotent, and every call returns only once the store is closed and its directory released: a call made
     * while another thread's close is under way waits for that close to end, and throws a
     * {@link dev.lacuna.storage.StorageIOException} whose cause is that close's failure if it failed; a call after the
     * close ended has no effect. An interrupt does not end the wait; the thread's interrupt flag is set again when the
     * call returns. A call from a thread the close under way waits for (a {@link dev.lacuna.vfs.Vfs} hook in one of
     * the store's own threads, or in a {@link #checkpoint} running in a caller's thread) returns at once instead.
     *
     * <p>Do not close the store from inside its own work: the first close, called from a thread whose work in
     * progress the close would wait for (a {@link dev.lacuna.vfs.Vfs} hook in a background flush or compaction, in
     * a {@link #checkpoint}, {@link #compactRange}, {@link #verifyChecksums}, or a write's log append or fsync),
     * would wait for itself; it throws {@link IllegalStateException} instead, closes nothing, and a close from
     * another thread then closes the store as usual.
     *
     * @throws IllegalStateException if called, with no other close under way, from a thread whose work in progress
     *                               the close would wait for
     */
    @Override
    public void close() {
        store.close();
    }
}
