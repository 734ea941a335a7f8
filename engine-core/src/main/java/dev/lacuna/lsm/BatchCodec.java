package dev.lacuna.lsm;

import dev.lacuna.base.BoundedReader;
import dev.lacuna.base.ByteBuilder;
import dev.lacuna.base.InternalKey;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.CorruptionException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The payload of a key/value write in the log (version 2): {@code type u8 (2) | writeTime varint64 |
 * flags u8 | count varint | op*}, each op {@code kind u8 | keyLength varint | key | [valueLength varint |
 * value]}, the value only for kinds 1 (put) and 3 (log-only). Version 1 ({@code type u8 (1) | count | op*},
 * no write time, no flags) is still read, as written at time 0 with no flags. Decoding refuses an unknown
 * type, kind or flag, lengths past the end and bytes left over. See this package's FORMAT.md ("Log record:
 * key/value batch").
 */
public final class BatchCodec {
    /** Version 1: no write time and no flags. Read, never written. */
    static final int TYPE_KV_BATCH_V1 = 1;
    /** Version 2, written: the write time (epoch milliseconds, from the store's clock) and flags. */
    static final int TYPE_KV_BATCH = 2;

    private BatchCodec() {
    }

    /** A decoded payload: its operations, write time (epoch ms; 0 in version 1) and flags. */
    public record Decoded(List<WriteBatch.Op> ops, long writeTimeMillis, int flags) {
    }

    static byte[] encode(List<WriteBatch.Op> ops, long writeTimeMillis, int flags) {
        if ((flags & ~WriteBatch.KNOWN_FLAGS) != 0) {
            throw new IllegalArgumentException("unknown batch flags " + flags);
        }
        ByteBuilder out = new ByteBuilder(64);
        out.putByte(TYPE_KV_BATCH);
        out.putVarint64(Math.max(0, writeTimeMillis));
        out.putByte(flags);
        out.putVarint32(ops.size());
        for (WriteBatch.Op op : ops) {
            out.putByte(op.kind());
            out.putLengthPrefixed(op.key());
            if (hasValue(op.kind())) {
                out.putLengthPrefixed(op.value());
            }
        }
        return out.toByteArray();
    }

    /**
     * Receives a payload's operations as {@link #decode(byte[], String, OpSink)} reads them: the key copied (it is
     * routed by the user's keyspace router and key prefix, which take arrays), the value left in the payload.
     */
    interface OpSink {
        /**
         * The payload's write time (epoch ms; 0 in version 1) and flags, read before its operations. Recovery has no
         * use for them: an object to return them in was a twentieth of what it allocated.
         */
        default void header(long writeTimeMillis, int flags) {
        }

        /**
         * One operation, in payload order.
         *
         * @param kind        its kind ({@link WriteBatch.Op#kind()})
         * @param key         its key, an array of its own
         * @param payload     the payload, which holds the value
         * @param valueAt     where the value starts in {@code payload}
         * @param valueLength the value's length (0 for a kind without a value)
         */
        void op(int kind, byte[] key, byte[] payload, int valueAt, int valueLength);
    }

    /**
     * Decodes a log record's payload.
     *
     * @param where names the record (log file or LSN) for errors
     * @throws CorruptionException naming {@code where} and the position in the payload if it is not a batch
     */
    public static Decoded decode(byte[] b, String where) {
        Collector collected = new Collector();
        decode(b, where, collected);
        return new Decoded(collected.ops, collected.writeTimeMillis, collected.flags);
    }

    /** A payload's header and operations, each value copied out. */
    private static final class Collector implements OpSink {
        final List<WriteBatch.Op> ops = new ArrayList<>();
        long writeTimeMillis;
        int flags;

        @Override
        public void header(long writeTimeMillis, int flags) {
            this.writeTimeMillis = writeTimeMillis;
            this.flags = flags;
        }

