package dev.lacuna.sstable;

import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * A cache of data blocks shared by every {@link SstableReader} of a database, bounded in bytes. It holds
 * blocks <em>after</em> their checksum was verified and they were decompressed, so a hit costs neither.
 * Blocks are keyed by {@code (fileNumber, blockOffset)}: file numbers must be unique among the tables
 * that share a cache for as long as it lives (the engine never reuses one), and when a table file is
 * deleted its blocks should be dropped with {@link #evictFile(long)}.
 *
 * <p>A hit takes no lock: each of up to 16 shards (chosen by a hash of the key) keeps its blocks in a
 * {@link ConcurrentHashMap}, and a hit only reads it and sets the block's reference bit (a write only if it
 * was clear, so hot blocks' cache lines stay shared between the cores that read them). Inserts, which follow a
 * read from the file and a decompression, take the shard's lock and evict by CLOCK (second chance): the
 * shard's blocks wait in a queue in insertion order, and eviction takes them from its head, sending a block
 * whose bit is set to the tail with the bit cleared, and dropping the first whose bit is clear. That keeps
 * blocks read since they last came round and drops the others, oldest first: least-recently-used as far as
 * it matters here, without the list update on every hit that made a synchronized, access-ordered map the
 * point where two readers met. Each shard holds an equal share of the capacity, and small caches use fewer
 * shards so that a shard can hold at least 1 MiB; a block larger than a shard's share is not cached. The
 * charge of a block is its decoded size plus a small fixed overhead.
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

    /** The cached block, or null (counted as a hit or a miss). Public for BlockCacheBenchmark. */
    public Block get(long fileNumber, long blockOffset) {
        Block block = capacity == 0 ? null : shard(fileNumber, blockOffset).get(new Key(fileNumber, blockOffset));
        if (block == null) {
            misses.increment();
        } else {
            hits.increment();
        }
        return block;
    }

    /**
     * Caches a verified, decoded block, evicting the least recently used ones of its shard as needed. Public
     * for BlockCacheBenchmark.
     */
    public void put(long fileNumber, long blockOffset, Block block) {
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

    /** A cached block, with its CLOCK reference bit. */
    private static final class Node {
        final Key key;
        final Block block;
        /** Set by a hit, cleared when eviction passes it over. */
        volatile boolean referenced;
        /** Out of the map (evicted, replaced or its file dropped): its queue entry is skipped. Under the lock. */
        boolean removed;

        Node(Key key, Block block) {
            this.key = key;
            this.block = block;
        }
    }

    /** One CLOCK segment: lookups without a lock, changes under its monitor. */
    private static final class Shard {
        private final long capacity;
        private final ConcurrentHashMap<Key, Node> map = new ConcurrentHashMap<>();
        /** Every node in the map (and removed ones not yet passed), oldest first; under the monitor. */
        private final ArrayDeque<Node> clock = new ArrayDeque<>();
        private long used; // under the monitor

        Shard(long capacity) {
            this.capacity = capacity;
        }

        Block get(Key key) {
            Node node = map.get(key);
            if (node == null) {
                return null;
            }
            if (!node.referenced) {
                node.referenced = true;
            }
            return node.block;
        }

        /** Inserts and returns how many blocks were evicted. */
        synchronized int put(Key key, Block block) {
            int charge = block.charge();
            if (charge > capacity) {
                return 0;
            }
            if (map.containsKey(key)) {
                // Two readers missed the same block and both read it: the copies are equal (a table never
                // changes), so the first stays. Replacing it would leave the old node in the queue, holding its
                // block uncounted until an eviction pass reached it (BlockCacheTest.shouldNotKeepAReplacedCopyOfABlockInTheClockQueue).
                return 0;
            }
            Node node = new Node(key, block);
            map.put(key, node);
            clock.addLast(node);
            used += charge;
            int evicted = 0;
            // Each pass over the queue clears every bit it meets, so two passes find a victim unless only the new
            // block is left (which fits on its own); the bound only guards against a bug looping forever.
            for (long steps = 2L * clock.size() + 1; used > capacity && steps > 0; steps--) {
                Node victim = clock.pollFirst();
                if (victim == null) {
                    break;
                }
                if (victim.removed) {
                    continue;
                }
                if (victim == node || victim.referenced) {
                    victim.referenced = false;
                    clock.addLast(victim); // a second chance (never evict what was just inserted)
                    continue;
                }
                victim.removed = true;
                map.remove(victim.key, victim);
                used -= victim.block.charge();
                evicted++;
            }
            return evicted;
        }

        synchronized void removeFile(long fileNumber) {
            boolean any = false;
            for (Node node : map.values()) {
                if (node.key.fileNumber() == fileNumber && map.remove(node.key, node)) {
                    node.removed = true;
                    used -= node.block.charge();
                    any = true;
                }
            }
            if (any) {
                clock.removeIf(n -> n.removed);
            }
        }

        synchronized long used() {
            return used;
        }

        int size() {
            return map.size();
        }
    }
}
