package dev.lacuna.engine;

import dev.lacuna.ResourceInUseException;
import dev.lacuna.ResourceNotFoundException;
import dev.lacuna.StreamConsumer;
import dev.lacuna.TrimmedDataAccessException;
import dev.lacuna.ValidationException;
import dev.lacuna.lsm.KvLogReader;
import dev.lacuna.lsm.LsmStore;
import dev.lacuna.storage.Durability;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The change streams of a database's tables: their named consumers and their retention. A stream is the
 * table's writes in the log; what keeps them there are log checkpoints (see {@link StreamState}): the stream's
 * own, which retention moves on, and one per consumer, which its commits move on. Every change to those
 * checkpoints is made under this object's monitor, so a commit and a retention pass never cross, and, with
 * the check that the stream is still there, under the catalog's ({@link Catalog#ifStreamLive}), so that none
 * brings back the checkpoints of a table deleted or a stream disabled meanwhile.
 *
 * <p>Retention ({@link #enforceRetention}) reads each stream's log from its own checkpoint up to the first
 * record written within the retention (by the injected clock), moves the stream's checkpoint there, and moves
 * every consumer still below it — renamed, in the same manifest edit, to its trimmed name if a write of the
 * table was among the records it had not committed, so that it is told ({@link TrimmedDataAccessException})
 * rather than silently skipped. The log's next trim then deletes what nothing keeps.
 */
final class Streams implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Streams.class.getName());
    private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9_.-]{1,255}");

    final Catalog catalog;
    final LsmStore kv;
    private final Clock clock;
    final Duration retention;
    /** Open handles by their consumer's checkpoint name; guarded by this. */
    private final Map<String, StreamConsumerHandle> open = new HashMap<>();
    private boolean closed;

    Streams(Catalog catalog, LsmStore kv, Clock clock, Duration retention) {
        this.catalog = catalog;
        this.kv = kv;
        this.clock = clock;
        this.retention = retention;
    }

    /** Opens consumer {@code name} of table {@code table}'s stream, creating it at the stream's oldest record. */
    synchronized StreamConsumer consumer(String table, String name) {
        checkName(name);
        if (closed) {
            throw new IllegalStateException("the database is closed");
        }
        TableSchema t = catalog.get(table);
        StreamState s = requireStream(t);
        String live = StreamState.consumerName(t.id(), s.labelMillis(), name);
        if (open.containsKey(live)) {
            throw new ResourceInUseException("stream consumer " + name + " of table " + table + " is open; close it first");
        }
        Map<String, Long> checkpoints = kv.logCheckpoints();
        if (!checkpoints.containsKey(live) && !checkpoints.containsKey(StreamState.trimmedName(t.id(), s.labelMillis(), name))) {
            long hold = holdOf(t, s, checkpoints);
            // TRIM_HORIZON: every record the stream holds; not for a stream deleted or disabled meanwhile.
            requireStreamLive(t, s, () -> kv.setLogCheckpoint(live, hold));
        }
        StreamConsumerHandle h = new StreamConsumerHandle(this, t, s, name);
        open.put(live, h);
        return h;
    }

    /** Deletes consumer {@code name} of {@code table}'s stream (its checkpoint no longer keeps the log). */
    synchronized void deleteConsumer(String table, String name) {
        checkName(name);
        TableSchema t = catalog.get(table);
        StreamState s = requireStream(t);
        String live = StreamState.consumerName(t.id(), s.labelMillis(), name);
        if (open.containsKey(live)) {
            throw new ResourceInUseException("stream consumer " + name + " of table " + table + " is open; close it first");
        }
        Map<String, Long> checkpoints = kv.logCheckpoints();
        String trimmed = StreamState.trimmedName(t.id(), s.labelMillis(), name);
        if (!checkpoints.containsKey(live) && !checkpoints.containsKey(trimmed)) {
            throw new ResourceNotFoundException("Requested resource not found: stream consumer " + name + " of table "
                    + table);
        }
        for (String n : List.of(live, trimmed)) {
            if (checkpoints.containsKey(n)) {
                kv.removeLogCheckpoint(n);
            }
        }
    }

    private static void checkName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new ValidationException("stream consumer name " + name + " must be 1 to 255 characters of [a-zA-Z0-9_.-]");
        }
    }

    static StreamState requireStream(TableSchema t) {
        StreamState s = t.settings().stream();
        if (!s.enabled()) {
            throw new ResourceNotFoundException("Requested resource not found: table " + t.name() + " has no enabled stream");
        }
        return s;
    }

    private static long holdOf(TableSchema t, StreamState s, Map<String, Long> checkpoints) {
        Long hold = checkpoints.get(StreamState.holdName(t.id(), s.labelMillis()));
        if (hold == null) {
            throw new IllegalStateException("the stream of table " + t.name() + " has no log checkpoint");
        }
        return hold;
    }

    /** The stream's oldest record kept, minus one: where a consumer reset to the trim horizon goes on from. */
    synchronized long trimHorizon(TableSchema t, StreamState s) {
        return holdOf(t, s, kv.logCheckpoints());
    }

    /**
     * Moves handle {@code h}'s consumer's durable checkpoint up to {@code lsn} (never down: retention may have
     * moved it past). The caller has forced the log up to {@code lsn} ({@link StreamConsumerHandle#commit} does,
     * outside this monitor, so that other consumers' commits and retention do not wait for its fsync): a
     * checkpoint past what a power loss leaves would skip the writes a restart logs at the lost LSNs.
     *
     * @throws TrimmedDataAccessException if retention passed the consumer
     */
    synchronized void commit(StreamConsumerHandle h, long lsn) {
        Map<String, Long> checkpoints = kv.logCheckpoints();
        h.checkNotTrimmed(checkpoints);
        Long now = checkpoints.get(h.liveName);
        if (now == null) {
            throw new ResourceNotFoundException("Requested resource not found: stream consumer " + h.name() + " was deleted");
        }
        if (lsn > now) {
            requireStreamLive(h.table, h.stream, () -> kv.setLogCheckpoint(h.liveName, lsn));
        }
    }

    /** Makes consumer {@code h}'s checkpoint its trimmed one's again (at the same LSN), or the stream's oldest record. */
    synchronized long reset(StreamConsumerHandle h) {
        Map<String, Long> checkpoints = kv.logCheckpoints();
        Long trimmed = checkpoints.get(h.trimmedName);
        if (trimmed != null) {
            requireStreamLive(h.table, h.stream, () -> kv.renameLogCheckpoint(h.trimmedName, h.liveName, trimmed));
            return trimmed;
        }
        long hold = holdOf(h.table, h.stream, checkpoints);
        requireStreamLive(h.table, h.stream, () -> kv.setLogCheckpoint(h.liveName, hold));
        return hold;
    }

    /**
     * Runs {@code change} to stream {@code s}'s checkpoints only while it is still table {@code t}'s enabled stream
     * ({@link Catalog#ifStreamLive}): a checkpoint set after the table's deletion or the stream's disabling
     * removed the others would keep the log untrimmed until the next open.
     */
    private void requireStreamLive(TableSchema t, StreamState s, Runnable change) {
        if (!catalog.ifStreamLive(t, s, change)) {
            throw new ResourceNotFoundException("Requested resource not found: the stream of table " + t.name()
                    + " was deleted or disabled");
        }
    }

    synchronized void release(StreamConsumerHandle h) {
        open.remove(h.liveName, h);
    }

    /** {@link #enforceRetention()}, for the background thread: true if it moved anything. */
    boolean enforceRetentionInBackground() {
        try {
            return enforceRetention();
        } catch (ResourceNotFoundException e) {
            return false; // a table deleted meanwhile
        }
    }

    /**
     * Drops from every stream the records written more than the retention ago (by the database's clock): moves
     * the stream's checkpoint past them, and every consumer's still below it, marking as trimmed each consumer
     * that had not committed a write of the table among them. The log's next trim (after a flush) deletes them.
     *
     * @return whether any checkpoint moved
     */
    synchronized boolean enforceRetention() {
        if (closed) {
            return false;
        }
        long horizon = clock.millis() - retention.toMillis();
        boolean moved = false;
        Map<String, Long> checkpoints = kv.logCheckpoints();
        for (TableSchema t : catalog.tables()) {
            StreamState s = t.settings().stream();
            String holdName = StreamState.holdName(t.id(), s.labelMillis());
            Long hold = checkpoints.get(holdName);
            if (!s.enabled() || hold == null) {
                continue;
            }
            long floor = hold;
            long lastWrite = -1; // the newest LSN below the floor that wrote an item of the table
            try (KvLogReader log = kv.logReader(hold + 1)) {
                for (KvLogReader.Batch b = log.next(); b != null && b.writeTimeMillis() < horizon; b = log.next()) {
                    floor = b.lsn();
                    if (StreamRecords.touches(t.id(), b)) {
                        lastWrite = b.lsn();
                    }
                }
            }
            if (floor == hold) {
                continue;
            }
            // The records read may have been logged without SYNC (visible, not durable): force the log up to the
            // floor before any checkpoint is saved there, or a power loss would leave checkpoints past the
            // recovered log, and the stream would skip the writes a restart logs at the lost LSNs.
            kv.awaitDurable(floor, Durability.SYNC);
            String livePrefix = holdName + "-c-";
            String trimmedPrefix = holdName + "-t-";
            List<Map.Entry<String, Long>> behind = new ArrayList<>();
            for (Map.Entry<String, Long> c : checkpoints.entrySet()) {
                if ((c.getKey().startsWith(livePrefix) || c.getKey().startsWith(trimmedPrefix)) && c.getValue() < floor) {
                    behind.add(c);
                }
            }
            long to = floor;
            long wrote = lastWrite;
            // The table may have been deleted, or its stream disabled, while the log was read: the checkpoints are
            // moved only if the stream is still there, atomically with that check (see Catalog.ifStreamLive).
            moved |= catalog.ifStreamLive(t, s, () -> {
                for (Map.Entry<String, Long> c : behind) {
                    String name = c.getKey();
                    if (name.startsWith(livePrefix) && wrote > c.getValue()) {
                        String consumer = name.substring(livePrefix.length());
                        kv.renameLogCheckpoint(name, trimmedPrefix + consumer, to);
                        LOG.log(System.Logger.Level.WARNING, "stream consumer " + consumer + " of table " + t.name()
                                + " fell behind the stream's retention (" + retention + "): records after LSN "
                                + c.getValue() + " through LSN " + to + " were dropped; it is told so until it is reset");
                    } else {
                        kv.setLogCheckpoint(name, to); // lost nothing of this table, or already told
                    }
                }
                kv.setLogCheckpoint(holdName, to);
            });
        }
        return moved;
    }

    /** Closes every open handle (stopping their processors). */
    @Override
    public void close() {
        List<StreamConsumerHandle> handles;
        synchronized (this) {
            closed = true;
            handles = new ArrayList<>(open.values());
        }
        Throwable failure = null;
        for (StreamConsumerHandle h : handles) {
            try {
                h.close(); // each, whatever the others threw: a processor left running would outlive the store
            } catch (RuntimeException | Error e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure instanceof RuntimeException e) {
            throw e;
        }
        if (failure instanceof Error e) {
            throw e;
        }
    }
}
