package dev.lacuna;

/** The state of a secondary index, as {@link IndexDescription#status()} reports it. */
public enum IndexStatus {
    /** Being built from the table's items (a backfill); queries may miss items until it is {@link #ACTIVE}. */
    CREATING,
    /** Built and kept up to date. */
    ACTIVE,
    /** Stopped on an error; the table's writes go on, the index no longer follows them. */
    FAILED
}
