package dev.lacuna.base;

/**
 * The one iterator of the engine, over internal keys (see {@link InternalKey}) in
 * {@link InternalKey#COMPARATOR} order. Block, table, level, memtable and merging iterators all implement
 * it and compose, as in LevelDB; only the user-facing iterator on top hides versions and deletions.
 *
 * <p>An iterator starts unpositioned ({@link #valid()} is false) until one of the seek methods is called.
 * {@link #key()} and {@link #value()} may only be called while valid; the returned arrays belong to the
 * caller (implementations return fresh or immutable arrays, never a buffer they later overwrite).
 * Every version and every deletion is returned: nothing is hidden at this level. Not thread-safe. The
 * owner closes it; closing releases the files and memory it pins.
 *
 * <p>Damaged data surfaces as {@link dev.lacuna.storage.CorruptionException} from the positioning methods.
 */
public interface InternalIterator extends AutoCloseable {
    /** Whether the iterator is positioned on an entry. */
    boolean valid();

    /** Positions on the first entry. */
    void seekToFirst();

    /** Positions on the last entry. */
    void seekToLast();

    /** Positions on the first entry whose key is ≥ {@code target} (an internal key). */
    void seek(byte[] target);

    /** Positions on the last entry whose key is ≤ {@code target} (an internal key). */
    void seekForPrev(byte[] target);

    /** Moves to the next entry; requires {@link #valid()}. */
    void next();

    /** Moves to the previous entry; requires {@link #valid()}. */
    void prev();

    /** The current entry's internal key. */
    byte[] key();

    /**
     * The current entry's key without a copy: its bytes are {@code keyBuffer()[0, keyLength())}. Unlike
     * {@link #key()}'s array, this one may be the iterator's own buffer, rewritten by its next move: read it
     * before moving, never write it, and call {@link #key()} for a key to keep. Hot loops (the merging heap,
     * the user iterator) compare keys this way rather than copy every key they step over out of its block.
     */
    default byte[] keyBuffer() {
        return key();
    }

    /**
     * The length of the key in {@link #keyBuffer()}, which may be longer. An iterator overrides both methods or
     * neither: this default is right only for the default {@code keyBuffer()}, whose array is the key exactly.
     */
    default int keyLength() {
        return keyBuffer().length;
    }

    /** The current entry's value (empty for deletions). */
    byte[] value();

    /** Releases what the iterator holds. Idempotent. */
    @Override
    void close();
}
