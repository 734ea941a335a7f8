package dev.lacuna.lsm;

import dev.lacuna.kv.KvCursor;

/**
 * A {@link KvCursor} over the store's user iterator. The {@link CursorReaper} frees the iterator's resources
 * if the cursor is collected without being closed.
 */
final class StoreCursor implements KvCursor {
    private final UserIterator it;
    private final CursorReaper.Registration registration;

    StoreCursor(UserIterator it, CursorReaper reaper) {
        this.it = it;
        this.registration = reaper.watch(this, it);
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
        registration.closed();
        it.close();
    }
}
