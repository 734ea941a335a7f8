package dev.lacuna.lsm;

import dev.lacuna.kv.KvSnapshot;

/** A {@link KvSnapshot} registered with the store's {@link Snapshots} until closed. */
final class StoreSnapshot implements KvSnapshot {
    private final long sequence;
    private final Snapshots owner;
    private boolean closed;

    StoreSnapshot(long sequence, Snapshots owner) {
        this.sequence = sequence;
        this.owner = owner;
        owner.acquire(sequence);
    }

    @Override
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
