package dev.lacuna.engine;

import dev.lacuna.ValidationException;
import dev.lacuna.lsm.KvLogReader;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.zip.CRC32;

/**
 * A position in one shard of a stream, as the opaque iterator string the Streams API hands out. Stateless: the
 * string carries everything (the engine keeps nothing per iterator), so it outlives a restart.
 *
 * <pre>
 *   "L2" base64url( table id: int | label ms: long | partition: int | lsn: long | after index: int
 *                   | log segment: long | offset: long | issued ms: long
 *                   | table name length: short | table name: UTF-8 | CRC32 of all before: int )
 * </pre>
 *
 * {@code issued} is when the iterator was handed out, by the database's clock: it expires
 * {@link dev.lacuna.Database#SHARD_ITERATOR_LIFETIME} later, as DynamoDB's do. Version L1 (before iterators carried
 * it) is refused as expired: its age is unknown, and the remedy for both is the same (a new iterator).
 *
 * The position is "every record of the shard whose sequence number is above ({@code lsn}, {@code afterIndex})":
 * {@code afterIndex} -1 means log record {@code lsn} has not been read at all. {@code segment} and {@code offset}
 * say where log record {@code lsn} starts in the log, if known (else -1): a hint, so that the next read need not
 * read the log segment from its start ({@link dev.lacuna.lsm.LsmStore#logReader(long, KvLogReader.Position)}). The CRC tells a mangled string
 * from a real one (it is not a signature: an iterator names nothing a caller could not read anyway).
 */
record ShardIterator(String table, int tableId, long labelMillis, int partition, long lsn, int afterIndex,
                     long segment, long offset, long issuedMillis) {
    private static final String VERSION = "L2";
    private static final String OLD_VERSION = "L1";
    /** {@link #issuedMillis} of an iterator of a version that did not carry it. */
    static final long UNKNOWN_ISSUE = Long.MIN_VALUE;

    /** The iterator string. */
    String encode() {
        byte[] name = table.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(4 + 8 + 4 + 8 + 4 + 8 + 8 + 8 + 2 + name.length + 4);
        b.putInt(tableId).putLong(labelMillis).putInt(partition).putLong(lsn).putInt(afterIndex).putLong(segment)
                .putLong(offset).putLong(issuedMillis).putShort((short) name.length).put(name);
        CRC32 crc = new CRC32();
        crc.update(b.array(), 0, b.position());
        b.putInt((int) crc.getValue());
        return VERSION + Base64.getUrlEncoder().withoutPadding().encodeToString(b.array());
    }

    /**
     * The position {@code iterator} encodes.
     *
     * @throws ValidationException if it is not an iterator this encoding made (DynamoDB's "Invalid ShardIterator")
     */
    static ShardIterator decode(String iterator) {
        boolean old = iterator != null && iterator.startsWith(OLD_VERSION);
        if (iterator == null || !(old || iterator.startsWith(VERSION)) || iterator.length() > 2048) {
            throw invalid();
        }
        try {
            ByteBuffer b = ByteBuffer.wrap(Base64.getUrlDecoder().decode(iterator.substring(VERSION.length())));
            int tableId = b.getInt();
            long label = b.getLong();
            int partition = b.getInt();
            long lsn = b.getLong();
            int after = b.getInt();
            long segment = b.getLong();
            long offset = b.getLong();
            long issued = old ? UNKNOWN_ISSUE : b.getLong();
            byte[] name = new byte[b.getShort() & 0xFFFF];
            b.get(name);
            CRC32 crc = new CRC32();
            crc.update(b.array(), 0, b.position());
            if (b.getInt() != (int) crc.getValue() || b.hasRemaining() || partition < 0 || lsn < 0 || after < -1
                    || segment < -1 || offset < -1) {
                throw invalid();
            }
            String table = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(name)).toString();
            return new ShardIterator(table, tableId, label, partition, lsn, after, segment, offset, issued);
        } catch (IllegalArgumentException | BufferUnderflowException | CharacterCodingException e) {
            throw invalid();
        }
    }

    private static ValidationException invalid() {
        return new ValidationException("Invalid ShardIterator");
    }

    /** The same shard at another position, where the log is not known. */
    ShardIterator at(long newLsn, int newAfterIndex) {
        return at(newLsn, newAfterIndex, null);
    }

    /** The same shard at another position, log record {@code newLsn} starting at {@code where} (or null if unknown). */
    ShardIterator at(long newLsn, int newAfterIndex, KvLogReader.Position where) {
        return new ShardIterator(table, tableId, labelMillis, partition, newLsn, newAfterIndex,
                where == null ? -1 : where.segment(), where == null ? -1 : where.offset(), issuedMillis);
    }

    /** The same position, handed out at {@code nowMillis}. */
    ShardIterator issuedAt(long nowMillis) {
        return new ShardIterator(table, tableId, labelMillis, partition, lsn, afterIndex, segment, offset, nowMillis);
    }

    /** Where log record {@link #lsn()} starts, or null if the iterator does not know. */
    KvLogReader.Position where() {
        return segment < 0 ? null : new KvLogReader.Position(segment, offset);
    }
}