        @Override
        public void op(int kind, byte[] key, byte[] payload, int valueAt, int valueLength) {
            ops.add(new WriteBatch.Op(kind, key, Arrays.copyOfRange(payload, valueAt, valueAt + valueLength)));
        }
    }

    /**
     * Reads a log record's payload, handing each operation to {@code sink} as it is read, without a list or an
     * operation object: recovery places every write straight from the payload into its memtable's memory. The
     * whole payload is checked as {@link #decode(byte[], String)} checks it, but operations read before a fault
     * found further on have been handed over already: a caller that keeps them must drop them when this throws.
     *
     * @throws CorruptionException naming {@code where} and the position in the payload if it is not a batch
     */
    static void decode(byte[] b, String where, OpSink sink) {
        decode(b, 0, b.length, where, sink);
    }

    /**
     * {@link #decode(byte[], String, OpSink)} of the payload {@code b[from, from + length)}; a damaged one's position
     * is told from {@code from}, as the payload's own. The values handed to {@code sink} lie in {@code b}.
     */
    private static void decode(byte[] b, int from, int length, String where, OpSink sink) {
        if (length == 0 || (b[from] != TYPE_KV_BATCH && b[from] != TYPE_KV_BATCH_V1)) {
            throw new CorruptionException(where, 0, "log record is not a key/value batch");
        }
        PayloadReader in = new PayloadReader(b, from, from + length, where);
        long writeTime = 0;
        int flags = 0;
        if (b[from] == TYPE_KV_BATCH) {
            if (in.atEnd()) {
                throw in.malformed(in.position(), "batch ends early");
            }
            writeTime = in.varint64();
            if (in.atEnd()) {
                throw in.malformed(in.position(), "batch ends early");
            }
            flags = in.u8();
            if ((flags & ~WriteBatch.KNOWN_FLAGS) != 0) {
                throw in.malformed(in.position() - 1, "unknown batch flags " + flags);
            }
        }
        sink.header(writeTime, flags);
        // an operation is at least a kind and a key length
        int count = in.length("operation count", 2);
        for (int i = 0; i < count; i++) {
            if (in.atEnd()) {
                throw in.malformed(in.position(), "batch ends early");
            }
            int kind = in.u8();
            if (kind > WriteBatch.KIND_LOG_ONLY) {
                throw in.malformed(in.position() - 1, "bad operation kind " + kind);
            }
            byte[] key = in.lengthPrefixed("key length");
            int valueLength = hasValue(kind) ? in.length("value length", 1) : 0;
            int valueAt = in.skip(valueLength);
            sink.op(kind, key, b, valueAt, valueLength);
        }
        if (!in.atEnd()) {
            throw in.malformed(in.position(), "trailing bytes after batch");
        }
    }

    /**
     * {@link #decode(byte[], String, OpSink)} of the log record {@code lsn}, whose payload is {@code b[from, from +
     * length)}, named {@code "log record <lsn>"} in an error; the name is built only then (recovery decodes every
     * record of the log, and building it each time cost a tenth of the decoding).
     */
    static void decodeLogRecord(byte[] b, int from, int length, long lsn, OpSink sink) {
        try {
            decode(b, from, length, "", sink);
        } catch (CorruptionException e) {
            throw new CorruptionException("log record " + lsn, e.offset(), e.detail());
        }
    }

    private static boolean hasValue(int kind) {
        return kind == InternalKey.KIND_PUT || kind == WriteBatch.KIND_LOG_ONLY;
    }

    /** The payload {@code b[from, end)} after its type byte; a damaged one names the record and the position in it. */
    private static final class PayloadReader extends BoundedReader {
        private final String where;
        private final int from;

        PayloadReader(byte[] b, int from, int end, String where) {
            super(b, from + 1, end, false);
            this.where = where;
            this.from = from;
        }

        @Override
        protected CorruptionException malformed(int at, String detail) {
            return new CorruptionException(where, at - from, detail);
        }
    }
}
