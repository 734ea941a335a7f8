package dev.lacuna.wal;

import dev.lacuna.storage.WalOptions;
import dev.lacuna.storage.WalStats;
import dev.lacuna.storage.DatabaseClosedException;
import dev.lacuna.storage.Durability;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsLock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.Set;
import java.util.function.LongConsumer;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The write-ahead log: a directory of segment files holding numbered records (LSN 1, 2, 3, … with no
 * gaps), appended by many threads, read back in order by tailing readers, and trimmed from the front once
 * every consumer is done with a segment. The byte layout is in FORMAT.md beside this class.
 *
 * <h2>Grouped writes, durability and group commit</h2>
 * {@link #append} frames the record into an in-memory buffer under the write lock (it {@link #reserve reserves}
 * it: gives it its LSN), then hands it to the OS ({@link #write(ReservedRecord)}), and returns its LSN once it
 * is as durable as asked ({@link Durability}). The write is grouped (RocksDB's write group): while one appender
 * writes, without the write lock, the records reserved before it began, later appenders reserve theirs behind
 * it and wait; one of them then writes all of those in one write, in LSN order ({@link WriteGroup}). A
 * {@code SYNC} appender then needs an fsync that covers its record: whoever first takes the sync lock becomes
 * the leader, writes whatever is still buffered, fsyncs once, and publishes the new durable LSN; the appenders
 * queued behind it find their records already durable and return without an fsync of their own. While the leader
 * waits for the disk, new appends go on.
 *
 * <h2>Failure</h2>
 * If a grouped write fails, wholly or in part, every record it held and every record reserved after them is cut
 * (from the buffer, and what the write left in the file) before any of their appenders is told that its append
 * failed, and their LSNs are handed out again: no record lands after an unacknowledged one, none is replayed.
 * If a write or fsync fails, the caller whose append or fsync failed is told so, and the log cannot know
 * what reached the disk. The next append (or fsync) first recovers: it cuts the damaged tail of the
 * segment, writes every record it holds again, fsyncs them, reads them back and checks them, seals the
 * segment and starts a new one; then it goes on. If that fails, it is refused with a
 * {@link StorageIOException} and tried again by the next one; if the records read back wrong, the log
 * refuses appends for good. A record whose append failed is never written again; every other one is kept
 * (it may be visible already). {@link #open} on the directory recovers every record that was acknowledged.
 *
 * <p>Thread-safe. The owner closes it; {@link #close()} makes everything appended durable, stops the
 * background sync thread and releases the directory lock.
 */
public final class Wal implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Wal.class.getName());
    private static final String LOCK_FILE = "LOCK";

    /** What tailing readers may read: records up to {@code lastLsn}, ending at {@code offset} of {@code segment}. */
    record Visible(long segment, long offset, long lastLsn) {
    }

    private final Vfs vfs;
    private final Path dir;
    private final WalOptions options;
    private final VfsLock dirLock;

    /** How long a writer waiting for the write in flight spins before it parks ({@link #awaitWriteEnd}). */
    private static final long SPIN_NANOS = 20_000;
    private final ReentrantLock writeLock = new ReentrantLock();
    /** Records reserved and not yet written, and the grouped write in flight (guarded by the write lock). */
    private final WriteGroup group = new WriteGroup(writeLock);
    /** Guards the group-commit leader's role; never held while waiting for another lock or for I/O. */
    private final Object syncMonitor = new Object();
    private boolean leaderActive; // guarded by syncMonitor: a leader is writing and fsyncing
    /** The leader's thread while {@link #leaderActive} (close waits for it), else null; for {@link #runsOn}. */
    private volatile Thread leader;
    private boolean syncClosed;   // guarded by syncMonitor: close() has taken the leader's role for good

    // Guarded by writeLock.
    private SegmentWriter current;
    private long nextLsn;
    /**
     * Segment number -> first LSN; changed under the write lock, read without it by tailing readers, which must
     * not wait for a roll (a roll can wait for a group commit's fsync: see {@link SegmentWriter#seal}).
     */
    private final ConcurrentSkipListMap<Long, Long> segments;
    private final Map<Long, Long> sealedBytes;   // segment number -> size, for every segment but the current
    private final List<SegmentWriter> retired = new ArrayList<>();
    private volatile boolean closed; // written under the write lock; read without it by tailing readers

    private volatile Visible visible;
    private final AtomicLong durableLsn;
    private volatile LongConsumer durableListener = lsn -> { };
    private volatile Throwable failure;
    /** The log can never recover from {@link #failure} (guarded by the write lock). */
    private boolean permanentFailure;

    private final Object tail = new Object();
    private final Object trimLock = new Object();
    private volatile int tailWaiters;

    private final Map<String, Long> checkpoints = new HashMap<>(); // guarded by itself
    private final BatchedSyncer syncer;
    private final long droppedTail;
    private final SyncEvents syncEvents;
    /** {@link #syncEvents} failed once: it is asked no more (a broken recorder would fail every sync alike). */
    private volatile boolean syncEventsFailed;

    private final LongAdder appends = new LongAdder();
    private final LongAdder appendedBytes = new LongAdder();
    private final AtomicLong fsyncs = new AtomicLong();
    private final AtomicLong syncedRecords = new AtomicLong();
    private final AtomicLong largestGroup = new AtomicLong();
    private final AtomicLong segmentsCreated = new AtomicLong();
    private final AtomicLong segmentsDeleted = new AtomicLong();

    private Wal(Vfs vfs, Path dir, WalOptions options, VfsLock dirLock, WalRecovery.Result recovered,
                Map<Long, Long> recoveredBytes, SegmentWriter current, SyncEvents syncEvents) {
        this.vfs = vfs;
        this.syncEvents = syncEvents;
        this.dir = dir;
        this.options = options;
        this.dirLock = dirLock;
        this.segments = new ConcurrentSkipListMap<>(recovered.segments());
        this.sealedBytes = recoveredBytes;
        this.current = current;
        this.nextLsn = recovered.nextLsn();
        this.droppedTail = recovered.droppedTail();
        this.segments.put(current.number(), current.firstLsn());
        this.durableLsn = new AtomicLong(nextLsn - 1);
        this.visible = new Visible(current.number(), current.written(), nextLsn - 1);
        this.segmentsCreated.incrementAndGet();
        this.syncer = new BatchedSyncer(this, "lacuna-wal-sync-" + dir.getFileName());
    }

    /**
     * Opens (creating if needed) the log in {@code dir}: takes the directory's lock, recovers the existing
     * segments according to {@link WalOptions#recoveryMode()}, and starts a new segment for appends.
     *
     * @throws dev.lacuna.storage.CorruptionException if recovery finds damage it may not repair (file and offset named)
     * @throws StorageIOException             if the file system fails, or the directory is locked by another
     *                                        open log
     */
    public static Wal open(Vfs vfs, Path dir, WalOptions options) {
        return open(vfs, dir, options, log -> { });
    }

    /**
     * The log as recovery found it, before it changes anything: the LSNs it holds, and where its records end.
     *
     * @param first       the first LSN it holds (or the next one, if it holds none)
     * @param last        the last LSN it holds ({@code first - 1} if none)
     * @param lastSegment the last segment file, or null if there is none
     * @param end         the offset in {@code lastSegment} where its records end (past its seal, if sealed;
     *                    0 for a segment shorter than its header)
     */
    public record Recovered(long first, long last, Path lastSegment, long end) {
    }

    /**
     * What a log's owner checks of the recovered log before anything is written to it: a check that throws
     * leaves the log directory as recovery found it.
     */
    @FunctionalInterface
    public interface Coverage {
        /** Throws if the recovered log cannot serve its owner. */
        void check(Recovered log);
    }

    /**
     * As {@link #open(Vfs, Path, WalOptions)}, calling {@code coverage} with the recovered log's LSN range and end
     * before recovery changes anything (cutting a torn tail, sealing) and before the new segment is created.
     */
    public static Wal open(Vfs vfs, Path dir, WalOptions options, Coverage coverage) {
        return open(vfs, dir, options, coverage, new JfrSyncEvents());
    }

    /**
     * As {@link #open(Vfs, Path, WalOptions, Coverage)}, handing {@code records} every record from LSN
     * {@code fromLsn} on, in LSN order, as recovery reads and checks it: an owner that replays the log on open
     * does so from this one reading instead of reading the log a second time (it was a third of a replay's time).
     * A record is handed over once it is checked; the open may still fail after it (damage further on, or
     * {@code coverage} refusing the log), and the owner then drops what it was handed. What an open that succeeds
     * handed over is exactly what {@link #reader(long) reader(fromLsn)} would read from the log it opened.
     */
    public static Wal open(Vfs vfs, Path dir, WalOptions options, Coverage coverage, long fromLsn,
                           Consumer<WalRecord> records) {
        Objects.requireNonNull(records, "records");
        return open(vfs, dir, options, coverage, new WalReplay(fromLsn, null, WalReplay.copying(records)),
                new JfrSyncEvents());
    }

    /**
     * As {@link #open(Vfs, Path, WalOptions, Coverage, long, Consumer)}, telling {@code size}, once, before the first
     * record handed to {@code records}, how many bytes of the log's segments lie from that record to the zeros the
     * last one ends in: about what the records handed over take in the log (their framing counted; a segment that
     * cannot be sized counts as a full one, and a torn tail's bytes count too). An owner sizes its memory for the
     * replay from it. Not told if no record is handed over. What {@code size} or {@code records} throws fails the
     * open, as itself.
     */
    public static Wal open(Vfs vfs, Path dir, WalOptions options, Coverage coverage, long fromLsn, LongConsumer size,
                           Consumer<WalRecord> records) {
        Objects.requireNonNull(records, "records");
        return open(vfs, dir, options, coverage, fromLsn, size, WalReplay.copying(records));
    }

    /**
     * As {@link #open(Vfs, Path, WalOptions, Coverage, long, LongConsumer, Consumer)}, lending each record's payload to
     * {@code records} for the call only, where that one copies each into an array of its own: an owner that replays
     * the log into memory of its own copies each payload once, and the open makes no array per record (one of many
     * fragments is assembled in an array the next one reuses, up to 1 MiB).
     */
    public static Wal open(Vfs vfs, Path dir, WalOptions options, Coverage coverage, long fromLsn, LongConsumer size,
                           LentRecords records) {
        Objects.requireNonNull(size, "size");
        Objects.requireNonNull(records, "records");
        return open(vfs, dir, options, coverage, new WalReplay(fromLsn, size, records), new JfrSyncEvents());
    }

    /** As {@link #open(Vfs, Path, WalOptions, Coverage)}, reporting each fsync to {@code syncEvents}. */
    static Wal open(Vfs vfs, Path dir, WalOptions options, Coverage coverage, SyncEvents syncEvents) {
        return open(vfs, dir, options, coverage, null, syncEvents);
    }

    private static Wal open(Vfs vfs, Path dir, WalOptions options, Coverage coverage, WalReplay replay,
                            SyncEvents syncEvents) {
        Objects.requireNonNull(vfs, "vfs");
        Objects.requireNonNull(syncEvents, "syncEvents");
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(options, "options");
        VfsLock lock = null;
        SegmentWriter writer = null;
        try {
            vfs.mkdirs(dir);
            lock = vfs.lock(dir.resolve(LOCK_FILE));
            WalRecovery.Result recovered = WalRecovery.recover(vfs, dir, options, coverage, replay);
            Map<Long, Long> sizes = sizes(vfs, dir, recovered.segments().keySet(), options);
            writer = SegmentWriter.create(vfs, dir, recovered.nextSegment(), recovered.nextLsn(), options);
            return new Wal(vfs, dir, options, lock, recovered, sizes, writer, syncEvents);
        } catch (IOException e) {
            abandonOpen(lock, writer, e);
            throw new StorageIOException("cannot open write-ahead log in " + dir + ": " + e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            // An Error too (an OutOfMemoryError, a failing assertion while the log recovers): left held, wal/LOCK
            // would refuse every later open of the log in this process.
            abandonOpen(lock, writer, e);
            throw e;
        }
    }

    /**
     * Closes what a failed open had opened: the new segment's file, if it was made, then the lock (recovery closes
     * the segments it reads itself). What fails meanwhile is added to {@code primary}.
     */
    private static void abandonOpen(VfsLock lock, SegmentWriter writer, Throwable primary) {
        if (writer != null) {
            try {
                writer.close();
            } catch (IOException | RuntimeException | Error e) {
                primary.addSuppressed(e);
            }
        }
        releaseQuietly(lock, primary);
    }

    /** The sizes of recovered segments, for {@link #firstLsnWithin}; a size it cannot read counts as a full segment. */
    private static Map<Long, Long> sizes(Vfs vfs, Path dir, Set<Long> numbers, WalOptions options) {
        Map<Long, Long> sizes = new HashMap<>();
        for (long number : numbers) {
            long size;
            try {
                size = vfs.size(dir.resolve(WalFormat.segmentName(number)));
            } catch (IOException e) {
                size = options.segmentSize(); // only a flush trigger depends on it: not worth failing the open
            }
            sizes.put(number, size);
        }
        return sizes;
    }

    /** Appends {@code payload}; see {@link #append(byte[], int, int, Durability)}. */
    public long append(byte[] payload, Durability durability) {
        return append(payload, 0, payload.length, durability);
    }

    /**
     * Appends one record and returns its LSN once it is as durable as {@code durability} asks. Records are
     * numbered in the order their appends take the write lock; a record is visible to readers once it has
     * been handed to the OS (by its own or another appender's grouped write).
     *
     * @throws StorageIOException      if the file system fails, now or earlier (the log then refuses appends);
     *                                 or if the thread is interrupted while it waits for another thread's
     *                                 fsync: the record is then in the log and may still become durable,
     *                                 and the log carries on (an interrupt never makes it refuse appends)
     * @throws DatabaseClosedException if the log is closed
     * @throws IllegalArgumentException if the payload is larger than 128 MiB
     */
    public long append(byte[] payload, int offset, int length, Durability durability) {
        long lsn = appendNoWait(payload, offset, length, durability);
        if (durability instanceof Durability.Sync) {
            syncTo(lsn);
        }
        return lsn;
    }

    /**
     * Appends one record like {@link #append(byte[], int, int, Durability)} but returns without waiting
     * for the fsync that {@link Durability#SYNC} needs: the caller must call {@link #awaitDurable(long)}
     * before acknowledging the write. This lets an engine number a write and apply it to its memtable
     * under its own lock, and leave the lock before joining the group commit. The record is handed to the OS
     * before this returns ({@link #reserve} and {@link #write(ReservedRecord)} in one).
     */
    public long appendNoWait(byte[] payload, int offset, int length, Durability durability) {
        ReservedRecord record = reserve(payload, offset, length, durability);
        write(record);
        return record.lsn;
    }

    /**
     * The first half of an append: gives the record its LSN (records are numbered in the order their reservations
     * take the write lock) and buffers it, without writing it; {@link #write(ReservedRecord)} writes it. An owner
     * reserves under its own lock, which orders its writes, and writes after releasing it, so that its next writer
     * reserves while this one's write is in flight, and joins the next grouped write.
     *
     * @throws StorageIOException      if the file system fails (a segment roll), or failed earlier and the log
     *                                 cannot recover yet
     * @throws DatabaseClosedException if the log is closed
     * @throws IllegalArgumentException if the payload is larger than 128 MiB
     */
    public ReservedRecord reserve(byte[] payload, int offset, int length, Durability durability) {
        Objects.checkFromIndexSize(offset, length, payload.length);
        Objects.requireNonNull(durability, "durability");
        if (length > WalFormat.MAX_PAYLOAD) {
            throw new IllegalArgumentException("record of " + length + " bytes exceeds the limit of "
                    + WalFormat.MAX_PAYLOAD);
        }
        if (failure != null) {
            recoverFromFailure();
        }
        writeLock.lock();
        try {
            checkWritable();
            while (!current.isEmpty() && current.sealedEndAfter(length) > options.segmentSize()) {
                if (group.writing()) {
                    group.awaitIdle(); // the roll writes and seals the segment: no one else may write it meanwhile
                    checkWritable();
                    continue;
                }
                roll();
            }
            long lsn = nextLsn;
            if (lsn > WalFormat.MAX_LSN) {
                throw new IllegalStateException("write-ahead log " + dir + " has used every LSN");
            }
            ReservedRecord record = new ReservedRecord(lsn, length, durability);
            group.add(record);
            try {
                current.add(lsn, payload, offset, length); // allocates (the buffer's growth) before it changes anything
            } catch (RuntimeException | Error e) {
                group.removeLast(record);
                throw e;
            }
            nextLsn = lsn + 1;
            return record;
        } catch (IOException e) {
            throw fail("append to", e);
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * The second half of an append: returns once {@code record} (and every record reserved before it) is handed to
     * the OS and visible to readers (and, if it asked for {@code BATCHED}, its fsync requested). If a write is in
     * flight, waits for it, then the records reserved meanwhile are written in one write by one of their writers
     * (the group's leader). Not durable yet: a {@code SYNC} writer calls {@link #awaitDurable} next.
     *
     * <p>If the write fails (wholly or in part), no writer of the group is told otherwise: before any is told,
     * each of its records and every one reserved after them is cut from the log (from its buffer, and what the
     * write left in the file), their LSNs are handed out again, and the log fails as after a failed append (the
     * next reservation repairs it). A waiting writer is not interrupted: its record's outcome must be known.
     *
     * @throws StorageIOException if the write failed, now or earlier (the record was cut from the log); the leader
     *                            rethrows what its write threw if it was not an {@link IOException}
     */
    public void write(ReservedRecord record) {
        Throwable thrown = null; // what this thread's own write as the leader threw
        writeLock.lock();
        try {
            while (!record.written && record.cut == null) {
                if (group.writing()) {
                    awaitWriteEnd();
                } else {
                    thrown = writeGroup(true);
                }
            }
        } finally {
            writeLock.unlock();
        }
        Throwable cut = record.cut;
        if (cut != null) {
            if (cut == thrown && cut instanceof Error e) {
                throw e;
            }
            if (cut == thrown && cut instanceof RuntimeException e) {
                throw e; // a Vfs outside its contract: its caller gets what it threw, as from a single append
            }
            throw new StorageIOException("cannot append to write-ahead log " + dir + ": " + cut.getMessage(), cut);
        }
        appends.increment();
        appendedBytes.add(record.length);
        if (record.durability instanceof Durability.Batched batched) {
            syncer.request(record.lsn, batched.maxDelay());
        }
    }

    /**
     * Waits (releasing the write lock) until the write in flight ends: first spinning, up to {@link #SPIN_NANOS},
     * then parked. A group's write takes microseconds, and waking a parked thread as long again: with two writers on
     * two processors, parking each time one waited for the other's write halved their throughput (RocksDB's writers
     * spin, then yield, then block). Under the write lock.
     */
    private void awaitWriteEnd() {
        long ends = group.ends();
        writeLock.unlock();
        try {
            long deadline = System.nanoTime() + SPIN_NANOS;
            while (group.ends() == ends && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
        } finally {
            writeLock.lock();
        }
        if (group.writing() && group.ends() == ends) {
            group.awaitEnd(); // checked under the lock, which end() holds: no end passes unseen
        }
    }

    /**
     * Returns once every record up to {@code lsn} is durable, joining (or leading) a group commit.
     *
     * @throws StorageIOException if the fsync fails, now or earlier
     */
    public void awaitDurable(long lsn) {
        syncTo(lsn);
    }

    /**
     * Makes every record up to {@code lsn} durable, sharing the fsync with concurrent callers (the group
     * commit described in the class comment). At most one leader fsyncs at a time; everyone else waits
     * on {@link #syncMonitor} — not in a queue for the leader's role — and is woken when the leader's
     * fsync ends, so that all records it covered are acknowledged together and the next group forms
     * from whoever is still waiting.
     */
    void syncTo(long lsn) {
        while (durableLsn.get() < lsn) {
            if (failure != null) {
                recoverFromFailure(); // throws if it cannot: the records are then not durable
                continue;
            }
            if (!becomeLeader(lsn)) {
                continue; // durable now, or the log failed or closed: the loop condition or the next call tells
            }
            SegmentWriter writer = null;
            boolean forced = false;
            try {
                long upTo = 0;
                long written = 0;
                int seen = 0;
                writeLock.lock();
                try {
                    checkOpen();
                    group.awaitIdle();
                    if (failure == null && !group.isEmpty()) {
                        writeGroup(false); // records reserved and not yet written: a sync covers them
                    }
                    // Another writer's write may have failed since the check above. That is not this caller's
                    // failure: its record is written, and the repair at the top of the loop makes it durable (or
                    // reports its own failure).
                    if (failure == null) {
                        if (lsn >= nextLsn) {
                            // Records reserved up to lsn were cut, their write failed (their writers were told):
                            // what is left is all there is to make durable.
                            lsn = nextLsn - 1;
                        }
                        writer = current;
                        upTo = nextLsn - 1;
                        written = writer.written();
                        seen = writer.forceStarting(); // a roll waits for this fsync's outcome before it seals the segment
                    }
                } finally {
                    writeLock.unlock();
                }
                if (writer == null) {
                    continue; // the finally below gives up the leader's role first
                }
                // The event is telemetry: whatever it throws, the fsync runs and its records are published
                // durable before the event is committed, so it can neither wedge the log nor report a durable
                // write as failed.
                SyncEvents.Timing timing = beginSyncEvent();
                long records = 0;
                long bytes = 0;
                if (timing != null) {
                    records = upTo - durableLsn.get();
                    bytes = written - writer.syncedTo();
                }
                writer.force(written, seen);
                forced = true;
                if (timing != null) {
                    reportSync(timing, true, records, bytes);
                }
                madeDurable(upTo);
                if (timing != null) {
                    reportSync(timing, false, records, bytes);
                }
            } catch (IOException e) {
                throw fail("fsync", e);
            } catch (RuntimeException | Error e) {
                if (writer != null && !forced) {
                    // An fsync that failed otherwise (a Vfs outside its contract, an Error) may have dropped its pages
                    // as one that threw an IOException: the log fails alike, or the next leader's fsync would succeed
                    // and publish durable what the disk lost.
                    fail("fsync", asIOException(e));
                }
                throw e;
            } finally {
                if (writer != null) {
                    writer.forceEnded(forced); // after fail(): a roll waiting for it then finds the log failed
                }
                closeRetiredQuietly();
                endLeadership();
            }
        }
    }

    /** Starts timing an fsync, or null if nothing wants it or the events failed: see {@link #syncEventFailed}. */
    private SyncEvents.Timing beginSyncEvent() {
        if (syncEventsFailed) {
            return null;
        }
        try {
            return syncEvents.begin();
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) {
            syncEventFailed(e);
            return null;
        }
    }

    /** Ends ({@code end}) or commits the fsync's event; what fails is {@link #syncEventFailed}. */
    private void reportSync(SyncEvents.Timing timing, boolean end, long records, long bytes) {
        if (syncEventsFailed) {
            return;
        }
        try {
            if (end) {
                timing.end();
            } else {
                timing.commit(dir, records, bytes);
            }
        } catch (VirtualMachineError e) {
            // Not swallowed: the JVM may be unable to go on. Thrown after the fsync was published (the
            // commit comes after madeDurable), so no writer is told its durable write failed but this one.
            throw e;
        } catch (Throwable e) {
            syncEventFailed(e);
        }
    }

    /**
     * The fsync's event failed: a class that cannot be initialised (a runtime without jdk.jfr), a recorder's bug.
     * Whatever it is, it would fail alike at every sync, so the log stops reporting syncs and says so once;
     * the sync itself is unaffected. Everything but a {@link VirtualMachineError} is taken as such a failure
     * (a {@link LinkageError} above all: what a missing or broken event class throws).
     */
    private void syncEventFailed(Throwable e) {
        syncEventsFailed = true;
        LOG.log(System.Logger.Level.WARNING, "write-ahead log " + dir + ": its fsync events (JFR dev.lacuna.LogSync)"
                + " failed and are no longer reported; the log works on: " + e, e);
    }

    /**
     * Waits until {@code lsn} is durable or no leader is active; in the latter case takes the leader's
     * role and returns true.
     *
     * @throws StorageIOException      if the log has failed
     * @throws DatabaseClosedException if the log closed before {@code lsn} became durable
     */
    private boolean becomeLeader(long lsn) {
        synchronized (syncMonitor) {
            while (true) {
                if (durableLsn.get() >= lsn) {
                    return false;
                }
                if (failure != null) {
                    return false; // the caller recovers the log first
                }
                if (syncClosed) {
                    throw new DatabaseClosedException("write-ahead log " + dir);
                }
                if (!leaderActive) {
                    leaderActive = true;
                    leader = Thread.currentThread();
                    return true;
                }
                try {
                    syncMonitor.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new StorageIOException("interrupted while waiting for the log's fsync", e);
                }
            }
        }
    }

    private void endLeadership() {
        synchronized (syncMonitor) {
            leaderActive = false;
            leader = null;
            syncMonitor.notifyAll();
        }
    }

    /** Makes everything appended so far durable. */
    public void sync() {
        long last;
        writeLock.lock();
        try {
            checkOpen();
            last = nextLsn - 1;
        } finally {
            writeLock.unlock();
        }
        syncTo(last);
    }

    /**
     * A reader of the records with LSN ≥ {@code fromLsn}, in LSN order, following the log as it grows.
     * The caller closes it.
     *
     * @throws IllegalArgumentException if {@code fromLsn} is below {@link #firstLsn()} (no longer retained)
     *                                  or above {@link #lastLsn()} + 1
     */
    public WalReader reader(long fromLsn) {
        return reader(fromLsn, -1, -1);
    }

    /**
     * {@link #reader(long)}, starting at byte {@code offset} of segment {@code segment} if that is where record
     * {@code fromLsn} starts (a position an earlier reader reported, {@link WalReader#segment()} and
     * {@link WalReader#offset()}), instead of reading the segment from its start up to it. A hint that turns out
     * wrong (a log rewritten after a crash, say) is dropped and the segment read from its start: it never changes
     * what the reader returns, only what it costs.
     *
     * @param segment the segment of the hint, or -1 for none
     * @param offset  the offset of the hint in it
     */
    public WalReader reader(long fromLsn, long segment, long offset) {
        writeLock.lock();
        try {
            checkOpen();
            long first = segments.firstEntry().getValue();
            if (fromLsn < first || fromLsn > nextLsn) {
                throw new IllegalArgumentException("LSN " + fromLsn + " is outside the log, which holds "
                        + first + " to " + (nextLsn - 1));
            }
        } finally {
            writeLock.unlock();
        }
        return new WalReader(this, vfs, fromLsn, segment, offset);
    }

    /** LSN of the oldest retained record (or of the next record, if none is retained). */
    public long firstLsn() {
        writeLock.lock();
        try {
            return segments.firstEntry().getValue();
        } finally {
            writeLock.unlock();
        }
    }

    /** LSN of the last record appended (0 if none ever was). */
    public long lastLsn() {
        writeLock.lock();
        try {
            return nextLsn - 1;
        } finally {
            writeLock.unlock();
        }
    }

    /** Every record up to this LSN has been fsynced. */
    public long durableLsn() {
        return durableLsn.get();
    }

    /** Bytes of torn tail that recovery cut from the last segment when this log was opened. */
    public long droppedTailBytes() {
        return droppedTail;
    }

    /**
     * Records that consumer {@code name} no longer needs records up to {@code lsn} (its durable
     * checkpoint). Registers the consumer on first call. Checkpoints are not persisted by the log: the
     * owner (the manifest) keeps them and registers them again after a reopen, before trimming.
     */
    public void setCheckpoint(String name, long lsn) {
        Objects.requireNonNull(name, "name");
        synchronized (checkpoints) {
            checkpoints.put(name, lsn);
        }
    }

    /** Forgets consumer {@code name}; its checkpoint no longer holds segments back. */
    public void removeCheckpoint(String name) {
        synchronized (checkpoints) {
            checkpoints.remove(name);
        }
    }

    /** The registered consumers and their checkpoints. */
    public Map<String, Long> checkpoints() {
        synchronized (checkpoints) {
            return Map.copyOf(checkpoints);
        }
    }

    /**
     * Deletes every segment whose records are all at or below both {@code flushedLsn} (the owner's data up
     * to there is stored elsewhere) and every consumer's checkpoint. The segment being written is kept. A
     * segment that cannot be deleted is no error (it is logged, and tried again at the next trim or open).
     *
     * @return the number of segments deleted
     */
    public int deleteObsoleteSegments(long flushedLsn) {
        // One trim at a time: segments a failed deletion puts back must be deleted before any later one.
        synchronized (trimLock) {
            return trim(flushedLsn);
        }
    }

    /**
     * Seals the segment being written and starts the next one, if it holds records: a trim never deletes the
     * segment being written, so an owner about to store every record elsewhere (an explicit flush) calls this for
     * {@link #deleteObsoleteSegments} to be able to delete them all afterwards, instead of leaving them for every
     * open to read until later records fill the segment. Nothing happens if the log failed earlier (the next append
     * recovers it; a trim can wait).
     *
     * @return whether a new segment was started
     * @throws StorageIOException      if the file system fails (the log then refuses appends, as after a failed
     *                                 append)
     * @throws DatabaseClosedException if the log is closed
     */
    public boolean rollIfNotEmpty() {
        writeLock.lock();
        try {
            checkOpen();
            group.awaitIdle();
            if (failure != null || current.isEmpty()) {
                return false;
            }
            roll();
            return true;
        } catch (IOException e) {
            throw fail("start a new segment of", e);
        } finally {
            writeLock.unlock();
        }
    }

    private int trim(long flushedLsn) {
        long keepAbove = flushedLsn;
        synchronized (checkpoints) {
            for (long checkpoint : checkpoints.values()) {
                keepAbove = Math.min(keepAbove, checkpoint);
            }
        }
        List<Long> obsolete = new ArrayList<>();
        Map<Long, Long> firstLsnOfDeleted = new HashMap<>();
        writeLock.lock();
        try {
            checkOpen();
            Long number = segments.firstKey();
            while (number != current.number()) {
                Long next = segments.higherKey(number);
                long lastLsnOfSegment = segments.get(next) - 1;
                if (lastLsnOfSegment > keepAbove) {
                    break;
                }
                obsolete.add(number);
                number = next;
            }
            for (long n : obsolete) {
                firstLsnOfDeleted.put(n, segments.remove(n));
                sealedBytes.remove(n); // one put back after a failed delete counts as a whole segment
            }
        } finally {
            writeLock.unlock();
        }
        if (obsolete.isEmpty()) {
            return 0;
        }
        int deleted = 0;
        try {
            for (long number : obsolete) { // oldest first, so a crash midway leaves a contiguous log
                vfs.delete(dir.resolve(WalFormat.segmentName(number)));
                segmentsDeleted.incrementAndGet();
                deleted++;
            }
            vfs.syncDirectory(dir);
        } catch (IOException e) {
            // Not an error: what the owner needs is stored elsewhere already. The segments not deleted go back
            // into the log, oldest first, so the next trim deletes them before any later one and the log on
            // disk never has a gap (which recovery would refuse); the next open replays them harmlessly.
            List<Long> left = obsolete.subList(deleted, obsolete.size());
            writeLock.lock();
            try {
                for (long number : left) {
                    Long first = firstLsnOfDeleted.get(number);
                    segments.put(number, first);
                }
            } finally {
                writeLock.unlock();
            }
            LOG.log(System.Logger.Level.WARNING, "cannot delete obsolete write-ahead log segment "
                    + (left.isEmpty() ? "(directory sync)" : left.get(0)) + " in " + dir + "; trying again at the next"
                    + " trim: " + e);
        }
        return deleted;
    }

    /**
     * Copies the log, from the segment holding {@code fromLsn} through the last record handed to the OS, into
     * the directory {@code dest} (which exists and holds no segments): what a checkpoint of the store needs.
     * Sealed segments never change, so they are linked ({@link Vfs#link}); the segment being written is copied
     * up to the end of its last whole record, so the copy ends at a record boundary, as a clean close would
     * leave it, never in a torn record. Every file is forced and {@code dest} synced before this returns.
     * Call {@link #sync()} first for the copy to hold every record appended before; the caller keeps the
     * segments from {@code fromLsn} on from being trimmed meanwhile (with a {@link #setCheckpoint}).
     *
     * @return the last LSN the copy holds ({@code fromLsn - 1} or more)
     * @throws IllegalArgumentException if the log no longer holds {@code fromLsn}
     * @throws IOException              if reading the log or writing the copy fails
     */
    public long copyTo(Path dest, long fromLsn) throws IOException {
        Objects.requireNonNull(dest, "dest");
        Visible upTo;
        List<Long> numbers = new ArrayList<>();
        writeLock.lock();
        try {
            checkOpen();
            upTo = visible;
            long first = segments.firstEntry().getValue();
            if (fromLsn < first || fromLsn > nextLsn) {
                throw new IllegalArgumentException("LSN " + fromLsn + " is outside the log, which holds "
                        + first + " to " + (nextLsn - 1));
            }
            for (Map.Entry<Long, Long> e : segments.headMap(upTo.segment(), true).descendingMap().entrySet()) {
                numbers.add(0, e.getKey());
                if (e.getValue() <= fromLsn) {
                    break; // the segment holding fromLsn: older ones are not needed
                }
            }
        } finally {
            writeLock.unlock();
        }
        for (long number : numbers) {
            Path from = segmentPath(number);
            Path to = dest.resolve(WalFormat.segmentName(number));
            if (number < upTo.segment()) {
                vfs.link(from, to); // sealed: complete and fsynced before its successor was created
            } else {
                copyPrefix(from, to, upTo.offset());
            }
            try (var copy = vfs.open(to)) {
                copy.force();
            }
        }
        vfs.syncDirectory(dest);
        return upTo.lastLsn();
    }

    /** Creates {@code to} holding the first {@code length} bytes of {@code from}. */
    private void copyPrefix(Path from, Path to, long length) throws IOException {
        try (var source = vfs.openReadOnly(from); var target = vfs.create(to)) {
            byte[] chunk = new byte[(int) Math.min(1 << 20, Math.max(1, length))];
            for (long position = 0; position < length; ) {
                int n = (int) Math.min(chunk.length, length - position);
                source.readFully(position, chunk, 0, n);
                target.write(position, chunk, 0, n);
                position += n;
            }
        }
    }

    /**
     * Copies the segments of a log that another process has open (and may be writing, sealing and trimming)
     * from {@code walDir} into {@code dest}, which exists: what a crash at one instant would leave, for a copy
     * of a store made from outside it, newest segment first. Every segment but the newest in the listing has a
     * successor, so it was sealed and forced before that was created: it is linked. The newest is copied as its bytes are now; it may
     * end in a record cut short, as a crash leaves it, which recovery reads as a torn tail. A segment trimmed
     * meanwhile is left out: if the copy needed it, opening the copy refuses it for a log that no longer holds
     * what recovery needs, and the caller copies again. The lock file is not copied. Every file is forced and
     * {@code dest} synced before this returns.
     *
     * @return the segments copied
     * @throws IOException if listing, reading or writing fails
     */
    public static int copyForeign(Vfs vfs, Path walDir, Path dest) throws IOException {
        java.util.TreeMap<Long, String> found = new java.util.TreeMap<>();
        for (String name : vfs.list(walDir)) {
            long number = WalFormat.parseSegmentName(name);
            if (number >= 0) {
                found.put(number, name);
            }
        }
        int copied = 0;
        // Newest first: the other process trims the oldest segments, so one it deletes under the copy is older
        // than every segment copied, never a hole between two of them.
        for (Map.Entry<Long, String> e : found.descendingMap().entrySet()) {
            Path from = walDir.resolve(e.getValue());
            Path to = dest.resolve(e.getValue());
            try {
                if (e.getKey() < found.lastKey()) {
                    vfs.link(from, to);
                } else {
                    copyWhole(vfs, from, to);
                }
            } catch (java.nio.file.NoSuchFileException gone) {
                continue; // trimmed after the listing
            }
            try (var copy = vfs.open(to)) {
                copy.force();
            }
            copied++;
        }
        vfs.syncDirectory(dest);
        return copied;
    }

    /** Creates {@code to} holding what {@code from} holds now. */
    private static void copyWhole(Vfs vfs, Path from, Path to) throws IOException {
        try (var source = vfs.openReadOnly(from); var target = vfs.create(to)) {
            long length = source.size();
            byte[] chunk = new byte[(int) Math.min(1 << 20, Math.max(1, length))];
            for (long position = 0; position < length; ) {
                int n = (int) Math.min(chunk.length, length - position);
                source.readFully(position, chunk, 0, n);
                target.write(position, chunk, 0, n);
                position += n;
            }
        }
    }

    /**
     * The first LSN the log must keep for its segments to total at most {@code maxBytes}, counting from the
     * newest: the first LSN of the oldest segment that still fits. The segment being written always counts,
     * however large; {@link #firstLsn()} if the whole log fits. An owner that wants the log within a size
     * moves to tables (flushes) its unflushed records below this LSN, then trims.
     */
    public long firstLsnWithin(long maxBytes) {
        writeLock.lock();
        try {
            checkOpen();
            long total = current.end();
            long keepFrom = current.firstLsn();
            for (Map.Entry<Long, Long> e : segments.headMap(current.number(), false).descendingMap().entrySet()) {
                total += sealedBytes.getOrDefault(e.getKey(), options.segmentSize());
                if (total > maxBytes) {
                    break;
                }
                keepFrom = e.getValue();
            }
            return keepFrom;
        } finally {
            writeLock.unlock();
        }
    }

    /** Bytes the log's segments take now: the sealed ones and the one being written, as far as written. */
    public long sizeBytes() {
        writeLock.lock();
        try {
            checkOpen();
            long total = current.end();
            for (long number : segments.headMap(current.number(), false).keySet()) {
                total += sealedBytes.getOrDefault(number, options.segmentSize());
            }
            return total;
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * The segments the log holds now: the sealed ones not yet trimmed and the one being written. Known without
     * listing the directory, so asking can never fail on the file system.
     */
    public int segmentCount() {
        writeLock.lock();
        try {
            checkOpen();
            return segments.size();
        } finally {
            writeLock.unlock();
        }
    }

    /** Counters since the log was opened. */
    public WalStats stats() {
        return new WalStats(appends.sum(), appendedBytes.sum(), fsyncs.get(), syncedRecords.get(),
                largestGroup.get(), segmentsCreated.get(), segmentsDeleted.get());
    }

    /**
     * Whether {@code t} is a thread {@link #close} waits for: the log's own (its batched-durability syncer), or an
     * appender's while it leads a group's write and fsync. An owner's close that waits for this log's close must not
     * wait for anything done on such a thread (a file system hook there closing the owner).
     */
    public boolean runsOn(Thread t) {
        return t != null && (t == leader || t == group.leader() || syncer.runsOn(t));
    }

    /**
     * Makes everything appended durable (unless the log has failed), stops the sync thread, closes the
     * files and releases the directory lock. Readers see no new records afterwards. Idempotent. An interrupt
     * does not cut it short: it waits for an fsync in flight all the same, and sets the thread's interrupt flag
     * again before it returns.
     *
     * @throws StorageIOException if the final fsync fails
     */
    @Override
    public void close() {
        syncer.stop();
        boolean interrupted = false;
        synchronized (syncMonitor) {
            // Wait for a running leader to finish, then keep the role so that no fsync races the close. Through an
            // interrupt too (the flag is set again below): a close that gave up here left the log, its segment
            // files and wal/LOCK open for good, as the store above takes the close as done.
            while (leaderActive) {
                try {
                    syncMonitor.wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (syncClosed) {
                restoreInterrupt(interrupted);
                return;
            }
            syncClosed = true;
        }
        try {
            closeFiles();
        } finally {
            restoreInterrupt(interrupted); // only now: an interrupted thread's I/O on NioVfs's channels would fail
        }
    }

    private static void restoreInterrupt(boolean interrupted) {
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The rest of {@link #close()}, once it holds the group commit's role: seals and closes every file. */
    private void closeFiles() {
        IOException error = null;
        writeLock.lock();
        try {
            group.awaitIdle();
            if (!group.isEmpty()) {
                writeGroup(false); // written, or cut if the log failed: either way no writer waits for good
            }
            closed = true;
            if (failure == null) {
                try {
                    current.seal();
                    madeDurable(current.lastLsn());
                } catch (IOException e) {
                    error = e;
                    failure = e;
                }
            }
            retired.add(current);
            error = closeRetired(error);
            try {
                dirLock.close();
            } catch (IOException e) {
                error = addTo(error, e);
            }
        } finally {
            writeLock.unlock();
        }
        synchronized (syncMonitor) {
            syncMonitor.notifyAll(); // waiters find their records durable (sealed above) or the log closed
        }
        wakeReaders();
        if (error != null) {
            throw new StorageIOException("error closing write-ahead log in " + dir, error);
        }
    }

    // ---- package-private, for WalReader and BatchedSyncer ----

    Visible visible() {
        return visible;
    }

    boolean isClosed() {
        return closed;
    }

    /** The segment holding {@code lsn}: the newest whose first LSN is at most {@code lsn}; null if none is retained. */
    Map.Entry<Long, Long> segmentContaining(long lsn) {
        for (Map.Entry<Long, Long> e : segments.descendingMap().entrySet()) {
            if (e.getValue() <= lsn) {
                return Map.entry(e.getKey(), e.getValue());
            }
        }
        return null;
    }

    /** The first LSN of segment {@code number}, or null if it is not (or no longer) part of the log. */
    Long firstLsnOf(long number) {
        return segments.get(number);
    }

    Path segmentPath(long number) {
        return dir.resolve(WalFormat.segmentName(number));
    }

    /**
     * Waits until a record with LSN ≥ {@code lsn} is visible, the log closes, {@code woken} answers true (asked under
     * the tail's monitor, so that a {@link #wakeReaders} after it was set is never missed), or {@code timeoutNanos}
     * pass.
     */
    void awaitVisible(long lsn, long timeoutNanos, java.util.function.BooleanSupplier woken)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        synchronized (tail) {
            tailWaiters++;
            try {
                // tailWaiters is raised before visible is re-read, and the writer publishes visible before
                // reading tailWaiters: one of the two always sees the other.
                while (visible.lastLsn() < lsn && !closed && !woken.getAsBoolean()) {
                    long remaining = deadline - System.nanoTime();
                    if (remaining <= 0) {
                        return;
                    }
                    tail.wait(remaining / 1_000_000, (int) (remaining % 1_000_000));
                }
            } finally {
                tailWaiters--;
            }
        }
    }

    // ---- internals ----

    private void checkOpen() {
        if (closed) {
            throw new DatabaseClosedException("write-ahead log " + dir);
        }
    }

    private void checkWritable() {
        checkOpen();
        Throwable failed = failure;
        if (failed != null) {
            throw refused(failed);
        }
    }

    /**
     * Recovers from a failed write or fsync, so that appends may go on: under the leader's role (no fsync
     * runs) and the write lock, the damaged segment's tail is cut, every record it holds is written again,
     * fsynced, read back and checked, the segment is sealed, and a new segment started
     * ({@link SegmentWriter#rewriteAfterFailure}). Records whose writers were told their write failed are
     * not among them (see {@link #appendNoWait}); the others were given LSNs and may already be visible to
     * the owner (a {@code NONE} write), so they are all kept: dropping one would lose what a reader saw, and
     * leave a gap in the LSNs that recovery refuses.
     *
     * @throws StorageIOException if the log cannot recover now (it tries again on the next call), or never
     *                            will (the records read back wrong, the failure was not an I/O error)
     */
    private void recoverFromFailure() {
        synchronized (syncMonitor) {
            while (leaderActive) {
                try {
                    syncMonitor.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new StorageIOException("interrupted while waiting to recover the log", e);
                }
            }
            if (failure == null) {
                return; // another thread recovered it
            }
            if (syncClosed) {
                throw new DatabaseClosedException("write-ahead log " + dir);
            }
            leaderActive = true;
            leader = Thread.currentThread();
        }
        try {
            writeLock.lock();
            try {
                group.awaitIdle();
                Throwable failed = failure;
                if (failed == null) {
                    return;
                }
                if (!group.isEmpty()) {
                    // Reserved before the failure and not written: refused, as an append after it is.
                    cutPending(refused(failed), null, null);
                }
                if (closed) {
                    throw new DatabaseClosedException("write-ahead log " + dir);
                }
                if (permanentFailure || !(failed instanceof IOException)) {
                    throw refused(failed);
                }
                SegmentWriter old = current;
                try {
                    if (!old.isSealed()) {
                        old.rewriteAfterFailure();
                        old.seal();
                    }
                    madeDurable(old.lastLsn());
                    long number = old.number() + 1;
                    Path next = dir.resolve(WalFormat.segmentName(number));
                    if (vfs.exists(next)) {
                        vfs.delete(next); // a creation that failed: it never held a record
                    }
                    current = SegmentWriter.create(vfs, dir, number, nextLsn, options);
                } catch (IOException e) {
                    e.addSuppressed(failed);
                    failure = e;
                    throw new StorageIOException("write-ahead log " + dir + " refuses appends: recovering from an"
                            + " I/O error failed (tried again on the next append): " + e.getMessage(), e);
                } catch (RuntimeException e) {
                    e.addSuppressed(failed);
                    failure = e;
                    permanentFailure = true;
                    throw refused(e);
                }
                segments.put(current.number(), nextLsn);
                sealedBytes.put(old.number(), old.written()); // as a roll records it, for the log's size
                segmentsCreated.incrementAndGet();
                retired.add(old);
                visible = new Visible(current.number(), current.written(), nextLsn - 1);
                failure = null;
                LOG.log(System.Logger.Level.INFO, "write-ahead log " + dir + " recovered from an I/O error ("
                        + failed.getMessage() + "): segment " + old.number() + " sealed, appends go on in segment "
                        + current.number());
            } finally {
                writeLock.unlock();
            }
            wakeReaders();
        } finally {
            closeRetiredQuietly();
            endLeadership();
        }
    }

    private StorageIOException refused(Throwable cause) {
        return new StorageIOException("write-ahead log " + dir + " refuses appends after an I/O error: "
                + cause.getMessage(), cause);
    }

    private StorageIOException fail(String what, IOException e) {
        if (failure == null) {
            failure = e;
        }
        synchronized (syncMonitor) {
            syncMonitor.notifyAll(); // waiting followers recover the log, or report the failure
        }
        return new StorageIOException("cannot " + what + " write-ahead log " + dir + ": " + e.getMessage(), e);
    }

    /**
     * Under the write lock, with records pending and no write in flight: writes them all in one write (the
     * group), releasing the lock meanwhile if {@code unlocked}, and lets readers see them. If the write fails, or
     * the log failed before it, cuts the group and every record reserved after it ({@link #cutPending}).
     *
     * @return what the write threw, or null
     */
    private Throwable writeGroup(boolean unlocked) {
        if (failure != null) {
            // The log failed (an fsync, a roll) since these records were reserved: they are refused unwritten, as
            // an append is after a failure; the next reservation repairs the log.
            Throwable refused = refused(failure);
            cutPending(refused, null, null);
            return refused;
        }
        SegmentWriter writer = current;
        SegmentWriter.Taken taken = writer.take();
        group.begin(unlocked);
        Throwable thrown = null;
        if (unlocked) {
            writeLock.unlock();
        }
        try {
            writer.write(taken);
        } catch (Throwable e) { // an Error too: the group's writers must learn the outcome, or they wait for good
            thrown = e;
        } finally {
            if (unlocked) {
                writeLock.lock();
            }
        }
        if (thrown == null) {
            writer.written(taken);
            group.written(); // allocates nothing: its writers learn their outcome whatever follows
            visible = new Visible(writer.number(), writer.written(), taken.lastLsn());
            wakeReaders();
            return null;
        }
        cutPending(thrown, writer, taken);
        return thrown;
    }

    /**
     * Under the write lock, with no write in flight: cuts every record reserved and not written, so that none is
     * written later nor replayed by a reopen, and tells their writers (a write that failed before a later one
     * succeeds would leave a hole in the log, or a record after a torn one). Their LSNs are handed out again. If
     * {@code taken} was written in part, that part is cut from the file first, and the log fails as after a failed
     * append: the next reservation repairs it.
     */
    private void cutPending(Throwable cause, SegmentWriter writer, SegmentWriter.Taken taken) {
        long first = group.firstLsn();
        current.cut(first, taken);
        nextLsn = first;
        Throwable told = cause;
        try {
            if (writer != null) {
                // Failed first: the repair cuts the file again before anything is written after the records, or
                // whole records of the group past a shorter later one would be read back by recovery.
                fail("append to", cause instanceof IOException io ? io : asIOException(cause));
                try {
                    writer.truncateToWritten();
                } catch (IOException | RuntimeException e) {
                    // Until the repair, a reopen may read whole records of the group back from the file: their
                    // writers are not told "failed", which a crash could belie, but that the outcome is unknown.
                    LOG.log(System.Logger.Level.WARNING, "write-ahead log " + dir + ": cannot cut a failed write"
                            + " from segment " + writer.number() + " (the next append's repair cuts it): " + e);
                    IOException unknown = new IOException("the write failed (" + cause.getMessage() + ") and cutting"
                            + " what it left from segment " + writer.number() + " failed too (" + e.getMessage()
                            + "): until the log's repair on the next append, a crash may replay it, so whether it"
                            + " took effect is unknown", cause);
                    unknown.addSuppressed(e);
                    told = unknown;
                }
            }
        } finally {
            group.cutAll(told); // however the above ends, no writer of the group waits for good
        }
    }

    /** Wakes the readers waiting in {@link #awaitVisible}, each to check again what it waits for. */
    void wakeReaders() {
        if (tailWaiters > 0) {
            synchronized (tail) {
                tail.notifyAll();
            }
        }
    }

    /** Under the write lock: seals the current segment and starts the next one. */
    private void roll() throws IOException {
        try {
            rollOnce();
        } catch (RuntimeException | Error e) {
            // Failing otherwise (a Vfs outside its contract, an Error in the new segment's zero fill), it may have
            // sealed the old segment and left it current: the log fails as for an IOException, so that the next
            // append repairs it rather than add records past the seal (recovery refuses data after a seal).
            fail("start a new segment of", asIOException(e));
            throw e;
        }
    }

    /** A failure other than an IOException, as the IOException the log's failure records. */
    private static IOException asIOException(Throwable e) {
        return e instanceof UncheckedIOException u ? u.getCause() : new IOException(e);
    }

    private void rollOnce() throws IOException {
        if (!group.isEmpty()) {
            Throwable e = writeGroup(false); // the records reserved before the roll end the segment
            if (e != null) {
                throw new IOException("the records before a segment roll could not be written: " + e, e);
            }
        }
        SegmentWriter old = current;
        // Ends with an fsync: the old segment is complete on disk before its successor exists. It first waits for a
        // group commit's fsync of the segment that is still running (the leader fsyncs without this lock) and
        // refuses to seal over one that failed: that fsync may have dropped records from the disk that the seal's
        // own fsync would then count durable. Appends wait meanwhile; tailing readers do not (they take no lock).
        old.seal();
        sealedBytes.put(old.number(), old.written());
        madeDurable(old.lastLsn());
        long number = old.number() + 1;
        if (number > WalFormat.MAX_SEGMENT) {
            throw new IOException("write-ahead log " + dir + " has used every segment number");
        }
        current = SegmentWriter.create(vfs, dir, number, nextLsn, options);
        segments.put(number, nextLsn);
        segmentsCreated.incrementAndGet();
        retired.add(old);
        visible = new Visible(number, current.written(), nextLsn - 1);
        wakeReaders();
        // A leader may still be fsyncing the old file; only close it when no leader is running. A leader
        // that starts later captures the new segment (it needs the write lock we hold to see any).
        boolean noLeader;
        synchronized (syncMonitor) {
            noLeader = !leaderActive;
        }
        if (noLeader) {
            IOException error = closeRetired(null);
            if (error != null) {
                throw error;
            }
        }
    }

    /**
     * Calls {@code listener} with the durable LSN each time the log is made durable further (by a group
     * commit, a segment roll or close), from the thread that did it: the store above learns of every fsync,
     * not only of those its waiting writers see. Set it before the first append; it must not block or call
     * back into the log.
     */
    public void onDurable(LongConsumer listener) {
        this.durableListener = Objects.requireNonNull(listener, "listener");
    }

    private void madeDurable(long upTo) {
        long before = durableLsn.getAndAccumulate(upTo, Math::max);
        durableListener.accept(Math.max(before, upTo));
        long group = upTo - before;
        fsyncs.incrementAndGet();
        if (group > 0) {
            syncedRecords.addAndGet(group);
            largestGroup.accumulateAndGet(group, Math::max);
        }
    }

    /**
     * Closes sealed segments' writers; called only while no leader can be fsyncing them (by the leader
     * itself, or with no leader active).
     */
    private void closeRetired() throws IOException {
        List<SegmentWriter> toClose;
        writeLock.lock();
        try {
            toClose = new ArrayList<>(retired);
            retired.clear();
        } finally {
            writeLock.unlock();
        }
        IOException error = null;
        for (SegmentWriter writer : toClose) {
            try {
                writer.close();
            } catch (IOException e) {
                error = addTo(error, e);
            }
        }
        if (error != null) {
            throw error;
        }
    }

    private void closeRetiredQuietly() {
        try {
            closeRetired();
        } catch (IOException e) {
            // The segments were sealed and fsynced before they were retired: a failed close loses nothing.
        }
    }

    private IOException closeRetired(IOException error) {
        try {
            closeRetired();
        } catch (IOException e) {
            error = addTo(error, e);
        }
        return error;
    }

    private static IOException addTo(IOException error, IOException e) {
        if (error == null) {
            return e;
        }
        error.addSuppressed(e);
        return error;
    }

    private static void releaseQuietly(VfsLock lock, Throwable primary) {
        if (lock != null) {
            try {
                lock.close();
            } catch (IOException | RuntimeException | Error e) {
                primary.addSuppressed(e);
            }
        }
    }
}
