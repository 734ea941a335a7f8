package dev.lacuna.lsm;

import dev.lacuna.kv.WriteBatch;
import dev.lacuna.wal.WalReader;
import dev.lacuna.wal.WalRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the store's log in LSN order from a given LSN, following it as it grows ({@link LsmStore#logReader}).
 * Each record is one write batch. Not thread-safe: one consumer thread reads it.
 */
public final class KvLogReader implements AutoCloseable {
    /** What one logged operation did. */
    public enum Kind {
        /** Deleted the key. */ DELETE,
        /** Set the key. */ PUT,
        /** Single-deleted the key. */ SINGLE_DELETE,
        /** Logged beside the writes, not applied ({@link WriteBatch#logOnly}). */ LOG_ONLY
    }

    /** One logged operation. */
    public record Op(Kind kind, byte[] key, byte[] value) {
    }

    /** One log record: a write batch and its LSN (the sequence number of its writes). */
    public record Batch(long lsn, List<Op> ops) {
    }

    private final WalReader reader;
    private final String where;

    KvLogReader(WalReader reader, String where) {
        this.reader = reader;
        this.where = where;
    }

    /** The next record, or null if the log holds no more yet. */
    public Batch next() {
        return decode(reader.next());
    }

    /** The next record, waiting up to {@code timeout} for one to be logged; null if none came. */
    public Batch next(Duration timeout) throws InterruptedException {
        return decode(reader.next(timeout));
    }

    private Batch decode(WalRecord r) {
        if (r == null) {
            return null;
        }
        List<Op> ops = new ArrayList<>();
        for (WriteBatch.Op op : BatchCodec.decode(r.payload(), where + " LSN " + r.lsn())) {
            ops.add(new Op(Kind.values()[op.kind()], op.key(), op.value()));
        }
        return new Batch(r.lsn(), ops);
    }

    @Override
    public void close() {
        reader.close();
    }
}
