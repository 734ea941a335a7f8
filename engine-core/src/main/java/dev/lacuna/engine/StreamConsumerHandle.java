package dev.lacuna.engine;

import dev.lacuna.ResourceNotFoundException;
import dev.lacuna.StreamBatch;
import dev.lacuna.StreamConsumer;
import dev.lacuna.StreamHandler;
import dev.lacuna.StreamProcessor;
import dev.lacuna.StreamRecord;
import dev.lacuna.TrimmedDataAccessException;
import dev.lacuna.lsm.KvLogReader;
import dev.lacuna.storage.Durability;
import dev.lacuna.storage.StorageIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * An open {@link StreamConsumer}: reads the log from the consumer's durable checkpoint (its position moves as
 * it reads), turns the table's writes into records ({@link StreamRecords}), and commits through
 * {@link Streams#commit}. Records of one log record are never split across polls: the checkpoint is an LSN.
 */
final class StreamConsumerHandle implements StreamConsumer {
    private final Streams streams;
    final TableSchema table;
    final StreamState stream;
    private final String name;
    final String liveName;
    final String trimmedName;
    /** The LSN through which this handle has read (and handed out) the log. Guarded by this. */
    private long position;
    /** The records of a log record read but not handed out (they would have made a poll exceed its max). */
    private List<StreamRecord> pending;
    private long pendingLsn;
    /**
     * Set under this object's monitor; volatile so that {@link #close} can wake a poll waiting in it (and see the
     * processor) without that monitor, which the waiting poll holds.
     */
    private volatile KvLogReader reader;
    private volatile StreamProcessorThread processor;
    private volatile boolean closed;
    /** Set by {@link #close} before it takes the monitor: a poll does not wait any more. */
    private volatile boolean closing;

    StreamConsumerHandle(Streams streams, TableSchema table, StreamState stream, String name) {
        this.streams = streams;
        this.table = table;
        this.stream = stream;
        this.name = name;
        this.liveName = StreamState.consumerName(table.id(), stream.labelMillis(), name);
        this.trimmedName = StreamState.trimmedName(table.id(), stream.labelMillis(), name);
        Map<String, Long> checkpoints = streams.kv.logCheckpoints();
        Long at = checkpoints.containsKey(liveName) ? checkpoints.get(liveName) : checkpoints.get(trimmedName);
        // A checkpoint is never past the durable log (commit waits for it), but a log recovered shorter all the
        // same must not make the consumer skip the records written after the restart at the lost LSNs.
        this.position = Math.min(at == null ? 0 : at, streams.kv.lastSequence());
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String streamArn() {
        return stream.arn(table.name());
    }

    @Override
    public StreamBatch poll(int max) {
        try {
            return poll(max, Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public StreamBatch poll(int max, Duration wait) throws InterruptedException {
        // Counted in while it runs: it holds this handle's monitor, which the database's close takes, so a close from
        // this thread (a file system hook in the poll's log read) must not wait for a close under way in another
        // thread, and, as the only close, is refused rather than close the log under the read.
        return streams.kv.ownedThreads().counted(() -> pollCounted(max, wait));
    }

    private synchronized StreamBatch pollCounted(int max, Duration wait) throws InterruptedException {
        if (max < 1) {
            throw new IllegalArgumentException("max must be at least 1: " + max);
        }
        Objects.requireNonNull(wait, "wait");
        checkUsable();
        checkNotTrimmed(streams.kv.logCheckpoints());
        // Retention may have moved the consumer's checkpoint past where this handle's open reader stands (records
        // with no write of the table: nothing lost, so not marked trimmed), and the log's next trim deletes the
        // segments that reader still needs. Go on from the checkpoint with a new reader, as a handle opened now
        // would (reader()). The checkpoint is saved before the trim, so once it is seen here the reader is rebuilt.
        long readThrough = pending != null ? pendingLsn : position;
        if (reader != null && passedByRetention(readThrough)) {
            reader.close();
            reader = null;
            pending = null; // nothing of the table was at or below the checkpoint, or it would be marked trimmed
        }
        List<StreamRecord> out = new ArrayList<>();
        if (pending != null) {
            out.addAll(pending);
            position = pendingLsn;
            pending = null;
        }
        KvLogReader log = reader();
        // Saturates where Duration.toNanos() would throw (past ~292 years); the deadline may wrap, the
        // differences do not.
        long deadline = System.nanoTime() + TimeUnit.NANOSECONDS.convert(wait);
        while (out.size() < max) {
            KvLogReader.Batch b;
            long left = deadline - System.nanoTime();
            try {
                // Not once close began: it woke the reader it saw, and one made after that sees closing here.
                b = out.isEmpty() && left > 0 && !closing ? log.next(Duration.ofNanos(left)) : log.next();
            } catch (StorageIOException e) {
                // Retention may have run since the check above, and the log's trim deleted the segment the reader
                // was to open next. If so, that is no failure: go on from the checkpoint as the check would have
                // (or say the consumer was trimmed, if it lost records); anything else is one.
                checkNotTrimmed(streams.kv.logCheckpoints());
                if (!passedByRetention(position)) {
                    throw e;
                }
                reader.close();
                reader = null;
                log = reader();
                continue;
            }
            if (b == null) {
                break;
            }
            List<StreamRecord> records = StreamRecords.of(table, stream, streams.kv, b);
            if (!out.isEmpty() && out.size() + records.size() > max) {
                pending = records; // a write's records stay together: the next poll starts with them
                pendingLsn = b.lsn();
                break;
            }
            out.addAll(records);
            position = b.lsn();
        }
        return new StreamBatch(out, position);
    }

    /**
     * Whether retention moved the consumer's checkpoint past {@code readThrough}: the records between hold no write
     * of the table (or the consumer would be marked trimmed), and the log may no longer hold them.
     */
    private boolean passedByRetention(long readThrough) {
        return readThrough < Math.min(checkpoint(), streams.kv.lastSequence());
    }

    private KvLogReader reader() {
        if (reader == null) {
            // Retention may have moved the checkpoint past records that held no write of this table (nothing
            // lost, so not marked trimmed), and the log may no longer hold them: go on from there.
            position = Math.max(position, Math.min(checkpoint(), streams.kv.lastSequence()));
            try {
                reader = streams.kv.logReader(position + 1);
            } catch (IllegalArgumentException e) {
                throw new TrimmedDataAccessException("stream consumer " + name + " of table " + table.name()
                        + ": the log no longer holds LSN " + (position + 1) + " (" + e.getMessage() + ")");
            }
        }
        return reader;
    }

    /** Throws unless the handle is open and its stream is still the table's enabled stream. */
    private void checkUsable() {
        if (closed) {
            throw new IllegalStateException("stream consumer " + name + " is closed");
        }
        if (!streams.catalog.isLive(table)) {
            throw new ResourceNotFoundException("Requested resource not found: Table: " + table.name() + " was deleted");
        }
        StreamState now = streams.catalog.get(table.name()).settings().stream();
        if (!now.enabled() || now.labelMillis() != stream.labelMillis()) {
            throw new ResourceNotFoundException("Requested resource not found: stream " + stream.arn(table.name())
                    + " was disabled");
        }
    }

    /** Throws {@link TrimmedDataAccessException} if retention passed the consumer and it was not reset. */
    void checkNotTrimmed(Map<String, Long> checkpoints) {
        Long trimmed = checkpoints.get(trimmedName);
        if (trimmed != null) {
            throw new TrimmedDataAccessException("stream consumer " + name + " of table " + table.name()
                    + " fell behind the stream's retention (" + streams.retention + "): records it had not committed,"
                    + " up to LSN " + trimmed + ", were trimmed; resetToTrimHorizon() accepts the loss and goes on");
        }
    }

    @Override
    public void commit(StreamBatch batch) {
        long lsn = batch.checkpoint();
        synchronized (this) {
            checkUsable();
            if (lsn > position) {
                throw new IllegalArgumentException("commit at LSN " + lsn + ": the consumer has read through " + position);
            }
        }
        // The log first: records written without SYNC may not be durable yet, and a checkpoint past the log's
        // recovered end would skip the writes a restart logs at the lost LSNs.
        streams.kv.awaitDurable(lsn, Durability.SYNC);
        streams.commit(this, lsn);
    }

    @Override
    public long checkpoint() {
        Map<String, Long> checkpoints = streams.kv.logCheckpoints();
        Long at = checkpoints.containsKey(liveName) ? checkpoints.get(liveName) : checkpoints.get(trimmedName);
        return at == null ? -1 : at;
    }

    @Override
    public void resetToTrimHorizon() {
        streams.kv.ownedThreads().counted(() -> { // as poll: it writes the checkpoint under this monitor
            resetCounted();
            return null;
        });
    }

    private synchronized void resetCounted() {
        checkUsable();
        long at = streams.reset(this);
        position = Math.min(at, streams.kv.lastSequence());
        pending = null;
        if (reader != null) {
            reader.close();
            reader = null;
        }
    }


    @Override
    public StreamProcessor start(StreamHandler handler, int batchSize) {
        Objects.requireNonNull(handler, "handler");
        if (batchSize < 1) {
            throw new IllegalArgumentException("batchSize must be at least 1: " + batchSize);
        }
        synchronized (this) {
            checkUsable();
            if (processor != null && processor.running()) {
                throw new IllegalStateException("stream consumer " + name + " already has a running processor");
            }
            String threadName = "lacuna-stream-" + table.name() + "-" + name;
            processor = new StreamProcessorThread(this, handler, batchSize, threadName, streams.kv.ownedThreads());
            processor.begin();
            return processor;
        }
    }

    /** Whether {@link #close} has closed the handle (its processor's thread checks it after the handler). */
    boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        // A poll waiting for records holds this object's monitor, and nothing else would wake it (a database's close
        // hung here until the poll's wait ended): end its wait first. It returns what it has; the next call throws.
        closing = true;
        KvLogReader waiting = reader;
        if (waiting != null) {
            waiting.wake();
        }
        StreamProcessorThread p = processor;
        if (p != null) {
            p.close(); // outside the monitor: its thread polls under it
        }
        // Counted in, as poll: it closes the reader (a file) under the monitor the database's close takes.
        if (streams.kv.ownedThreads().counted(this::closeReader)) {
            streams.release(this);
        }
    }

    /** Marks the handle closed and closes its reader; false if it was closed already. */
    private synchronized boolean closeReader() {
        if (closed) {
            return false;
        }
        closed = true;
        if (reader != null) {
            reader.close();
            reader = null;
        }
        return true;
    }
}
