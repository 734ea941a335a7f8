package dev.lacuna.kv;

/**
 * A consistent view of a {@link KvStore} at one moment: reads through it see every write acknowledged
 * before it was taken and none after. While it is open, compactions keep the versions it can see.
 * Close it when done (idempotent). Thread-safe.
 */
public interface KvSnapshot extends AutoCloseable {
    /** The sequence number (log LSN) the snapshot reads at: it sees every write up to it. */
    long sequence();

    /** Releases the snapshot, letting compactions drop the versions only it could see. Idempotent. */
    @Override
    void close();
}
