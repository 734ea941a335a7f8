package dev.lacuna.storage;

/** How {@code Wal.open} treats damage found while recovering the log. */
public enum RecoveryMode {
    /**
     * The default. Replay stops at the first bad record of the <em>last</em> segment and the segment is
     * truncated there: a crash in the middle of an append leaves exactly that kind of torn tail, and no
     * record past it can have been acknowledged as durable. Damage in any earlier segment is a
     * {@link dev.lacuna.storage.CorruptionException}.
     */
    TOLERATE_TORN_TAIL,
    /** Any damage anywhere, including a torn tail, is a {@link dev.lacuna.storage.CorruptionException}. */
    ABSOLUTE
}
