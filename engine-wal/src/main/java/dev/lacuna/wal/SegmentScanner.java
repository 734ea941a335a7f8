package dev.lacuna.wal;

import dev.lacuna.storage.CorruptionException;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Reads one segment file on its own, front to back, with every check recovery makes ({@link SegmentReader}),
 * and says where each record lies: what {@code lacuna inspect wal} prints (RocksDB's {@code ldb dump_wal}). It
 * reads the file as it is, never changes it, and needs no log around it. Not thread-safe.
 */
public final class SegmentScanner {
    /**
     * One record.
     *
     * @param offset  where its first fragment starts in the file
     * @param end     just past its last fragment
     * @param lsn     its LSN
     * @param payload what was appended
     */
    public record Record(long offset, long end, long lsn, byte[] payload) {
    }

    /** How the records ended. */
    public enum End {
        /** At the segment's seal: it was closed there. */
        SEALED,
        /** At zero fill: the segment was still being written (or a version 1 segment was cut there). */
        ZERO_FILL,
        /** At the end of the file, on a record boundary. */
        END_OF_FILE
    }

    private final VfsFile file;
    private final SegmentHeader header;
    private final SegmentReader reader;
    private final long size;
    private End end;

    private SegmentScanner(VfsFile file, SegmentHeader header, long size) {
        this.file = file;
        this.header = header;
        this.reader = new SegmentReader(file, header);
        this.size = size;
    }

    /**
     * Reads and checks the header of segment file {@code file}, named {@code path}.
     *
     * @param file the segment, open for reading; still the caller's to close
     * @param path its path: if its name is a segment's ({@code 0000000000000007.wal}), the header must name that
     *             segment, as recovery requires; otherwise the header's own number is taken
     * @throws CorruptionException if the file is shorter than a header or the header is damaged
     */
    public static SegmentScanner open(VfsFile file, Path path) throws IOException {
        long size = file.size();
        Path fileName = path.getFileName();
        long segment = fileName == null ? -1 : WalFormat.parseSegmentName(fileName.toString());
        if (size >= WalFormat.HEADER_SIZE && segment < 0) {
            byte[] h = new byte[WalFormat.HEADER_SIZE];
            file.readFully(0, h, 0, h.length);
            segment = WalFormat.getLong(h, WalFormat.SEGMENT_OFFSET);
        }
        SegmentHeader header = SegmentHeader.read(file, segment);
        if (header == null) {
            throw new CorruptionException(file.name(), 0, "write-ahead log: file of " + size
                    + " bytes is shorter than a segment header (" + WalFormat.HEADER_SIZE + " bytes)");
        }
        return new SegmentScanner(file, header, size);
    }

    /** The segment's format version. */
    public int version() {
        return header.version();
    }

    /** The segment's number. */
    public long segment() {
        return header.segment();
    }

    /** The block size its records are framed in. */
    public int blockSize() {
        return header.blockSize();
    }

    /** The LSN its first record carries. */
    public long firstLsn() {
        return header.firstLsn();
    }

    /** The file's size in bytes. */
    public long size() {
        return size;
    }

    /**
     * The next record, or null when the records end ({@link #end()} says how).
     *
     * @throws CorruptionException naming the file and offset if the bytes there are not a valid record
     */
    public Record next() throws IOException {
        long start = reader.validEnd();
        int blockLeft = (int) (header.blockSize() - start % header.blockSize());
        if (blockLeft < WalFormat.FRAGMENT_HEADER_SIZE) {
            start += blockLeft; // the padding at a block's end: the record starts in the next block
        }
        WalRecord record = reader.next(size);
        if (record == null) {
            end = switch (reader.end()) {
                case SEALED -> End.SEALED;
                case ZERO_FILL -> End.ZERO_FILL;
                case LIMIT -> End.END_OF_FILE;
            };
            return null;
        }
        return new Record(start, reader.validEnd(), record.lsn(), record.payload());
    }

    /** How the records ended, once {@link #next()} returned null; else null. */
    public End end() {
        return end;
    }

    /** Just past the seal once the records ended at one ({@link End#SEALED}), else -1. */
    public long sealEnd() {
        return reader.sealEnd();
    }

    /** Just past the last record read (the header's end before the first). */
    public long validEnd() {
        return reader.validEnd();
    }

    @Override
    public String toString() {
        return "SegmentScanner[" + file.name() + "]";
    }
}
