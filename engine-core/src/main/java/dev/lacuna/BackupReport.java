package dev.lacuna;

/**
 * How {@link Database#backup} made its copy.
 *
 * @param copies how many times the files were copied: more than 1 when a process writing the database (flushes,
 *               compactions, log trims, tables created) left a copy without what it needs, and it was made again
 */
public record BackupReport(int copies) {
}
