package dev.lacuna.sstable;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * A cache of data blocks shared by every {@link SstableReader} of a database, bounded in bytes. It holds
 * blocks <em>after</em> their checksum was verified and they were decompressed, so a hit costs neither.
 * Blocks are keyed by {@code (fileNumber, blockOffset)}: file numbers must be unique among the tables
 * that share a cache for as long as it lives (the engine never reuses one), and when a table file is
 * deleted its blocks should be dropped with {@link #evictFile(long)}.
 *
 * <p>Eviction is least-recently-used within each of up to 16 shards (the shard is chosen by a hash of the
 * key), each a {@link LinkedHashMap} in access order under its own lock, so concurrent readers rarely
 * contend. Each shard holds an equal share of the capacity, and small caches use fewer shards so that a
 * shard can hold at least 1 MiB; a block larger than a shard's share is not cached. The charge of a block
 * is its decoded size plus a small fixed overhead.
 *
 * <p>Thread-safe. The counters are updated without locks and read as a consistent-enough snapshot.
 */
public final class BlockCache {
    private static final int MAX_SHARDS = 16;
    private static final long MIN_SHARD_CAPACITY = 1 << 20;

    private final long capacity;
    private final Shard[] shards;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder evictions = new LongAdder();

    /**
     * @param capacityBytes the most bytes the cache holds; 0 disables it (every lookup misses, nothing is
     *                      kept)
     */
    public BlockCache(long capacityBytes) {
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("negative capacity " + capacityBytes);
        }
        this.capacity = capacityBytes;
        int count = (int) Math.max(1, Math.min(MAX_SHARDS, Long.highestOneBit(capacityBytes / MIN_SHARD_CAPACITY)));
        this.shards = new Shard[count];
        for (int i = 0; i < count; i++) {
            shards[i] = new Shard(capacityBytes / count);
        }
    }

    /** The capacity in bytes given at construction. */
    public long capacity() {
        return capacity;
    }

    /** Lookups that found their block. */
    public long hits() {
        return hits.sum();
    }

    /** Lookups that did not (the block was then read from its file). */
    public long misses() {
        return misses.sum();
    }

    /** Blocks removed to make room (not counting {@link #evictFile(long)}). */
    public long evictions() {
        return evictions.sum();
    }

    /** Bytes currently charged for the cached blocks. */
    public long usedBytes() {
        long used = 0;
        for (Shard shard : shards) {
            used += shard.used();
        }
        return used;
    }

    /** Number of cached blocks. */
    public int size() {
        int size = 0;
        for (Shard shard : shards) {
            size += shard.size();
        }
        return size;
    }

    /**
     * Drops every block of table {@code fileNumber}; call it when the file is deleted. Costs time
     * proportional to the number of cached blocks. Open readers of the file keep working (they reload).
     */
    public void evictFile(long fileNumber) {
        for (Shard shard : shards) {
            shard.removeFile(fileNumber);
        }
    }

    /** The cached block, or null (counted as a hit or a miss). */
    Block get(long fileNumber, long blockOffset) {
        Block block = capacity == 0 ? null : shard(fileNumber, blockOffset).get(new Key(fileNumber, blockOffset));
        if (block == null) {
            misses.increment();
        } else {
            hits.increment();
        }
        return block;
    }

    /** Caches a verified, decoded block, evicting the least recently used ones of its shard as needed. */
    void put(long fileNumber, long blockOffset, Block block) {
        if (capacity == 0) {
            return;
        }
        int evicted = shard(fileNumber, blockOffset).put(new Key(fileNumber, blockOffset), block);
        if (evicted > 0) {
            evictions.add(evicted);
        }
    }

    private Shard shard(long fileNumber, long blockOffset) {
        long h = (fileNumber * 0x9E3779B97F4A7C15L) ^ blockOffset;
        h *= 0xC2B2AE3D27D4EB4FL;
        return shards[(int) (h >>> 40) & (shards.length - 1)];
    }

    private record Key(long fileNumber, long blockOffset) {
    }

    /** One LRU segment; every method holds its monitor. */
    private static final class Shard {
        private final long capacity;
        private final LinkedHashMap<Key, Block> map = new LinkedHashMap<>(64, 0.75f, true);
        private long used;

        Shard(long capacity) {
            this.capacity = capacity;
        }

        synchronized Block get(Key key) {
            return map.get(key);
        }

        /** Inserts and returns how many blocks were evicted. */
        synchronized int put(Key key, Block block) {
            int charge = block.charge();
            if (charge > capacity) {
                return 0;
            }
            Block old = map.put(key, block);
            if (old != null) {
                used -= old.charge();
            }
            used += charge;
            int evicted = 0;
            Iterator<Map.Entry<Key, Block>> eldest = map.entrySet().iterator();
            while (used > capacity && eldest.hasNext()) {
                Map.Entry<Key, Block> e = eldest.next();
                if (e.getKey().equals(key)) {
                    continue; // never evict what was just inserted (it fits on its own)
                }
                used -= e.getValue().charge();
                eldest.remove();
                evicted++;
            }
            return evicted;
        }

        synchronized void removeFile(long fileNumber) {
            Iterator<Map.Entry<Key, Block>> it = map.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<Key, Block> e = it.next();
                if (e.getKey().fileNumber() == fileNumber) {
                    used -= e.getValue().charge();
                    it.remove();
                }
            }
        }

        synchronized long used() {
            return used;
        }

        synchronized int size() {
            return map.size();
        }
    }
}
