package dev.lacuna.engine;

import dev.lacuna.BatchWriteItem;
import dev.lacuna.CancellationReason;
import dev.lacuna.ConditionalCheckFailedException;
import dev.lacuna.IdempotentParameterMismatchException;
import dev.lacuna.Item;
import dev.lacuna.ReturnValues;
import dev.lacuna.TransactWrite;
import dev.lacuna.TransactionCanceledException;
import dev.lacuna.ValidationException;
import dev.lacuna.WriteOp;
import dev.lacuna.expr.ParseCache;
import dev.lacuna.index.IndexDiff;
import dev.lacuna.index.IndexEntry;
import dev.lacuna.item.ItemCodec;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.lsm.LsmStore;
import dev.lacuna.storage.Durability;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.locks.Lock;

/**
 * The item write path (ARCHITECTURE.md, "Write path"), top to bottom: hold the tables' write locks (so
 * their index specifications stay as read), check the request completely ({@link PreparedWrite}), take the
 * items' lock stripes, read the items as they stand (the before-images), evaluate every condition, compute
 * the after-images, and log them as one record; release the locks, then wait for the durability asked (a
 * {@code SYNC} write becomes visible once its fsync returned). A single write, a batch and a transaction differ only in what a failed
 * condition does.
 */
final class Writes {
    private final LsmStore kv;
    private final Catalog catalog;
    private final ItemLocks locks = new ItemLocks();
    private final Durability defaultDurability;
    private final IdempotencyTokens tokens;
    /** Update and condition expressions already parsed: a client sends the same few again and again. */
    private final ParseCache parses = new ParseCache();
    private final IndexBackPressure backPressure;

    Writes(LsmStore kv, Catalog catalog, Clock clock, Durability defaultDurability, IndexBackPressure backPressure) {
        this.kv = kv;
        this.backPressure = backPressure;
        this.catalog = catalog;
        this.defaultDurability = defaultDurability;
        this.tokens = new IdempotencyTokens(kv, catalog.tokensKeyspace(), clock);
    }

    /**
     * A put, update or delete of one item of {@code table}.
     *
     * @param durability the request's durability, or null for the database's
     * @return what {@code returnValues} asks for, if anything
     */
    Optional<Item> write(String table, WriteOp op, ReturnValues returnValues, Durability durability) {
        return write(table, op, returnValues, durability, false);
    }

    /**
     * As {@link #write(String, WriteOp, ReturnValues, Durability)}; {@code service} marks the write as the
     * database's own (a time-to-live deletion: {@link WriteBatch#markService}).
     */
    Optional<Item> write(String table, WriteOp op, ReturnValues returnValues, Durability durability, boolean service) {
        if (!service) { // the sweeper's deletions have a rate limit of their own, and must not hold up a close
            backPressure.await(catalog.get(table)); // before any lock: a stalled writer holds up no one else
        }
        Lock lock = catalog.writeLock(table);
        lock.lock(); // the schema read here (its indexes) stays current until the write is logged
        try {
            TableSchema t = catalog.get(table);
            PreparedWrite w = PreparedWrite.prepare(t, op, returnValues, parses);
            Durability d = durability == null ? defaultDurability : durability;
            return Optional.ofNullable(catalog.whileLive(t, () -> single(w, returnValues, d, service)));
        } finally {
            lock.unlock();
        }
    }

    /** Puts and deletes across tables, checked whole and applied as one atomic write (none left unprocessed). */
    void batchWrite(List<TransactWrite> items) {
        RequestLimits.checkCount("BatchWriteItem", items.size(), BatchWriteItem.MAX_WRITES);
        awaitIndexes(items);
        withTableLocks(items, () -> {
            List<PreparedWrite> prepared = prepareAll(items, "BatchWriteItem");
            RequestLimits.checkPutBytes("BatchWriteItem", items, RequestLimits.BATCH_WRITE_BYTES);
            runAtomic(prepared, null, null, defaultDurability);
        });
    }

