package dev.lacuna.storage;

/**
 * How {@code Wal.open} treats damage found while recovering the log. In every mode, damage in a segment
 * other than the last is a {@link CorruptionException}, and a log that recovery refuses is left on disk
 * exactly as it was found. The full rule is in the write-ahead log's FORMAT.md ("Recovery").
 */
public enum RecoveryMode {
    /**
     * The default. Recovery reads the last segment until its records stop (a bad fragment, zero fill, its
     * seal, or the end of the file), then looks at the rest of the segment for any well-formed fragment of
     * it (checksum, segment number, and an LSN not below the one expected there), and checks whether the
     * bad fragment is one flipped bit away from a well-formed one:
     * <ul>
     *   <li>neither: a <em>torn tail</em>, as a crash in the middle of an append leaves it (the writer
     *       writes front to back, so a cut-short write has only old zeros or nothing after it, flips no
     *       bit, and none of its records was acknowledged). The segment is cut after its last good
     *       record;</li>
     *   <li>either: <em>damage</em> (bit rot, a lost sector). Records after it were written later, so if
     *       any of them was fsynced the damaged ones were too; a flipped bit is not a crash's doing.
     *       Recovery throws a {@link CorruptionException} naming the file and the offset of the damage,
     *       and cuts nothing.</li>
     * </ul>
     * A cleanly closed segment ends with a seal, so that damage to its last record is never taken for a
     * torn tail. Two cases remain in which this mode guesses: damage of more than one bit to the very
     * last fragment of a segment that was never closed, with nothing written after it, is cut as a torn
     * tail; and a disk that makes unsynced writes durable out of order can leave a hole followed by
     * records that were never acknowledged, which is refused (an operator decides).
     */
    TOLERATE_TORN_TAIL,
    /** Any damage anywhere, including a torn tail, is a {@link CorruptionException}. */
    ABSOLUTE
}
