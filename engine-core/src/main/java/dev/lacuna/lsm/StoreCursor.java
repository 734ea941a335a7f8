package dev.lacuna.lsm;

import dev.lacuna.kv.KvCursor;

/** A {@link KvCursor} over the store's user iterator. */
final class StoreCursor implements KvCursor {
    private final UserIterator it;

    StoreCursor(UserIterator it) {
        this.it = it;
    }

    @Override
    public boolean valid() {
        return it.valid();
    }

    @Override
    public byte[] key() {
        return it.key();
    }

    @Override
    public byte[] value() {
        return it.value();
    }

    @Override
    public void next() {
        it.next();
    }

    @Override
    public long deadEntriesSkipped() {
        return it.skipped();
    }

    /** Releases the files the cursor pins. Idempotent. */
    @Override
    public void close() {
        it.close();
    }
}
