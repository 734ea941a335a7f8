package dev.lacuna.lsm;

import dev.lacuna.base.BoundedReader;
import dev.lacuna.base.ByteBuilder;
import dev.lacuna.base.InternalKey;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.CorruptionException;
import java.util.ArrayList;
import java.util.List;

/**
 * The payload of a key/value write in the log: {@code type u8 (1) | count varint | op*}, each op
 * {@code kind u8 | keyLength varint | key | [valueLength varint | value]}, the value only for kinds 1 (put)
 * and 3 (log-only). Decoding refuses an unknown type or kind, lengths past the end and bytes left over.
 * See this package's FORMAT.md ("Log record: key/value batch").
 */
public final class BatchCodec {
    static final int TYPE_KV_BATCH = 1;

    private BatchCodec() {
    }

    static byte[] encode(List<WriteBatch.Op> ops) {
        ByteBuilder out = new ByteBuilder(64);
        out.putByte(TYPE_KV_BATCH);
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
     * Decodes a log record's payload.
     *
     * @param where names the record (log file or LSN) for errors
     * @throws CorruptionException naming {@code where} and the position in the payload if it is not a batch
     */
    public static List<WriteBatch.Op> decode(byte[] b, String where) {
        if (b.length == 0 || b[0] != TYPE_KV_BATCH) {
            throw new CorruptionException(where, 0, "log record is not a key/value batch");
        }
        PayloadReader in = new PayloadReader(b, where);
        // an operation is at least a kind and a key length
        int count = in.length("operation count", 2);
        List<WriteBatch.Op> ops = new ArrayList<>(Math.min(count, 1024));
        for (int i = 0; i < count; i++) {
            if (in.atEnd()) {
                throw in.malformed(in.position(), "batch ends early");
            }
            int kind = in.u8();
            if (kind > WriteBatch.KIND_LOG_ONLY) {
                throw in.malformed(in.position() - 1, "bad operation kind " + kind);
            }
            byte[] key = in.lengthPrefixed("key length");
            byte[] value = hasValue(kind) ? in.lengthPrefixed("value length") : new byte[0];
            ops.add(new WriteBatch.Op(kind, key, value));
        }
        if (!in.atEnd()) {
            throw in.malformed(in.position(), "trailing bytes after batch");
        }
        return ops;
    }

    private static boolean hasValue(int kind) {
        return kind == InternalKey.KIND_PUT || kind == WriteBatch.KIND_LOG_ONLY;
    }

    /** The payload after its type byte; a damaged one names the record and the position in it. */
    private static final class PayloadReader extends BoundedReader {
        private final String where;

        PayloadReader(byte[] b, String where) {
            super(b, 1, b.length, false);
            this.where = where;
        }

        @Override
        protected CorruptionException malformed(int at, String detail) {
            return new CorruptionException(where, at, detail);
        }
    }
}
