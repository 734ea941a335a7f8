package dev.lacuna.wal;

import static dev.lacuna.wal.WalFormat.FRAGMENT_HEADER_SIZE;
import static dev.lacuna.wal.WalFormat.HEADER_SIZE;
import static dev.lacuna.wal.WalFormat.LSN_SIZE;

import dev.lacuna.storage.CorruptionException;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Decodes the records of one segment, in order, up to a limit the caller chooses (the file's size for a
 * sealed segment, the published write position for the live one). Every check a reader can make is made:
 * fragment checksum, type sequence, lengths within the block, the segment number in each fragment, and
 * consecutive LSNs. Damage is a {@link CorruptionException} naming the file and the fragment's offset;
 * {@link #validEnd()} then tells where the last good record ended. A seal (version 2) ends the records: no
 * record may follow it. Not thread-safe.
 */
final class SegmentReader {
    /** Outcome of {@link #next(long)} when no record is returned. */
    enum End {
        /** The limit was reached exactly at a record boundary. */
        LIMIT,
        /** A zero-filled fragment header: the end of what the writer wrote (preallocated space follows). */
        ZERO_FILL,
        /** The segment's seal: it was closed here ({@link #sealEnd()} tells where the seal ends). */
        SEALED
    }

    private final VfsFile file;
    private final boolean sealable;
    private final long segment;
    private final int blockSize;
    /**
     * Most bytes read at once: many blocks, so that reading a segment through costs few system calls. A reader starts
     * with one block and doubles its reads while it goes on, so that one that reads a few records (a reader started
     * at a hint) reads little more than their blocks.
     */
    static final int MAX_READ_SIZE = 256 * 1024;
    /** What {@link #skip} returns for a record it checked without copying its payload. */
    private static final WalRecord CHECKED = new WalRecord(0, new byte[0]);

    private final CRC32C crc = new CRC32C();
    /** File bytes {@code [blockStart, blockStart + blockLength)}, starting at a block boundary; grows as reads do. */
    private byte[] block;
    /** Bytes the next read asks for, from one block to {@link #MAX_READ_SIZE}. */
    private int readSize;
    private long blockStart = -1;
    private int blockLength;
    /** False while {@link #skip} runs: records are checked, their payloads not copied. */
    private boolean copyPayloads = true;
    /**
     * Where a record of many fragments is assembled, kept for the next one up to {@link #KEPT_BODY} bytes while
     * records are lent ({@link #skip}): an array per such record was garbage three times its size (growing from its
     * first fragment's length). Not kept once a record is copied out: a tailing reader lives as long as its segment
     * and would hold the largest record it read (found by a review).
     */
    private byte[] bodies;
    private static final int KEPT_BODY = 1 << 20;
    /** The last record {@link #skip} read: its LSN and where its payload lies (see {@link #lend}); null: none. */
    private long lentLsn;
    private byte[] lentBytes;
    private int lentFrom;
    private int lentLength;

    private long position;
    private long expectedLsn;
    private End end;
    private long sealEnd = -1;
    /** Most body bytes (LSN and payload) a record may have; a longer one is damage, not assembled further. */
    private final long maxBody;

    /**
     * @param file   the segment
     * @param header its header, already read and validated
     */
    SegmentReader(VfsFile file, SegmentHeader header) {
        this(file, header, WalFormat.MAX_PAYLOAD);
    }

    /** As {@link #SegmentReader(VfsFile, SegmentHeader)}, with the largest payload a record may carry. */
    SegmentReader(VfsFile file, SegmentHeader header, int maxPayload) {
        this.maxBody = LSN_SIZE + (long) maxPayload;
        this.file = file;
        this.sealable = header.sealable();
        this.segment = header.segment();
        this.blockSize = header.blockSize();
        this.block = new byte[blockSize];
        this.readSize = blockSize;
        this.position = HEADER_SIZE;
        this.expectedLsn = header.firstLsn();
    }

    /**
     * Goes on from {@code offset}, which must be where the record with LSN {@code lsn} starts (a {@link #validEnd()}
     * an earlier reader of this segment reported); if it is not, the next {@link #next} finds no valid record there
     * (a {@link CorruptionException}, or the end) rather than a wrong one, since it checks the fragments and the LSN.
     */
    void seek(long offset, long lsn) {
        if (offset < HEADER_SIZE) {
            throw new IllegalArgumentException("offset " + offset + " is inside the segment header");
        }
        position = offset;
        expectedLsn = lsn;
        end = null;
        readSize = blockSize;
    }

    /** Offset just past the last record returned (the header's end before the first). */
    long validEnd() {
        return position;
    }

    /** LSN the next record must carry. */
    long expectedLsn() {
        return expectedLsn;
    }

    /** Why the last {@link #next} returned null. */
    End end() {
        return end;
    }

    /** Offset just past the seal, once {@link #next} has returned null with {@link End#SEALED}; else -1. */
    long sealEnd() {
        return sealEnd;
    }

    /**
     * Like {@link #next}, for a reader that only checks the records (recovery): the payload is not copied out, only
     * lent ({@link #lend}).
     *
     * @return whether a record was read (else see {@link #end()})
     */
    boolean skip(long limit) throws IOException {
        copyPayloads = false;
        try {
            return next(limit) != null;
        } finally {
            copyPayloads = true;
        }
    }

    /**
     * Lends the payload of the record the last {@link #skip} read to {@code to}: it lies in this reader's memory,
     * which the next read reuses.
     */
    void lend(LentRecords to) {
        if (lentBytes == null) {
            throw new IllegalStateException("no record read to lend");
        }
        to.accept(lentLsn, lentBytes, lentFrom, lentLength);
    }

    /**
     * Reads the next record ending at or before {@code limit}.
     *
     * @return the record, or null at the end (see {@link #end()})
     * @throws CorruptionException if the bytes at the current position are not a valid record
     */
    WalRecord next(long limit) throws IOException {
        lentBytes = null; // what the last skip lent may be overwritten from here on
        long pos = position;
        byte[] body = null;
        int bodyLength = 0;
        boolean inRecord = false;
        while (true) {
            int blockLeft = (int) (blockSize - pos % blockSize);
            if (blockLeft < FRAGMENT_HEADER_SIZE) {
                if (pos + blockLeft > limit) {
                    if (!inRecord && pos >= limit) {
                        end = End.LIMIT;
                        return null;
                    }
                    throw corrupt(pos, "truncated block padding");
                }
                int at = load(pos, blockLeft, limit);
                for (int i = 0; i < blockLeft; i++) {
                    if (block[at + i] != 0) {
                        throw corrupt(pos + i, "non-zero block padding");
                    }
                }
                pos += blockLeft;
                continue;
            }
            if (pos >= limit && !inRecord) {
                end = End.LIMIT;
                return null;
            }
            if (pos + FRAGMENT_HEADER_SIZE > limit) {
                throw corrupt(pos, "truncated fragment header");
            }
            int at = load(pos, FRAGMENT_HEADER_SIZE, limit);
            int storedCrc = WalFormat.getInt(block, at + WalFormat.FRAGMENT_CRC_OFFSET);
            int length = WalFormat.getUnsignedShort(block, at + WalFormat.FRAGMENT_LENGTH_OFFSET);
            byte type = block[at + WalFormat.FRAGMENT_TYPE_OFFSET];
            int fragmentSegment = WalFormat.getInt(block, at + WalFormat.FRAGMENT_SEGMENT_OFFSET);
            if (type == WalFormat.ZERO && storedCrc == 0 && length == 0 && fragmentSegment == 0) {
                if (inRecord) {
                    throw corrupt(pos, "record ends in zero fill");
                }
                end = End.ZERO_FILL;
                return null;
            }
            boolean seal = type == WalFormat.SEAL && sealable;
            if ((type < WalFormat.FULL || type > WalFormat.LAST) && !seal) {
                throw corrupt(pos, "bad fragment type " + type);
            }
            if (length > blockLeft - FRAGMENT_HEADER_SIZE) {
                throw corrupt(pos, "fragment of " + length + " bytes overruns its block");
            }
            if (pos + FRAGMENT_HEADER_SIZE + length > limit) {
                throw corrupt(pos, "truncated fragment");
            }
            at = load(pos, FRAGMENT_HEADER_SIZE + length, limit);
            crc.reset();
            crc.update(block, at + WalFormat.FRAGMENT_TYPE_OFFSET, FRAGMENT_HEADER_SIZE - WalFormat.FRAGMENT_TYPE_OFFSET + length);
            if ((int) crc.getValue() != storedCrc) {
                throw corrupt(pos, "fragment checksum mismatch");
            }
            if (fragmentSegment != (int) segment) {
                throw corrupt(pos, "fragment belongs to segment " + Integer.toUnsignedString(fragmentSegment)
                        + ", not " + segment + " (stale data)");
            }
            if (seal) {
                if (length != 0 || inRecord) {
                    throw corrupt(pos, length != 0 ? "seal of " + length + " bytes" : "record interrupted by the seal");
                }
                end = End.SEALED;
                sealEnd = pos + FRAGMENT_HEADER_SIZE;
                return null;
            }
            boolean starts = type == WalFormat.FULL || type == WalFormat.FIRST;
            if (starts == inRecord) {
                throw corrupt(pos, inRecord ? "record interrupted by a new record" : "fragment continues no record");
            }
            // Checked at every fragment, not only when the body grows: growth doubles, so a record could otherwise
            // run to twice the limit between two checks.
            if ((long) bodyLength + length > maxBody) {
                throw corrupt(pos, "record longer than the largest payload");
            }
            if (type == WalFormat.FULL) {
                // The whole record in one fragment: straight from the buffer, without assembling a body first.
                pos += FRAGMENT_HEADER_SIZE + length;
                return finish(block, at + FRAGMENT_HEADER_SIZE, length, pos);
            }
            if (body == null) {
                body = bodies != null && bodies.length >= length ? bodies : new byte[Math.max(length, 64)];
            } else if (bodyLength + length > body.length) {
                body = Arrays.copyOf(body, (int) Math.min(maxBody, Math.max(body.length * 2L, bodyLength + length)));
            }
            System.arraycopy(block, at + FRAGMENT_HEADER_SIZE, body, bodyLength, length);
            bodyLength += length;
            pos += FRAGMENT_HEADER_SIZE + length;
            inRecord = true;
            if (type == WalFormat.LAST) {
                // Lent by finish, and not needed once the next record is read; copied out by it, not kept at all.
                bodies = !copyPayloads && body.length <= KEPT_BODY ? body : null;
                return finish(body, 0, bodyLength, pos);
            }
        }
    }

    /** The record whose body is {@code body[from, from + bodyLength)}, checked. */
    private WalRecord finish(byte[] body, int from, int bodyLength, long endPos) {
        if (bodyLength < LSN_SIZE) {
            throw corrupt(position, "record of " + bodyLength + " bytes has no LSN");
        }
        long lsn = WalFormat.getLong(body, from);
        if (lsn != expectedLsn) {
            throw corrupt(position, "record has LSN " + lsn + ", expected " + expectedLsn);
        }
        expectedLsn++;
        position = endPos;
        end = null;
        if (copyPayloads) {
            return new WalRecord(lsn, Arrays.copyOfRange(body, from + LSN_SIZE, from + bodyLength));
        }
        lentLsn = lsn;
        lentBytes = body;
        lentFrom = from + LSN_SIZE;
        lentLength = bodyLength - LSN_SIZE;
        return CHECKED;
    }

    /**
     * Makes {@code [pos, pos + length)} (which lies within one block and below {@code limit}) available in
     * {@link #block}. Only bytes below the limit are cached: past it, the live segment may still change.
     *
     * @return the index of {@code pos} in {@link #block}
     */
    private int load(long pos, int length, long limit) throws IOException {
        if (blockStart < 0 || pos < blockStart || pos + length > blockStart + blockLength) {
            long start = pos - pos % blockSize;
            int want = (int) Math.min(readSize, limit - start);
            if (block.length < want) {
                block = new byte[readSize]; // (a reader following the log's end wants about a block: no growth)
            }
            ByteBuffer buffer = ByteBuffer.wrap(block, 0, want);
            readSize = Math.min(Math.max(blockSize, MAX_READ_SIZE / blockSize * blockSize), readSize * 2);
            while (buffer.hasRemaining()) {
                int n = file.read(buffer, start + buffer.position());
                if (n < 0) {
                    break;
                }
            }
            blockStart = start;
            blockLength = buffer.position();
            if (pos + length > start + blockLength) {
                throw corrupt(pos, "file ends inside a fragment");
            }
        }
        return (int) (pos - blockStart);
    }

    private CorruptionException corrupt(long offset, String detail) {
        return new CorruptionException(file.name(), offset, "write-ahead log: " + detail);
    }
}
