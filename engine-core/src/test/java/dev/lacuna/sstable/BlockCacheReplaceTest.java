package dev.lacuna.sstable;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.util.ArrayDeque;
import org.junit.jupiter.api.Test;

/**
 * A block inserted again (two readers missed it at once) does not leave the first copy in the CLOCK queue, holding
 * memory the cache no longer counts, until an eviction pass reaches it.
 */
class BlockCacheReplaceTest {
    private static Block block(int size) {
        byte[] data = new byte[size];
        SstableFormat.putInt(data, 0, 0);
        SstableFormat.putInt(data, 4, 1);
        return new Block(data, 8, "t.sst", 0);
    }

    @Test
    void replacedBlocksAreNotRetainedBeyondTheCharge() throws Exception {
        BlockCache cache = new BlockCache(1 << 20); // one shard of 1 MiB
        for (int i = 0; i < 100; i++) {
            cache.put(1, 0, block(512 * 1024)); // two readers that missed the same block both insert it
        }
        Field shardsField = BlockCache.class.getDeclaredField("shards");
        shardsField.setAccessible(true);
        Object shard = ((Object[]) shardsField.get(cache))[0];
        Field clockField = shard.getClass().getDeclaredField("clock");
        clockField.setAccessible(true);
        int queued = ((ArrayDeque<?>) clockField.get(shard)).size();
        long retained = (long) queued * (512 * 1024 + 64);
        System.out.println("block cache after 100 inserts of one block: usedBytes=" + cache.usedBytes() + " capacity=" + cache.capacity()
                + " queued nodes=" + queued + " bytes reachable from the queue=" + retained);
        assertThat(retained).as("bytes the cache keeps reachable").isLessThanOrEqualTo(cache.capacity());
    }
}
