package dev.lacuna.kv;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * Writes applied atomically by {@link KvStore#write}: all of them or none, also across a crash (they
 * share one log record and one sequence number). If a batch writes the same key twice, the later
 * operation wins. Not thread-safe; the arrays passed in must not be changed afterwards.
 */
public final class WriteBatch {
    /** Longest key accepted. */
    public static final int MAX_KEY = 64 * 1024;
    /** Largest value accepted. */
    public static final int MAX_VALUE = 64 << 20;

    /** The kind of a {@link #delete}: the number the log and the store's internal keys use for it. */
    public static final int KIND_DELETE = 0;
    /** The kind of a {@link #put}. */
    public static final int KIND_PUT = 1;
    /** The kind of a {@link #singleDelete}. */
    public static final int KIND_SINGLE_DELETE = 2;
    /** The kind of a {@link #logOnly} operation (logged, never applied to the store). */
    public static final int KIND_LOG_ONLY = 3;

    /**
     * One operation of the batch.
     *
     * @param kind  one of the {@code KIND_} constants
     * @param key   the key
     * @param value the value; empty for deletions
     */
    public record Op(int kind, byte[] key, byte[] value) {
    }

    /**
     * The flag of a write the database makes on its own behalf rather than a user's (a time-to-live deletion):
     * logged with the batch, so that a change stream can mark it as DynamoDB does.
     */
    public static final int FLAG_SERVICE = 1;
    /** Every flag the log knows; a record with another is refused as damaged. */
    public static final int KNOWN_FLAGS = FLAG_SERVICE;

    private final List<Op> ops = new ArrayList<>();
    private long bytes;
    private int flags;

    /**
     * Marks the batch as the database's own write, not a user's ({@link #FLAG_SERVICE}). The store logs the
     * flag and otherwise ignores it.
     */
    public WriteBatch markService() {
        flags |= FLAG_SERVICE;
        return this;
    }

    /** The batch's flags ({@link #FLAG_SERVICE} or none), logged with it. */
    public int flags() {
        return flags;
    }

    /** Sets {@code key} to {@code value}. */
    public WriteBatch put(byte[] key, byte[] value) {
        checkKey(key);
        Objects.requireNonNull(value, "value");
        if (value.length > MAX_VALUE) {
            throw new IllegalArgumentException("value of " + value.length + " bytes exceeds " + MAX_VALUE);
        }
        return add(new Op(KIND_PUT, key, value));
    }

    /** Deletes {@code key}. */
    public WriteBatch delete(byte[] key) {
        checkKey(key);
        return add(new Op(KIND_DELETE, key, new byte[0]));
    }

    /**
     * Deletes {@code key}, promising that it was put at most once since it last did not exist (as an index
     * entry is: put once, deleted once). The deletion then annihilates with that put as soon as the two
     * meet, at any level, instead of travelling to the bottom of the tree. Breaking the promise (putting
     * the key twice and single-deleting it once) may make an older value reappear, as with RocksDB's
     * SingleDelete.
     */
    public WriteBatch singleDelete(byte[] key) {
        checkKey(key);
        return add(new Op(KIND_SINGLE_DELETE, key, new byte[0]));
    }

    /**
     * Adds a record that goes into the log with the batch but not into the store: what a log consumer
     * needs beside the writes (the item a write replaced, for an index or a stream). Keys may repeat.
     */
    public WriteBatch logOnly(byte[] key, byte[] value) {
        checkKey(key);
        Objects.requireNonNull(value, "value");
        if (value.length > MAX_VALUE) {
            throw new IllegalArgumentException("value of " + value.length + " bytes exceeds " + MAX_VALUE);
        }
        return add(new Op(KIND_LOG_ONLY, key, value));
    }

    /** Operations in the batch. */
    public int size() {
        return ops.size();
    }

    /** Bytes of keys and values in the batch. */
    public long bytes() {
        return bytes;
    }

    /** The operations, in the order they were added (read-only). */
    public List<Op> ops() {
        return Collections.unmodifiableList(ops);
    }

    private WriteBatch add(Op op) {
        ops.add(op);
        bytes += op.key().length + op.value().length;
        return this;
    }

    private static void checkKey(byte[] key) {
        Objects.requireNonNull(key, "key");
        if (key.length > MAX_KEY) {
            throw new IllegalArgumentException("key of " + key.length + " bytes exceeds " + MAX_KEY);
        }
    }
}
