package dev.lacuna.lsm;

import dev.lacuna.base.InternalKey;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.CorruptionException;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The payload of a key/value write in the log: {@code type u8 (1) | count varint | op*}, each op
 * {@code kind u8 | keyLength varint | key | valueLength varint | value} (value only for puts). See the
 * engine's FORMAT.md.
 */
final class BatchCodec {
    static final int TYPE_KV_BATCH = 1;

    private BatchCodec() {
    }

    static byte[] encode(List<WriteBatch.Op> ops) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        out.write(TYPE_KV_BATCH);
        putVarint(out, ops.size());
        for (WriteBatch.Op op : ops) {
            out.write(op.kind());
            putVarint(out, op.key().length);
            out.writeBytes(op.key());
            if (hasValue(op.kind())) {
                putVarint(out, op.value().length);
                out.writeBytes(op.value());
            }
        }
        return out.toByteArray();
    }

    /**
     * Decodes a log record's payload.
     *
     * @param where names the record (log file or LSN) for errors
     */
    static List<WriteBatch.Op> decode(byte[] b, String where) {
        int[] pos = {0};
        if (b.length == 0 || b[0] != TYPE_KV_BATCH) {
            throw new CorruptionException(where, 0, "log record is not a key/value batch");
        }
        pos[0] = 1;
        int count = (int) varint(b, pos, b.length, where);
        List<WriteBatch.Op> ops = new ArrayList<>(Math.min(count, 1024));
        for (int i = 0; i < count; i++) {
            if (pos[0] >= b.length) {
                throw new CorruptionException(where, pos[0], "batch ends early");
            }
            int kind = b[pos[0]++] & 0xFF;
            if (kind > WriteBatch.KIND_LOG_ONLY) {
                throw new CorruptionException(where, pos[0] - 1, "bad operation kind " + kind);
            }
            byte[] key = bytes(b, pos, where);
            byte[] value = hasValue(kind) ? bytes(b, pos, where) : new byte[0];
            ops.add(new WriteBatch.Op(kind, key, value));
        }
        if (pos[0] != b.length) {
            throw new CorruptionException(where, pos[0], "trailing bytes after batch");
        }
        return ops;
    }

    private static boolean hasValue(int kind) {
        return kind == InternalKey.KIND_PUT || kind == WriteBatch.KIND_LOG_ONLY;
    }

    private static byte[] bytes(byte[] b, int[] pos, String where) {
        int n = (int) varint(b, pos, b.length - pos[0], where);
        byte[] out = Arrays.copyOfRange(b, pos[0], pos[0] + n);
        pos[0] += n;
        return out;
    }

    private static void putVarint(ByteArrayOutputStream out, long v) {
        while ((v & ~0x7FL) != 0) {
            out.write((int) (v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.write((int) v);
    }

    private static long varint(byte[] b, int[] pos, long max, String where) {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (pos[0] >= b.length) {
                throw new CorruptionException(where, pos[0], "truncated varint");
            }
            int x = b[pos[0]++] & 0xFF;
            v |= (long) (x & 0x7F) << shift;
            if ((x & 0x80) == 0) {
                if (v < 0 || v > max) {
                    throw new CorruptionException(where, pos[0], "length " + v + " out of range");
                }
                return v;
            }
        }
        throw new CorruptionException(where, pos[0], "varint too long");
    }
}
