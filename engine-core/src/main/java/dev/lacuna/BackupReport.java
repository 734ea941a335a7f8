package dev.lacuna;

/**
 * How {@link Database#backup} made its copy.
 *
 * @param openElsewhere whether another process had the database open, so that the copy was made from its files
 *                      (else the database was opened and checkpointed)
 * @param copies        how many times the files were copied: more than 1 when the other process's flushes,
 *                      compactions or log trims left a copy without a file it needs, and it was made again
 */
public record BackupReport(boolean openElsewhere, int copies) {
}
