package dev.lacuna;

import dev.lacuna.storage.Durability;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.vfs.NioVfs;
import dev.lacuna.vfs.Vfs;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a {@link Database}. Immutable; build with {@link #builder()}.
 *
 * @param vfs        the file system (real files by default; {@link dev.lacuna.vfs.MemVfs} runs a database in memory)
 * @param durability how durable a write is when it returns, unless the request names its own
 *                   ({@link Durability#SYNC} by default: it survives power loss)
 * @param clock      the time source (table creation times, transaction token lifetimes, tombstone ages, item
 *                   expiry under time to live)
 * @param storage    tuning of the storage engine (memtable sizes, caches, compaction); its file system,
 *                   durability, clock, key prefix and keyspace routing are set by the database
 * @param returnExpiredItems whether reads return items whose time to live has passed but which the sweeper
 *                   has not deleted yet, as DynamoDB does (false by default: reads hide them)
 * @param timeToLiveSweepInterval how long the time-to-live sweeper rests between passes over the tables with
 *                   time to live enabled (one minute by default); an expired item is deleted within about this
 *                   long plus the time of a pass
 * @param streamRetention how long change streams keep a record (24 hours by default, as DynamoDB), measured by
 *                   {@code clock} from the record's write time: a stream consumer further behind than this loses
 *                   the older records (it is told so: {@link TrimmedDataAccessException}), and the log is trimmed.
 *                   Enforced by the background thread after each time-to-live pass and by {@link Database#flush()}
 * @param timeToLiveSweepRate at most this many expired items deleted per second by the sweeper
 *                   ({@value #DEFAULT_SWEEP_RATE} by default; 0 for no limit), so that a large backlog of expired
 *                   items is worked off beside the application's writes instead of competing with them for the
 *                   processor and the log: a backlog of N items is gone within about N / rate seconds
 * @param maxIndexLagRecords how many log records a global secondary index may be behind the log before writes
 *                   to its table are held back ({@value #DEFAULT_MAX_INDEX_LAG_RECORDS} by default; 0 for no
 *                   limit), as DynamoDB throttles writes to a table whose GSI cannot keep up: past half of it
 *                   each write waits up to a millisecond for the index's updater, at it writes stall until the
 *                   lag is back under it. It bounds how long a read-your-writes query waits and how much log an
 *                   index's checkpoint keeps. Writes to other tables are not held, though their records count
 *                   in the lag (the updater reads the whole log; it passes over other tables' records quickly).
 *                   The time writers were held and why: {@link IndexDescription#writeStallMillis()}
 */
public record DatabaseOptions(Vfs vfs, Durability durability, Clock clock, KvOptions storage,
                              boolean returnExpiredItems, Duration timeToLiveSweepInterval, Duration streamRetention,
                              int timeToLiveSweepRate, long maxIndexLagRecords) {
    /** How long the sweeper rests between passes, unless set. */
    public static final Duration DEFAULT_SWEEP_INTERVAL = Duration.ofMinutes(1);
    /** How long a change stream keeps records, unless set: DynamoDB's 24 hours. */
    public static final Duration DEFAULT_STREAM_RETENTION = Duration.ofHours(24);
    /** Expired items the sweeper deletes per second at most, unless set. */
    public static final int DEFAULT_SWEEP_RATE = 1000;
    /**
     * Log records a global secondary index may lag before its table's writers are held, unless set: about a
     * second of writes at full speed on a fast machine, so a burst passes unheld while a backlog stays bounded.
     */
    public static final long DEFAULT_MAX_INDEX_LAG_RECORDS = 100_000;

    /** Checks every setting. */
    public DatabaseOptions {
        Objects.requireNonNull(vfs, "vfs");
        Objects.requireNonNull(durability, "durability");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(storage, "storage");
        Objects.requireNonNull(timeToLiveSweepInterval, "timeToLiveSweepInterval");
        if (timeToLiveSweepInterval.isNegative() || timeToLiveSweepInterval.isZero()) {
            throw new IllegalArgumentException("timeToLiveSweepInterval must be positive: " + timeToLiveSweepInterval);
        }
        Objects.requireNonNull(streamRetention, "streamRetention");
        if (streamRetention.isNegative() || streamRetention.isZero()) {
            throw new IllegalArgumentException("streamRetention must be positive: " + streamRetention);
        }
        if (timeToLiveSweepRate < 0) {
            throw new IllegalArgumentException("timeToLiveSweepRate must be 0 (no limit) or positive: "
                    + timeToLiveSweepRate);
        }
        if (maxIndexLagRecords < 0) {
            throw new IllegalArgumentException("maxIndexLagRecords must be 0 (no limit) or positive: "
                    + maxIndexLagRecords);
        }
    }

    /**
     * The settings before index back-pressure: a global index may lag {@value #DEFAULT_MAX_INDEX_LAG_RECORDS}
     * log records before writes are held.
     */
    public DatabaseOptions(Vfs vfs, Durability durability, Clock clock, KvOptions storage, boolean returnExpiredItems,
                           Duration timeToLiveSweepInterval, Duration streamRetention, int timeToLiveSweepRate) {
        this(vfs, durability, clock, storage, returnExpiredItems, timeToLiveSweepInterval, streamRetention,
                timeToLiveSweepRate, DEFAULT_MAX_INDEX_LAG_RECORDS);
    }

    /** The settings before the sweeper's rate was set: {@value #DEFAULT_SWEEP_RATE} deletes per second. */
    public DatabaseOptions(Vfs vfs, Durability durability, Clock clock, KvOptions storage, boolean returnExpiredItems,
                           Duration timeToLiveSweepInterval, Duration streamRetention) {
        this(vfs, durability, clock, storage, returnExpiredItems, timeToLiveSweepInterval, streamRetention,
                DEFAULT_SWEEP_RATE);
    }

    /** The settings before streams existed: records kept 24 hours. */
    public DatabaseOptions(Vfs vfs, Durability durability, Clock clock, KvOptions storage, boolean returnExpiredItems,
                           Duration timeToLiveSweepInterval) {
        this(vfs, durability, clock, storage, returnExpiredItems, timeToLiveSweepInterval, DEFAULT_STREAM_RETENTION);
    }

    /** The settings before time to live existed: reads hide expired items, the sweeper rests a minute. */
    public DatabaseOptions(Vfs vfs, Durability durability, Clock clock, KvOptions storage) {
        this(vfs, durability, clock, storage, false, DEFAULT_SWEEP_INTERVAL);
    }

    /** The defaults: real files, {@code SYNC}, the system clock, default storage tuning. */
    public static DatabaseOptions defaults() {
        return builder().build();
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds {@link DatabaseOptions}. */
    public static final class Builder {
        private Vfs vfs = new NioVfs();
        private Durability durability = Durability.SYNC;
        private Clock clock = Clock.systemUTC();
        private KvOptions storage = KvOptions.builder().build();
        private boolean returnExpiredItems;
        private Duration timeToLiveSweepInterval = DEFAULT_SWEEP_INTERVAL;
        private Duration streamRetention = DEFAULT_STREAM_RETENTION;
        private int timeToLiveSweepRate = DEFAULT_SWEEP_RATE;
        private long maxIndexLagRecords = DEFAULT_MAX_INDEX_LAG_RECORDS;

        private Builder() {
        }

        /** Sets {@link DatabaseOptions#vfs()}. */
        public Builder vfs(Vfs v) { vfs = v; return this; }
        /** Sets {@link DatabaseOptions#durability()}. */
        public Builder durability(Durability d) { durability = d; return this; }
        /** Sets {@link DatabaseOptions#clock()}. */
        public Builder clock(Clock c) { clock = c; return this; }
        /** Sets {@link DatabaseOptions#storage()}. */
        public Builder storage(KvOptions s) { storage = s; return this; }
        /** Sets {@link DatabaseOptions#returnExpiredItems()}. */
        public Builder returnExpiredItems(boolean r) { returnExpiredItems = r; return this; }
        /** Sets {@link DatabaseOptions#timeToLiveSweepInterval()}. */
        public Builder timeToLiveSweepInterval(Duration d) { timeToLiveSweepInterval = d; return this; }

        /** Sets {@link DatabaseOptions#streamRetention()}. */
        public Builder streamRetention(Duration d) { streamRetention = d; return this; }

        /** Sets {@link DatabaseOptions#timeToLiveSweepRate()}. */
        public Builder timeToLiveSweepRate(int deletesPerSecond) { timeToLiveSweepRate = deletesPerSecond; return this; }

        /** Sets {@link DatabaseOptions#maxIndexLagRecords()} (0: writes are never held for an index). */
        public Builder maxIndexLagRecords(long records) { maxIndexLagRecords = records; return this; }

        /** Validates and builds. */
        public DatabaseOptions build() {
            return new DatabaseOptions(vfs, durability, clock, storage, returnExpiredItems, timeToLiveSweepInterval,
                    streamRetention, timeToLiveSweepRate, maxIndexLagRecords);
        }
    }
}
