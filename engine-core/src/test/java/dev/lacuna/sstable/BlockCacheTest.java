package dev.lacuna.sstable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class BlockCacheTest {
    /** An empty block whose array is {@code size} bytes (charged size + 64). */
    private static Block block(int size) {
        byte[] data = new byte[size];
        SstableFormat.putInt(data, 0, 0);
        SstableFormat.putInt(data, 4, 1);
        return new Block(data, 8, "t.sst", 0);
    }

    @Test
    void shouldEvictTheLeastRecentlyUsedBlockFirst() {
        BlockCache cache = new BlockCache(1000); // one shard
        Block a = block(236); // charge 300
        Block b = block(236);
        Block c = block(236);
        cache.put(1, 0, a);
        cache.put(1, 100, b);
        cache.put(1, 200, c);
        assertThat(cache.usedBytes()).isEqualTo(900);
        assertThat(cache.get(1, 0)).isSameAs(a); // a is now the most recently used
        cache.put(2, 0, block(236)); // over capacity: b goes
        assertThat(cache.evictions()).isEqualTo(1);
        assertThat(cache.get(1, 100)).isNull();
        assertThat(cache.get(1, 0)).isSameAs(a);
        assertThat(cache.get(1, 200)).isSameAs(c);
        assertThat(cache.usedBytes()).isEqualTo(900);
        assertThat(cache.hits()).isEqualTo(3);
        assertThat(cache.misses()).isEqualTo(1);
    }

    @Test
    void shouldKeepABlockReadBetweenItsTurnsAndItsChargeExactThroughReplacements() {
        BlockCache cache = new BlockCache(1000); // one shard: 10 blocks of charge 100
        for (int i = 0; i < 50; i++) {
            cache.put(1, 0, block(36)); // replaced 49 times: charged once, its old entries skipped by eviction
        }
        for (int i = 1; i < 30; i++) {
            cache.put(2, i, block(36));
            if (i % 3 == 0) {
                assertThat(cache.get(1, 0)).isNotNull(); // read between two turns of the clock: never evicted
            }
        }
        assertThat(cache.size()).isEqualTo(10);
        assertThat(cache.usedBytes()).isEqualTo(1000);
        assertThat(cache.evictions()).isEqualTo(20);
        assertThat(cache.get(2, 1)).isNull(); // the oldest unread ones went
        assertThat(cache.get(2, 29)).isNotNull();
        cache.evictFile(2);
        assertThat(cache.size()).isEqualTo(1);
        assertThat(cache.usedBytes()).isEqualTo(100);
    }

    @Test
    void shouldKeepTheFirstCopyOfABlockInsertedTwiceWithoutDoubleCharging() {
        // Two readers that missed the same block both insert it; a table never changes, so the copies are equal.
        BlockCache cache = new BlockCache(1000);
        Block first = block(100);
        cache.put(1, 0, first);
        cache.put(1, 0, block(100));
        assertThat(cache.usedBytes()).isEqualTo(164);
        assertThat(cache.size()).isEqualTo(1);
        assertThat(cache.get(1, 0)).isSameAs(first);
    }

    @Test
    void shouldNotCacheABlockLargerThanItsShare() {
        BlockCache cache = new BlockCache(1000);
        cache.put(1, 0, block(100));
        cache.put(1, 8, block(2000));
        assertThat(cache.get(1, 8)).isNull();
        assertThat(cache.get(1, 0)).isNotNull();
        assertThat(cache.evictions()).isZero();
    }

    @Test
    void shouldCacheNothingWhenDisabled() {
        BlockCache cache = new BlockCache(0);
        cache.put(1, 0, block(8));
        assertThat(cache.get(1, 0)).isNull();
        assertThat(cache.misses()).isEqualTo(1);
        assertThat(cache.usedBytes()).isZero();
        assertThatThrownBy(() -> new BlockCache(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldDropEveryBlockOfADeletedFile() {
        BlockCache cache = new BlockCache(64L << 20); // many shards
        for (int i = 0; i < 100; i++) {
            cache.put(1, i * 4096L, block(100));
            cache.put(2, i * 4096L, block(100));
        }
        assertThat(cache.size()).isEqualTo(200);
        cache.evictFile(1);
        assertThat(cache.size()).isEqualTo(100);
        assertThat(cache.usedBytes()).isEqualTo(100 * 164);
        for (int i = 0; i < 100; i++) {
            assertThat(cache.get(1, i * 4096L)).isNull();
            assertThat(cache.get(2, i * 4096L)).isNotNull();
        }
        assertThat(cache.evictions()).isZero();
    }

    @Test
    void shouldStayWithinCapacityUnderConcurrentUse() throws Exception {
        BlockCache cache = new BlockCache(4L << 20);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> tasks = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int seed = t;
                tasks.add(pool.submit(() -> {
                    Random random = new Random(seed);
                    for (int i = 0; i < 20000; i++) {
                        long file = random.nextInt(8);
                        long offset = random.nextInt(500) * 4096L;
                        Block b = cache.get(file, offset);
                        if (b == null) {
                            cache.put(file, offset, block(4096));
                        }
                        if (i % 5000 == 0) {
                            cache.evictFile(random.nextInt(8));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : tasks) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(cache.usedBytes()).isLessThanOrEqualTo(cache.capacity());
        assertThat(cache.hits() + cache.misses()).isEqualTo(80000);
        assertThat(cache.evictions()).isPositive();
        assertThat(cache.usedBytes()).isEqualTo((long) cache.size() * (4096 + 64));
    }

    @Test
    void shouldNotKeepAReplacedCopyOfABlockInTheClockQueue() throws Exception {
        // Two readers that missed one block both insert it: the second insert must not leave a node in the CLOCK
        // queue holding memory the cache no longer counts, until an eviction pass reaches it.
        BlockCache cache = new BlockCache(1 << 20); // one shard of 1 MiB
        for (int i = 0; i < 100; i++) {
            cache.put(1, 0, block(512 * 1024)); // two readers that missed the same block both insert it
        }
        java.lang.reflect.Field shardsField = BlockCache.class.getDeclaredField("shards");
        shardsField.setAccessible(true);
        Object shard = ((Object[]) shardsField.get(cache))[0];
        java.lang.reflect.Field clockField = shard.getClass().getDeclaredField("clock");
        clockField.setAccessible(true);
        int queued = ((java.util.ArrayDeque<?>) clockField.get(shard)).size();
        long retained = (long) queued * (512 * 1024 + 64);
        System.out.println("block cache after 100 inserts of one block: usedBytes=" + cache.usedBytes()
                + " capacity=" + cache.capacity() + " queued nodes=" + queued + " bytes reachable from the queue="
                + retained);
        assertThat(retained).as("bytes the cache keeps reachable").isLessThanOrEqualTo(cache.capacity());
    }
}