    /**
     * A transaction: up to 100 writes on distinct items, all or nothing, with an optional idempotency token.
     *
     * @param durability the transaction's durability, or null for the database's
     */
    void transact(List<TransactWrite> items, String clientRequestToken, Durability durability) {
        RequestLimits.checkCount("TransactWriteItems", items.size(), RequestLimits.TRANSACTION_ITEMS);
        awaitIndexes(items);
        withTableLocks(items, () -> {
            List<PreparedWrite> prepared = prepareAll(items, "TransactWriteItems");
            RequestLimits.checkPutBytes("TransactWriteItems", items, RequestLimits.TRANSACTION_BYTES);
            runAtomic(prepared, clientRequestToken, clientRequestToken == null ? null : Fingerprint.of(items),
                    durability == null ? defaultDurability : durability);
        });
        if (clientRequestToken != null) {
            tokens.sweepIfDue(locks);
        }
    }

    /** Waits while an index of a table {@code items} write is too far behind ({@link IndexBackPressure}). */
    private void awaitIndexes(List<TransactWrite> items) {
        for (String name : new TreeSet<>(items.stream().map(TransactWrite::table).toList())) {
            backPressure.await(catalog.get(name));
        }
    }

    /** Runs {@code body} holding the write locks of {@code items}' tables, taken in name order. */
    private void withTableLocks(List<TransactWrite> items, Runnable body) {
        List<Lock> held = new ArrayList<>();
        try {
            for (String name : new TreeSet<>(items.stream().map(TransactWrite::table).toList())) {
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

    private List<PreparedWrite> prepareAll(List<TransactWrite> items, String operation) {
        List<PreparedWrite> prepared = new ArrayList<>();
        Set<ByteBuffer> seen = new HashSet<>();
        for (TransactWrite w : items) {
            PreparedWrite p = PreparedWrite.prepare(catalog.get(w.table()), w.op(), null, parses);
            if (!seen.add(ByteBuffer.wrap(p.encodedKey))) {
                throw new ValidationException(operation.equals("BatchWriteItem")
                        ? "Provided list of item keys contains duplicates"
                        : "Transaction request cannot include multiple operations on one item");
            }
            prepared.add(p);
        }
        return prepared;
    }

    private void runAtomic(List<PreparedWrite> prepared, String token, String fingerprint, Durability durability) {
        try {
            atomic(prepared, token, fingerprint, durability);
        } catch (IllegalArgumentException e) {
            for (PreparedWrite w : prepared) {
                catalog.requireLive(w.table);
            }
            throw e;
        }
    }

    /** One item's write; returns what {@code returnValues} asks for. */
    private Item single(PreparedWrite w, ReturnValues returnValues, Durability durability, boolean service) {
        Item before;
        Item after = null;
        long lsn = -1;
        RuntimeException refused = null;
        int[] held = locks.lock(w.encodedKey);
        long observed = kv.loggedSequence();
        try {
            before = read(w.encodedKey);
            try {
                PreparedWrite.Outcome outcome = w.apply(before);
                if (outcome.conditionFailed()) {
                    refused = new ConditionalCheckFailedException("The conditional request failed",
                            w.op.returnItemOnConditionFailure() ? before : null);
                } else {
                    after = outcome.after();
                    WriteBatch batch = new WriteBatch();
                    if (service) {
                        batch.markService();
                    }
                    if (stage(batch, w, before, after)) {
                        lsn = kv.writeNoWait(batch, durability);
                    }
                }
            } catch (ValidationException e) {
                refused = e; // the update does not apply to the item as it stands
            }
        } finally {
            locks.unlock(held);
        }
        settle(lsn, observed, durability);
        if (refused != null) {
            throw refused;
        }
        return w.returned(returnValues, before, after);
    }

    /**
     * Waits, with the item locks released, until what the request reports is safe to report: its own write
     * as durable as asked, and every write it read (the before-images, a token) visible — a {@code SYNC} write
     * read while it still waited for its fsync is not reported on, as a success, a no-op or a refusal, before
     * a crash can no longer lose it.
     */
    private void settle(long lsn, long observed, Durability durability) {
        if (lsn >= 0) {
            kv.awaitDurable(lsn, durability); // covers what was read: it was logged before
        } else {
            kv.awaitVisible(observed);
        }
    }

    /**
     * Writes that must all happen or none: a transaction (conditions allowed; failures cancel it with a
     * reason per item) or a batch write (no conditions). One log record.
     *
     * @param token the client request token, or null
     */
    private void atomic(List<PreparedWrite> writes, String token, String fingerprint, Durability durability) {
        byte[][] keys = new byte[writes.size() + (token == null ? 0 : 1)][];
        for (int i = 0; i < writes.size(); i++) {
            keys[i] = writes.get(i).encodedKey;
        }
        byte[] tokenKey = token == null ? null : tokens.key(token);
        if (tokenKey != null) {
            keys[writes.size()] = tokenKey;
        }
        byte[] digest = fingerprint == null ? null : IdempotencyTokens.digest(fingerprint);
        Logged logged;
        int[] held = locks.lock(keys);
        long observed = kv.loggedSequence();
        try {
            logged = logAtomic(writes, token, tokenKey, digest, durability);
        } finally {
            locks.unlock(held);
        }
        settle(logged.lsn(), observed, durability);
        if (logged.refused() != null) {
            throw logged.refused();
        }
    }

    /** What a write under its item locks did: the LSN it was logged at (-1: none), or why it was refused. */
    private record Logged(long lsn, RuntimeException refused) {
    }

    /** Under the items' locks: reads them, checks every condition, and logs the writes as one record. */
    private Logged logAtomic(List<PreparedWrite> writes, String token, byte[] tokenKey, byte[] digest,
                             Durability durability) {
        if (tokenKey != null) {
            try {
                if (tokens.alreadyDone(token, tokenKey, digest)) {
                    return new Logged(-1, null);
                }
            } catch (IdempotentParameterMismatchException e) {
                return new Logged(-1, e);
            }
        }
        List<CancellationReason> reasons = new ArrayList<>();
        List<Item> befores = new ArrayList<>();
        List<Item> afters = new ArrayList<>();
        boolean cancelled = false;
        for (PreparedWrite w : writes) {
            Item before = read(w.encodedKey);
            befores.add(before);
            try {
                PreparedWrite.Outcome outcome = w.apply(before);
                afters.add(outcome.after());
                if (outcome.conditionFailed()) {
                    cancelled = true;
                    reasons.add(new CancellationReason("ConditionalCheckFailed", "The conditional request failed",
                            w.op.returnItemOnConditionFailure() ? before : null));
                } else {
                    reasons.add(CancellationReason.NONE);
                }
            } catch (ValidationException e) {
                cancelled = true;
                afters.add(before);
                reasons.add(new CancellationReason("ValidationError", e.getMessage(), null));
            }
        }
        if (cancelled) {
            return new Logged(-1, new TransactionCanceledException(reasons));
        }
        WriteBatch batch = new WriteBatch();
        boolean any = false;
        for (int i = 0; i < writes.size(); i++) {
            any |= stage(batch, writes.get(i), befores.get(i), afters.get(i));
        }
        if (tokenKey != null) {
            batch.put(tokenKey, tokens.entry(digest));
            any = true;
        }
        return new Logged(any ? kv.writeNoWait(batch, durability) : -1, null);
    }

    /**
     * Adds the write's effect to {@code batch}: the item, the entries of its synchronous indexes, and — if an
     * index is kept from the log — the item it replaces, which that index's updater needs to remove the old
     * entries. False if it changes nothing stored.
     */
    private static boolean stage(WriteBatch batch, PreparedWrite w, Item before, Item after) {
        if (!w.writes() || (after == null && before == null)) {
            return false; // a condition check, or deleting an absent item
        }
        if (after != null) {
            batch.put(w.encodedKey, ItemCodec.encode(after));
        } else {
            batch.delete(w.encodedKey);
        }
        for (LiveIndex index : w.table.live()) {
            if (index.maintainer().synchronous()) {
                IndexDiff.add(batch, entries(index, before), entries(index, after));
            }
        }
        if (w.table.hasAsyncIndexes() || w.table.streamEnabled()) {
            batch.logOnly(w.encodedKey, before == null ? NO_ITEM : ItemCodec.encode(before));
        }
        return true;
    }

    private static final byte[] NO_ITEM = new byte[0];

    private static List<IndexEntry> entries(LiveIndex index, Item item) {
        return item == null ? List.of() : index.maintainer().entries(item);
    }

    /** The item as it stands, including a write still waiting for its fsync (see {@link #settle}). */
    private Item read(byte[] key) {
        byte[] value = kv.getForUpdate(key);
        return value == null ? null : ItemCodec.decode(value);
    }
}
