package dev.lacuna.index;

/**
 * How far a backfill has come.
 *
 * @param done  items of the table indexed so far
 * @param total items the table held at the backfill's snapshot (0 when there is no backfill)
 */
public record BackfillProgress(long done, long total) {
    /** No backfill. */
    public static final BackfillProgress NONE = new BackfillProgress(0, 0);
}
