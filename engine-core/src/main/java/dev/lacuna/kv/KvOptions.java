package dev.lacuna.kv;

import dev.lacuna.storage.Durability;
import dev.lacuna.storage.RetryPolicy;
import dev.lacuna.vfs.NioVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.storage.WalOptions;
import java.time.Clock;
import java.util.Objects;

/**
 * Settings of a {@link KvStore}. Immutable and validated; build with {@link #builder()}.
 *
 * @param vfs                     the file system (real files by default; {@link dev.lacuna.vfs.MemVfs} in tests)
 * @param partitions              hash partitions, a power of two from 1 to 1024; fixed when the store is created
 * @param keyPrefix               the part of a key that selects its partition and that bloom filters index
 *                                (the partition key of an item); a scan within one prefix touches one partition
 * @param memtableBytes           a partition's memtable is flushed once it holds this much
 * @param memoryBudget            when all memtables together hold more, the largest active one is flushed (while the
 *                                active ones hold half of it: the frozen ones' flushes bring the rest down); logged
 *                                writes wait while memtables hold one and a half times it, the budget's worth waiting
 *                                for flushes
 * @param table                   SSTable settings (block size, compression, bloom filter); its key prefix is
 *                                always {@code keyPrefix}
 * @param blockCacheBytes         capacity of the block cache shared by all partitions
 * @param wal                     write-ahead log settings
 * @param durability              durability of writes that do not name one
 * @param l0CompactionTrigger     level-0 files of a partition that start a compaction
 * @param l0StopWritesTrigger     level-0 files of a partition at which writes to it wait for compaction
 * @param levelBaseBytes          target size of level 1 of each partition; each deeper level is
 *                                {@code levelMultiplier} times larger
 * @param levelMultiplier         growth factor between levels
 * @param targetFileBytes         compaction output files are cut near this size
 * @param tombstoneDensityTrigger a file whose share of deletions reaches this is compacted even when no level
 *                                is over its target (deletion-triggered compaction)
 * @param tombstoneAgeMillis      a file whose oldest deletion is older than this is compacted likewise
 * @param backgroundThreads       threads for flushes and compactions
 * @param clock                   time source for tombstone ages
 * @param deadEntryTrigger        a memtable holding this many puts deleted again in it, or a scan stepping
 *                                over this many dead entries, gets its partition flushed (a put and its
 *                                deletion that meet in one memtable never reach a file; in a keyspace written
 *                                unlogged, an index's, the keys whose only version is a put stay in memory) and
 *                                compacted, so
 *                                the backlog a queue-like range drags stays bounded however long its
 *                                history; while two of the partition's frozen memtables wait for flushes that are
 *                                merely behind, the dead pairs wait for them too
 * @param maxManifestBytes        the manifest is rewritten as a snapshot once it grows past this
 * @param keyspaceRouter          which keyspace a key belongs to ({@link KeyspaceRouter#SINGLE} by default)
 * @param maxOpenFiles            SSTables kept open (each holds a file descriptor, its index block and its
 *                                bloom filter on the heap), 1,000 by default; the least recently used are closed
 *                                and reopened when read again. Tables in use (by an open cursor, a read or a
 *                                compaction) are never closed under it, so while more than this many are in use
 *                                at once, that many stay open. Leave room under the process's descriptor limit
 *                                for the log, the manifest and the cursors' tables
 * @param maxTotalLogSize         bytes the write-ahead log's segments may hold before the partitions whose
 *                                memtables hold its oldest records are flushed so that it can be trimmed
 *                                (RocksDB's {@code max_total_wal_size}): a write to a quiet partition otherwise
 *                                keeps every later segment on disk and replayed on each open. Defaults to four
 *                                times {@code memoryBudget} (1 GiB with the defaults), as RocksDB does: the log
 *                                must hold what the memtables hold anyway, and the rest bounds the replay. Log
 *                                consumers' checkpoints (a global index's updater) also keep segments; no flush
 *                                frees those, so the log may exceed this while a consumer is behind
 * @param retry                   how a flush or compaction that failed on an I/O error (a full disk) is
 *                                retried: after 10 ms, doubling up to 1 s by default
 *                                ({@link RetryPolicy#defaults()}). While it is retried, writes that need it
 *                                (a partition whose flushes or compactions are behind) are refused with an
 *                                error saying so, and the others go on; once it succeeds the store carries
 *                                on without a reopen. A permanent error (corruption) stops writes until reopen
 */
