package dev.lacuna.lsm;

/**
 * A consistent view of a {@link KvStore} at one moment: reads through it see every write acknowledged
 * before it was taken and none after. While it is open, compactions keep the versions it can see.
 * Close it when done (idempotent). Thread-safe.
 */
public final class KvSnapshot implements AutoCloseable {
    private final long sequence;
    private final Snapshots owner;
    private boolean closed;

    KvSnapshot(long sequence, Snapshots owner) {
        this.sequence = sequence;
        this.owner = owner;
        owner.acquire(sequence);
    }

    /** The sequence number (log LSN) of the last write the snapshot sees. */
    public long sequence() {
        return sequence;
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            owner.release(sequence);
        }
    }
}
