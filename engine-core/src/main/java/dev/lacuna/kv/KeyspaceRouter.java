package dev.lacuna.kv;

/**
 * Tells which keyspace a key belongs to. A keyspace is a set of hash partitions of its own (its own LSM
 * trees, like a RocksDB column family) sharing the store's log, memory budget, block cache and threads.
 * Keyspace 0 always exists, with {@link KvOptions#partitions()} partitions; others are made with
 * {@code LsmStore.createKeyspace} (the item engine makes one per table and index).
 *
 * <p>Must be a pure function of the key, thread-safe, and consistent with key order: the keys of one
 * keyspace are contiguous, so a range within one keyspace reads only its trees.
 */
@FunctionalInterface
public interface KeyspaceRouter {
    /** Every key is in keyspace 0: the store has one keyspace. */
    KeyspaceRouter SINGLE = key -> 0;

    /** The keyspace is the key's first four bytes, a big-endian int (keys shorter than that are in keyspace 0). */
    KeyspaceRouter FIRST_FOUR_BYTES = key -> key.length < 4 ? 0
            : ((key[0] & 0xFF) << 24) | ((key[1] & 0xFF) << 16) | ((key[2] & 0xFF) << 8) | (key[3] & 0xFF);

    /** The keyspace of {@code key}; the array must not be modified. */
    int keyspaceOf(byte[] key);
}
