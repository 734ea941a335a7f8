package dev.lacuna.lsm;

/**
 * A position in a range scan of a {@link KvStore}, moving in one direction. Starts on the first entry
 * (check {@link #valid()}); {@link #next()} moves on. Reports how many dead internal entries (older
 * versions, deletions and the values they hide) it stepped over, the cost a tombstone backlog adds to a
 * scan. Not thread-safe; close it when done (it pins the files it reads).
 */
public final class KvCursor implements AutoCloseable {
    private final UserIterator it;

    KvCursor(UserIterator it) {
        this.it = it;
    }

    /** Whether the cursor is on an entry. */
    public boolean valid() {
        return it.valid();
    }

    /** The current key; do not modify. */
    public byte[] key() {
        return it.key();
    }

    /** The current value; do not modify. */
    public byte[] value() {
        return it.value();
    }

    /** Moves to the next entry in the scan's direction. */
    public void next() {
        it.next();
    }

    /** Dead internal entries stepped over so far. */
    public long deadEntriesSkipped() {
        return it.skipped();
    }

    /** Releases the files the cursor pins. Idempotent. */
    @Override
    public void close() {
        it.close();
    }
}
