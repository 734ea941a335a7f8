package dev.lacuna.lsm;

/**
 * A keyspace of a {@link LsmStore}: hash partitions of its own (own LSM trees, like a RocksDB column
 * family) that share the store's log, memory budget, block cache and background threads.
 *
 * @param id         its id, which {@link dev.lacuna.kv.KvOptions#keyspaceRouter()} maps its keys to; never reused
 * @param partitions its hash partitions
 * @param descriptor what its creator stored with it (a table's schema, for example)
 */
public record Keyspace(int id, int partitions, byte[] descriptor) {
    /** Copies the descriptor. */
    public Keyspace {
        descriptor = descriptor.clone();
    }

    /** A copy of the descriptor. */
    @Override
    public byte[] descriptor() {
        return descriptor.clone();
    }
}