public record KvOptions(Vfs vfs, int partitions, KeyPrefix keyPrefix, long memtableBytes, long memoryBudget,
                        SstableOptions table, long blockCacheBytes, WalOptions wal, Durability durability,
                        int l0CompactionTrigger, int l0StopWritesTrigger, long levelBaseBytes, int levelMultiplier,
                        long targetFileBytes, double tombstoneDensityTrigger, long tombstoneAgeMillis,
                        int backgroundThreads, Clock clock, long deadEntryTrigger, long maxManifestBytes,
                        KeyspaceRouter keyspaceRouter, int maxOpenFiles, long maxTotalLogSize,
                        RetryPolicy retry) {
    /** Checks every setting. */
    public KvOptions {
        Objects.requireNonNull(vfs, "vfs");
        Objects.requireNonNull(keyPrefix, "keyPrefix");
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(wal, "wal");
        Objects.requireNonNull(durability, "durability");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(keyspaceRouter, "keyspaceRouter");
        Objects.requireNonNull(retry, "retry");
        // The bloom filters must index the prefix that scans ask about: one setting, never two that disagree.
        table = table.withKeyPrefix(keyPrefix);
        if (partitions < 1 || partitions > 1024 || Integer.bitCount(partitions) != 1) {
            throw new IllegalArgumentException("partitions must be a power of two from 1 to 1024: " + partitions);
        }
        positive("memtableBytes", memtableBytes);
        positive("memoryBudget", memoryBudget);
        positive("levelBaseBytes", levelBaseBytes);
        positive("targetFileBytes", targetFileBytes);
        positive("tombstoneAgeMillis", tombstoneAgeMillis);
        positive("deadEntryTrigger", deadEntryTrigger);
        positive("maxManifestBytes", maxManifestBytes);
        positive("maxOpenFiles", maxOpenFiles);
        positive("maxTotalLogSize", maxTotalLogSize);
        if (blockCacheBytes < 0) {
            throw new IllegalArgumentException("blockCacheBytes must not be negative: " + blockCacheBytes);
        }
        if (l0CompactionTrigger < 1 || l0StopWritesTrigger <= l0CompactionTrigger) {
            throw new IllegalArgumentException("need 1 ≤ l0CompactionTrigger < l0StopWritesTrigger: "
                    + l0CompactionTrigger + ", " + l0StopWritesTrigger);
        }
        if (levelMultiplier < 2) {
            throw new IllegalArgumentException("levelMultiplier must be at least 2: " + levelMultiplier);
        }
        if (!(tombstoneDensityTrigger > 0 && tombstoneDensityTrigger <= 1)) {
            throw new IllegalArgumentException("tombstoneDensityTrigger must be in (0, 1]: " + tombstoneDensityTrigger);
        }
        if (backgroundThreads < 1) {
            throw new IllegalArgumentException("backgroundThreads must be at least 1: " + backgroundThreads);
        }
    }

    private static void positive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive: " + value);
        }
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these options. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds {@link KvOptions}; every setting starts at its default. */
    public static final class Builder {
        private Vfs vfs = new NioVfs();
        private int partitions = 1;
        private KeyPrefix keyPrefix = KeyPrefix.WHOLE_KEY;
        private KeyspaceRouter keyspaceRouter = KeyspaceRouter.SINGLE;
        private long memtableBytes = 64L << 20;
        private long memoryBudget = 256L << 20;
        private SstableOptions table = SstableOptions.defaults();
        private long blockCacheBytes = 64L << 20;
        private WalOptions wal = WalOptions.defaults();
        private Durability durability = Durability.SYNC;
        private int l0CompactionTrigger = 4;
        private int l0StopWritesTrigger = 20;
        private long levelBaseBytes = 256L << 20;
        private int levelMultiplier = 10;
        private long targetFileBytes = 64L << 20;
        private double tombstoneDensityTrigger = 0.5;
        private long tombstoneAgeMillis = 10 * 60_000L;
        private int backgroundThreads = 2;
        private Clock clock = Clock.systemUTC();
        private long deadEntryTrigger = 1024;
        private long maxManifestBytes = 4L << 20;
        private int maxOpenFiles = 1000;
        /** 0: four times {@link #memoryBudget}, resolved by {@link #build()}. */
        private long maxTotalLogSize;
        private RetryPolicy retry = RetryPolicy.defaults();

        Builder() {
        }

        Builder(KvOptions o) {
            vfs = o.vfs;
            partitions = o.partitions;
            keyPrefix = o.keyPrefix;
            keyspaceRouter = o.keyspaceRouter;
            memtableBytes = o.memtableBytes;
            memoryBudget = o.memoryBudget;
            table = o.table;
            blockCacheBytes = o.blockCacheBytes;
            wal = o.wal;
            durability = o.durability;
            l0CompactionTrigger = o.l0CompactionTrigger;
            l0StopWritesTrigger = o.l0StopWritesTrigger;
            levelBaseBytes = o.levelBaseBytes;
            levelMultiplier = o.levelMultiplier;
            targetFileBytes = o.targetFileBytes;
            tombstoneDensityTrigger = o.tombstoneDensityTrigger;
            tombstoneAgeMillis = o.tombstoneAgeMillis;
            backgroundThreads = o.backgroundThreads;
            clock = o.clock;
            deadEntryTrigger = o.deadEntryTrigger;
            maxManifestBytes = o.maxManifestBytes;
            maxOpenFiles = o.maxOpenFiles;
            maxTotalLogSize = o.maxTotalLogSize;
            retry = o.retry;
        }

        /** Sets {@link KvOptions#vfs()}. */
        public Builder vfs(Vfs v) { vfs = v; return this; }
        /** Sets {@link KvOptions#partitions()}. */
        public Builder partitions(int n) { partitions = n; return this; }
        /** Sets {@link KvOptions#keyPrefix()}. */
        public Builder keyPrefix(KeyPrefix p) { keyPrefix = p; return this; }
        /** Sets {@link KvOptions#memtableBytes()}. */
        public Builder memtableBytes(long n) { memtableBytes = n; return this; }
        /** Sets {@link KvOptions#memoryBudget()}. */
        public Builder memoryBudget(long n) { memoryBudget = n; return this; }
        /** Sets {@link KvOptions#table()}. */
        public Builder table(SstableOptions t) { table = t; return this; }
        /** Sets {@link KvOptions#blockCacheBytes()}. */
        public Builder blockCacheBytes(long n) { blockCacheBytes = n; return this; }
        /** Sets {@link KvOptions#wal()}. */
        public Builder wal(WalOptions w) { wal = w; return this; }
        /** Sets {@link KvOptions#durability()}. */
        public Builder durability(Durability d) { durability = d; return this; }
        /** Sets {@link KvOptions#l0CompactionTrigger()}. */
        public Builder l0CompactionTrigger(int n) { l0CompactionTrigger = n; return this; }
        /** Sets {@link KvOptions#l0StopWritesTrigger()}. */
        public Builder l0StopWritesTrigger(int n) { l0StopWritesTrigger = n; return this; }
        /** Sets {@link KvOptions#levelBaseBytes()}. */
        public Builder levelBaseBytes(long n) { levelBaseBytes = n; return this; }
        /** Sets {@link KvOptions#levelMultiplier()}. */
        public Builder levelMultiplier(int n) { levelMultiplier = n; return this; }
        /** Sets {@link KvOptions#targetFileBytes()}. */
        public Builder targetFileBytes(long n) { targetFileBytes = n; return this; }
        /** Sets {@link KvOptions#tombstoneDensityTrigger()}. */
        public Builder tombstoneDensityTrigger(double d) { tombstoneDensityTrigger = d; return this; }
        /** Sets {@link KvOptions#tombstoneAgeMillis()}. */
        public Builder tombstoneAgeMillis(long n) { tombstoneAgeMillis = n; return this; }
        /** Sets {@link KvOptions#backgroundThreads()}. */
        public Builder backgroundThreads(int n) { backgroundThreads = n; return this; }
        /** Sets {@link KvOptions#clock()}. */
        public Builder clock(Clock c) { clock = c; return this; }
        /** Sets {@link KvOptions#deadEntryTrigger()}. */
        public Builder deadEntryTrigger(long n) { deadEntryTrigger = n; return this; }
        /** Sets {@link KvOptions#maxManifestBytes()}. */
        public Builder maxManifestBytes(long n) { maxManifestBytes = n; return this; }

        /** Sets {@link KvOptions#maxOpenFiles()}. */
        public Builder maxOpenFiles(int n) { maxOpenFiles = n; return this; }
        /** Sets {@link KvOptions#maxTotalLogSize()}; unset, it is four times the memory budget. */
        public Builder maxTotalLogSize(long n) { maxTotalLogSize = n; return this; }

        /** Sets {@link KvOptions#keyspaceRouter()}. */
        public Builder keyspaceRouter(KeyspaceRouter r) { keyspaceRouter = r; return this; }
        /** Sets {@link KvOptions#retry()}. */
        public Builder retry(RetryPolicy r) { retry = r; return this; }

        /** Validates and builds. */
        public KvOptions build() {
            return new KvOptions(vfs, partitions, keyPrefix, memtableBytes, memoryBudget, table, blockCacheBytes, wal,
                    durability, l0CompactionTrigger, l0StopWritesTrigger, levelBaseBytes, levelMultiplier,
                    targetFileBytes, tombstoneDensityTrigger, tombstoneAgeMillis, backgroundThreads, clock,
                    deadEntryTrigger, maxManifestBytes, keyspaceRouter, maxOpenFiles,
                    maxTotalLogSize != 0 ? maxTotalLogSize : (memoryBudget > Long.MAX_VALUE / 4 ? Long.MAX_VALUE : 4 * memoryBudget),
                    retry);
        }
    }
}
