package dev.lacuna.wal;

/**
 * Receives the records recovery checks ({@link Wal#open(dev.lacuna.vfs.Vfs, java.nio.file.Path,
 * dev.lacuna.storage.WalOptions, Wal.Coverage, long, java.util.function.LongConsumer, LentRecords)}), each one's
 * payload lent for the call only: recovery reads the next record into the same memory once the call returns, so a
 * receiver that keeps a payload copies it. An owner that replays a log into memory of its own copies each payload
 * once, where a {@link WalRecord} per record was an array per record for the collector (a third of what an open
 * allocated).
 */
@FunctionalInterface
public interface LentRecords {
    /**
     * One record, in LSN order.
     *
     * @param lsn    its log sequence number
     * @param bytes  holds its payload, {@code bytes[from, from + length)}; the rest of it, and the payload once this
     *               returns, are not the receiver's to read
     * @param from   where the payload starts in {@code bytes}
     * @param length the payload's length
     */
    void accept(long lsn, byte[] bytes, int from, int length);
}
