package dev.lacuna.inspect;

import dev.lacuna.base.InternalKey;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.lsm.BatchCodec;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.NioVfs;
import dev.lacuna.vfs.VfsFile;
import dev.lacuna.wal.SegmentScanner;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One write-ahead log segment, record by record ({@code ldb dump_wal}): each record's place in the file, LSN and
 * size, checked as recovery checks it (fragment checksums, framing, consecutive LSNs), and its key/value batch
 * decoded. Reading stops at the first damage, a {@link CorruptionException} naming the file and offset. Not
 * thread-safe; close it when done.
 */
public final class WalDump implements AutoCloseable {
    /**
     * One operation of a record's batch.
     *
     * @param kind        {@code put}, {@code delete}, {@code single-delete} or {@code log-only}
     * @param key         the key, printable ({@link Printable#key})
     * @param value       the value, printable ({@link Printable#value}); empty for deletes
     * @param valueLength the value's size in bytes
     */
    public record Op(String kind, String key, String value, int valueLength) {
    }

    /**
     * One record.
     *
     * @param offset  where its first fragment starts in the file
     * @param length  its bytes in the file, fragment headers and block padding inside it included
     * @param lsn     its LSN (the sequence number of its writes)
     * @param payload its payload's size in bytes
     * @param ops     its batch's operations, in order
     * @param writeTimeMillis when it was written (epoch milliseconds; 0 for a version 1 record, which has none)
     * @param flags   its batch's flags (bit 0: a delete made by the store's time to live)
     */
    public record Record(long offset, long length, long lsn, int payload, List<Op> ops, long writeTimeMillis,
                         int flags) {
    }

    private final VfsFile file;
    private final String name;
    private final SegmentScanner scanner;

    private WalDump(VfsFile file, String name, SegmentScanner scanner) {
        this.file = file;
        this.name = name;
        this.scanner = scanner;
    }

    /**
     * Opens segment file {@code path} and checks its header.
     *
     * @throws CorruptionException if the header is damaged or the file too short for one
     * @throws StorageIOException  if the file cannot be read
     */
    public static WalDump open(Path path) {
        VfsFile file = null;
        try {
            file = new NioVfs().openReadOnly(path);
            return new WalDump(file, path.toString(), SegmentScanner.open(file, path));
        } catch (IOException e) {
            closeQuietly(file);
            throw new StorageIOException("cannot read " + path + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeQuietly(file);
            throw e;
        }
    }

    /** The segment's format version (1 or 2). */
    public int version() {
        return scanner.version();
    }

    /** The segment's number. */
    public long segment() {
        return scanner.segment();
    }

    /** The block size its records are framed in. */
    public int blockSize() {
        return scanner.blockSize();
    }

    /** The LSN of its first record. */
    public long firstLsn() {
        return scanner.firstLsn();
    }

    /** The file's size. */
    public long size() {
        return scanner.size();
    }

    /**
     * The next record, or null at the end ({@link #end()}).
     *
     * @throws CorruptionException naming the file and offset at the first damage: framing, checksum, LSN, or a
     *                             payload that is no key/value batch
     */
    public Record next() {
        SegmentScanner.Record r;
        try {
            r = scanner.next();
        } catch (IOException e) {
            throw new StorageIOException("cannot read " + name + ": " + e.getMessage(), e);
        }
        if (r == null) {
            return null;
        }
        BatchCodec.Decoded decoded;
        try {
            decoded = BatchCodec.decode(r.payload(), name);
        } catch (CorruptionException e) {
            throw new CorruptionException(name, r.offset(), "record with LSN " + r.lsn()
                    + " holds no valid key/value batch: " + e.detail() + " at byte " + e.offset() + " of its payload");
        }
        List<Op> out = new ArrayList<>(decoded.ops().size());
        for (WriteBatch.Op op : decoded.ops()) {
            out.add(new Op(kind(op.kind()), Printable.key(op.key()),
                    op.value().length == 0 ? "" : Printable.value(op.value()), op.value().length));
        }
        return new Record(r.offset(), r.end() - r.offset(), r.lsn(), r.payload().length, List.copyOf(out),
                decoded.writeTimeMillis(), decoded.flags());
    }

    /**
     * How the records ended, once {@link #next()} returned null: {@code sealed at offset N} (closed there),
     * {@code zero fill at offset N} (still being written when the log stopped), {@code end of file}.
     */
    public String end() {
        SegmentScanner.End end = scanner.end();
        if (end == null) {
            return null;
        }
        return switch (end) {
            case SEALED -> "sealed at offset " + scanner.validEnd();
            case ZERO_FILL -> "zero fill from offset " + scanner.validEnd() + " (not sealed: the log was open)";
            case END_OF_FILE -> "end of file at offset " + scanner.validEnd() + " (not sealed)";
        };
    }

    private static String kind(int kind) {
        return switch (kind) {
            case InternalKey.KIND_PUT -> "put";
            case InternalKey.KIND_DELETE -> "delete";
            case InternalKey.KIND_SINGLE_DELETE -> "single-delete";
            case WriteBatch.KIND_LOG_ONLY -> "log-only";
            default -> "kind " + kind;
        };
    }

    @Override
    public void close() {
        closeQuietly(file);
    }

    static void closeQuietly(AutoCloseable c) {
        if (c != null) {
            try {
                c.close();
            } catch (Exception ignored) {
                // read-only: nothing to lose
            }
        }
    }
}
