package dev.lacuna.wal;

/**
 * One record of the log.
 *
 * @param lsn     its log sequence number: records are numbered 1, 2, 3, … with no gaps
 * @param payload the bytes given to {@link Wal#append}; owned by the receiver
 */
public record WalRecord(long lsn, byte[] payload) {
}
