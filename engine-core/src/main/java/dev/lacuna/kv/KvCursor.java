package dev.lacuna.kv;

/**
 * A position in a range scan of a {@link KvStore}, moving in one direction. Starts on the first entry
 * (check {@link #valid()}); {@link #next()} moves on. Reports how many dead internal entries (older
 * versions, deletions and the values they hide) it stepped over, the cost a tombstone backlog adds to a
 * scan. Not thread-safe; close it when done (it pins the files it reads).
 */
public interface KvCursor extends AutoCloseable {
    /** Whether the cursor is on an entry. */
    boolean valid();

    /** The current entry's key (valid only while on an entry). */
    byte[] key();

    /**
     * The current entry's value (valid only while on an entry): an array of its own that no one writes afterwards,
     * neither the cursor's later moves nor the store. Query pages rely on it: their items keep it and make some values
     * from it when first read ({@code ItemCodec.decodePageItem}), so a cursor that handed out a reused buffer would
     * change items already returned ({@code PageItemsSourceTest}).
     */
    byte[] value();

    /** Moves to the next entry in the scan's direction. */
    void next();

    /** Dead internal entries stepped over so far. */
    long deadEntriesSkipped();

    /** Releases the files the cursor pins. Idempotent. */
    @Override
    void close();
}
