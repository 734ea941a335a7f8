package dev.lacuna.engine;

import dev.lacuna.AttributeValue;
import dev.lacuna.ConditionalCheckFailedException;
import dev.lacuna.DeleteItem;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.ResourceNotFoundException;
import dev.lacuna.ReturnValues;
import dev.lacuna.TimeToLiveProgress;
import dev.lacuna.item.ItemCodec;
import dev.lacuna.kv.KvCursor;
import dev.lacuna.lsm.LsmStore;
import dev.lacuna.storage.Durability;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Deletes the expired items of every table with time to live enabled: one daemon thread per database
 * ({@value #THREAD_NAME}) that rests {@code interval}, then walks each such table partition by partition and
 * deletes what has expired by the database's clock, then rests again. {@link #close} wakes it and waits for
 * it to stop; it never outlives the database.
 *
 * <p>Each deletion is an ordinary conditional {@code DeleteItem} through the write path, so local indexes
 * change in the same log record and global ones from the log, like any delete; its condition is that the item
 * still holds the expired value, so an update that moved the expiry meanwhile wins. Deletions are made with
 * {@link Durability#NONE}: one lost to a power loss is made again by a later pass, and reads hide an expired
 * item until then. The table is read in batches of at most {@value #BATCH} expired items (or
 * {@value #READ_PER_CURSOR} items read), a fresh cursor each, so that no cursor pins the store's files for a
 * whole pass; each deletion holds only its own item's lock and its table's shared write lock, so foreground
 * writes are never stalled behind a batch.
 *
 * <p>A pass reads every item of every table with time to live enabled: its cost grows with the tables, not
 * with what expired. (An index of expiry times would fix that; it is not built yet.)
 */
final class TtlSweeper implements AutoCloseable {
    static final String THREAD_NAME = "lacuna-ttl-sweeper";
    /** Expired items collected before they are deleted and the table read on. */
    static final int BATCH = 100;
    /** Items read with one cursor at most, expired or not, so that no cursor stays open for a whole partition. */
    static final int READ_PER_CURSOR = 4096;
    private static final System.Logger LOG = System.getLogger(TtlSweeper.class.getName());

    private final LsmStore kv;
    private final Catalog catalog;
    private final Writes writes;
    private final Clock clock;
    private final Duration interval;
    /** Nanoseconds between two deletes at the configured rate; 0 for no limit. */
    private final long nanosPerDelete;
    /** When the next delete may start ({@link System#nanoTime}); only the sweeping thread uses it. */
    private long nextDeleteAt;
    /** When {@link #afterPass} last ran ({@link System#nanoTime}); only the sweeping thread uses it. */
    private long lastAfterPass;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wake = lock.newCondition();
    private final Thread thread;
    private final AtomicLong deleted = new AtomicLong();
    /** Each table's progress, by table id; a table's entry goes when a pass finds it deleted. */
    private final Map<Integer, Progress> progress = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** Run after each pass (change streams' retention), on the sweeper's thread. */
    private final Runnable afterPass;

    TtlSweeper(LsmStore kv, Catalog catalog, Writes writes, Clock clock, Duration interval, int deletesPerSecond,
               Runnable afterPass) {
        this.afterPass = afterPass;
        this.nanosPerDelete = deletesPerSecond == 0 ? 0 : 1_000_000_000L / deletesPerSecond;
        this.nextDeleteAt = System.nanoTime(); // nanoTime may be negative: compare differences only
        this.lastAfterPass = nextDeleteAt;
        this.kv = kv;
        this.catalog = catalog;
        this.writes = writes;
        this.clock = clock;
        this.interval = interval;
        // Counted in the store's owned threads: a close from it (a file system hook) must not wait for the close
        // that joins it.
        this.thread = kv.ownedThreads().newThread(this::run, THREAD_NAME);
    }

    void start() {
        thread.start();
    }

    /** Items deleted because they expired, since the database opened. */
    long deleted() {
        return deleted.get();
    }

    /** What the sweeper has done to table {@code id} since the database opened. */
    TimeToLiveProgress progress(int id) {
        Progress p = progress.get(id);
        return p == null ? TimeToLiveProgress.NONE : p.snapshot();
    }

    /** Whether the sweeper's thread is still running (false once {@link #close} returned). */
    boolean running() {
        return thread.isAlive();
    }

    private void run() {
        while (rest()) {
            try {
                sweepOnce();
            } catch (RuntimeException e) {
                if (closed) {
                    return; // the store closing under a pass
                }
                LOG.log(Level.WARNING, "time-to-live sweep failed; the next pass tries again", e);
            }
            runAfterPass();
        }
    }

    /**
     * Runs {@link #afterPass} (change streams' retention): after each pass, and during a pass every interval,
     * since a paced pass over a large backlog of expired items takes hours and the log must not wait for it.
     */
    private void runAfterPass() {
        lastAfterPass = System.nanoTime();
        try {
            afterPass.run();
        } catch (RuntimeException e) {
            if (!closed) {
                LOG.log(Level.WARNING, "stream retention failed; the next pass tries again", e);
            }
        }
    }

    /** Waits out the interval; false once closed. */
    private boolean rest() {
        return await(interval.toNanos());
    }

    /** Waits {@code nanos} unless closed first; false once closed (or interrupted). */
    private boolean await(long nanos) {
        lock.lock();
        try {
            while (!closed && nanos > 0) {
                nanos = wake.awaitNanos(nanos);
            }
            return !closed;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * One pass over every table with time to live enabled, on the calling thread (the sweeper's own, or a test's).
     *
     * @return the items it deleted
     */
    long sweepOnce() {
        long n = 0;
        for (TableSchema t : catalog.tables()) {
            if (closed) {
                break;
            }
            String attribute = t.settings().ttlAttribute();
            if (attribute != null) {
                n += sweep(t, attribute);
            }
        }
        deleted.addAndGet(n);
        return n;
    }

    private long sweep(TableSchema t, String attribute) {
        TimeToLive.Expiry expiry = TimeToLive.expiry(attribute, clock.instant());
        Progress progress = this.progress.computeIfAbsent(t.id(), id -> new Progress());
        progress.begin();
        long n = 0;
        boolean finished = false;
        try {
            for (int p = 0; p < t.spec().partitions(); p++) {
                byte[] from = t.lowest();
                // A table deleted (and perhaps created again under its name) is left alone from then on.
                while (from != null && !closed && catalog.isLive(t)) {
                    List<Item> expired = new ArrayList<>();
                    if (System.nanoTime() - lastAfterPass >= interval.toNanos()) {
                        runAfterPass();
                    }
                    from = collect(t, p, from, expiry, expired, progress);
                    for (int i = 0; i < expired.size() && pace(); i++) {
                        Item item = expired.get(i);
                        Key key = Key.from(item, t.pkName(), t.skName());
                        if (deleteIfStillExpired(t.name(), key, attribute, item.get(attribute))) {
                            n++;
                            progress.deleted.incrementAndGet();
                        }
                    }
                }
            }
            finished = !closed && catalog.isLive(t);
        } catch (ResourceNotFoundException e) {
            // the table was deleted meanwhile
        } finally {
            progress.end(finished, clock.instant());
            if (!catalog.isLive(t)) {
                this.progress.remove(t.id());
            }
        }
        return n;
    }

    /**
     * Reads partition {@code p} of {@code t} from {@code from} until {@value #BATCH} expired items are found or
     * {@value #READ_PER_CURSOR} items were read.
     *
     * @return where to read on, or null at the partition's end
     */
    private byte[] collect(TableSchema t, int p, byte[] from, TimeToLive.Expiry expiry, List<Item> expired,
                           Progress progress) {
        try (KvCursor c = catalog.whileLive(t, () -> kv.scanPartition(t.id(), p, from, t.highest(), false, null))) {
            for (int read = 1; c.valid(); c.next(), read++) {
                progress.read.incrementAndGet();
                Item item = ItemCodec.decode(c.value());
                if (expiry.expired(item)) {
                    expired.add(item);
                }
                if (expired.size() == BATCH || read == READ_PER_CURSOR) {
                    return Queries.after(c.key());
                }
            }
            return null;
        }
    }

    /**
     * Waits until the next delete is due at the configured rate; false once closed. The pace is kept by the
     * machine's monotonic time, not the database's clock: it shares the processor and the log with the
     * application, and a clock that tests hold still must not stop it. A sweeper that fell behind (a long
     * read between batches) does not make up for it in a burst.
     */
    private boolean pace() {
        if (nanosPerDelete == 0) {
            return !closed;
        }
        long now = System.nanoTime();
        long due = nextDeleteAt - now > 0 ? nextDeleteAt : now;
        nextDeleteAt = due + nanosPerDelete;
        return due - now <= 0 ? !closed : await(due - now);
    }

    /**
     * Deletes item {@code key} of {@code table} if its {@code attribute} still holds {@code expired}, the value
     * it was found expired by; whether it did.
     */
    boolean deleteIfStillExpired(String table, Key key, String attribute, AttributeValue expired) {
        DeleteItem delete = new DeleteItem(key).condition("#ttl = :expired").name("#ttl", attribute)
                .value(":expired", expired);
        try {
            writes.write(table, delete, ReturnValues.NONE, Durability.NONE, true); // a stream marks it a TTL delete
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false; // changed meanwhile (its expiry moved, or it went): the change wins
        }
    }

    /** One table's counters, written by the sweeper's thread and read by describeTable's. */
    private static final class Progress {
        final AtomicLong read = new AtomicLong();
        final AtomicLong deleted = new AtomicLong();
        private long passes;
        private Instant lastPassEndedAt;
        private boolean sweeping;
        private long lastPassRead;

        synchronized void begin() {
            sweeping = true;
            read.set(0);
        }

        /** A pass ended; {@code finished} if it read the whole table (not cut short by a close). */
        synchronized void end(boolean finished, Instant at) {
            sweeping = false;
            lastPassRead = read.get();
            if (finished) {
                passes++;
                lastPassEndedAt = at;
            }
        }

        synchronized TimeToLiveProgress snapshot() {
            return new TimeToLiveProgress(passes, lastPassEndedAt, sweeping, sweeping ? read.get() : lastPassRead,
                    deleted.get());
        }
    }

    /** Stops the sweeper: wakes it, and waits for a pass under way to stop at its next item. Idempotent. */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            wake.signalAll();
        } finally {
            lock.unlock();
        }
        if (Thread.currentThread() != thread && thread.isAlive()) {
            boolean interrupted = false;
            while (true) {
                try {
                    thread.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true; // the sweeper must be stopped before the store closes under it
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
