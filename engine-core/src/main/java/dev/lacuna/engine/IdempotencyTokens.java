package dev.lacuna.engine;

import dev.lacuna.AttributeValue;
import dev.lacuna.IdempotentParameterMismatchException;
import dev.lacuna.ValidationException;
import dev.lacuna.item.KeyEncoding;
import dev.lacuna.kv.KvCursor;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.lsm.LsmStore;
import dev.lacuna.storage.Durability;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client request tokens of transactions (DynamoDB's idempotency): each committed token is an entry of
 * an internal keyspace, written in its transaction's own log record (so it survives a restart exactly when
 * the transaction does), holding the commit time and a digest of the request. A token is remembered for
 * {@link #LIFETIME}; entries past it are deleted by {@link #sweepIfDue}, at most once a lifetime, so the
 * keyspace holds about two lifetimes of tokens at most.
 */
final class IdempotencyTokens {
    /** How long a transaction's client request token is remembered (DynamoDB's rule). */
    static final Duration LIFETIME = Duration.ofMinutes(10);
    /** Expired tokens deleted per write batch. */
    private static final int SWEEP_BATCH = 256;

    private final LsmStore kv;
    private final int keyspace;
    private final Clock clock;
    private final AtomicLong lastSweep;

    IdempotencyTokens(LsmStore kv, int keyspace, Clock clock) {
        this.kv = kv;
        this.keyspace = keyspace;
        this.clock = clock;
        this.lastSweep = new AtomicLong(Long.MIN_VALUE / 2); // the first transaction with a token sweeps
    }

    /** The key of {@code token}'s entry. */
    byte[] key(String token) {
        if (token.isEmpty() || token.length() > 36) {
            throw new ValidationException("ClientRequestToken must be 1 to 36 characters: " + token.length());
        }
        // An item key like any other, so that the store's key prefix extractor reads it as such.
        return KeyEncoding.encodeKey(keyspace, AttributeValue.s(token), null);
    }

    /** The digest of a request's fingerprint ({@link Fingerprint}). */
    static byte[] digest(String fingerprint) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(fingerprint.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    /** The entry a transaction with a request of {@code digest} writes for its token, committed now. */
    byte[] entry(byte[] digest) {
        return ByteBuffer.allocate(8 + digest.length).putLong(clock.millis()).put(digest).array();
    }

    /**
     * Whether a transaction with this token committed within its lifetime (and was the same request). Reads
     * under the token's item lock, including a commit still waiting for its fsync.
     *
     * @throws IdempotentParameterMismatchException if a different request used the token
     */
    boolean alreadyDone(String token, byte[] key, byte[] digest) {
        byte[] stored = kv.getForUpdate(key);
        if (stored == null || expired(stored, clock.millis())) {
            return false;
        }
        if (!Arrays.equals(Arrays.copyOfRange(stored, 8, stored.length), digest)) {
            throw new IdempotentParameterMismatchException("ClientRequestToken " + token
                    + " was used within the last 10 minutes by a different request");
        }
        return true;
    }

    private static boolean expired(byte[] entry, long now) {
        return now - ByteBuffer.wrap(entry).getLong() > LIFETIME.toMillis();
    }

    /**
     * Deletes the entries of expired tokens if no sweep ran within the last lifetime. Each deletion takes the
     * token's item lock and checks the entry again, so a token used anew meanwhile is kept.
     */
    void sweepIfDue(ItemLocks locks) {
        long now = clock.millis();
        long last = lastSweep.get();
        if (now - last < LIFETIME.toMillis() || !lastSweep.compareAndSet(last, now)) {
            return;
        }
        List<byte[]> expired = new ArrayList<>();
        try (KvCursor c = kv.scanPartition(keyspace, 0, TableSchema.idBytes(keyspace),
                TableSchema.idBytes(keyspace + 1), false, null)) {
            for (; c.valid(); c.next()) {
                if (expired(c.value(), now)) {
                    expired.add(c.key());
                }
            }
        }
        for (int from = 0; from < expired.size(); from += SWEEP_BATCH) {
            byte[][] keys = expired.subList(from, Math.min(expired.size(), from + SWEEP_BATCH)).toArray(byte[][]::new);
            int[] held = locks.lock(keys);
            try {
                WriteBatch batch = new WriteBatch();
                for (byte[] key : keys) {
                    byte[] entry = kv.getForUpdate(key);
                    if (entry != null && expired(entry, now)) {
                        batch.delete(key);
                    }
                }
                if (batch.size() > 0) {
                    kv.writeNoWait(batch, Durability.NONE); // losing one to a crash only postpones it
                }
            } finally {
                locks.unlock(held);
            }
        }
    }
}
