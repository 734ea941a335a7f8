package dev.lacuna.bench;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.lacuna.sstable.Block;
import dev.lacuna.sstable.BlockCache;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * The engine's {@link BlockCache} (sharded CLOCK, lock-free hits) against Caffeine 3 (W-TinyLFU, a bounded
 * by-weight cache) holding the same blocks under the same capacity, used the way {@code SstableReader} uses
 * its cache: look up {@code (fileNumber, blockOffset)}, and on a miss (after reading the block) insert it.
 * Caffeine is built as one would adopt it: {@code maximumWeight(capacity)}, weighed by the block's charge
 * (its array plus 64 bytes, as ours), its maintenance on the common pool (the default).
 *
 * <ul>
 *   <li>{@code hit1} / {@code hit2}: lookups of random blocks among {@code 3/4} of what fits, all resident
 *       (filled at setup): the cost of a hit, at 1 and 2 threads.</li>
 *   <li>{@code mixed1} / {@code mixed2}: lookups of random blocks among twice what fits, inserting each
 *       miss: about half the lookups miss and evict, so this is the cost of the insert and eviction path
 *       (and each cache's hit ratio on a uniform workload, printed at teardown).</li>
 * </ul>
 *
 * Blocks are {@code blockSize} bytes (4 KiB, the default table block) in a cache of {@code capacityMiB}
 * (64 MiB: about 16,000 blocks); the block objects are a small shared pool, so the measurement is of the
 * cache, not of allocating blocks.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar BlockCacheBenchmark -f 1 -wi 3 -w 2s -i 8 -r 2s
 * # smoke: java -jar benchmarks/target/benchmarks.jar BlockCacheBenchmark -f 1 -wi 0 -i 1 -r 1s
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 8, time = 2)
public class BlockCacheBenchmark {
    /** Blocks per file: the key is (block / BLOCKS_PER_FILE + 1, block % BLOCKS_PER_FILE * blockSize). */
    private static final int BLOCKS_PER_FILE = 512;
    private static final int POOL = 64;

    /** The two caches behind one face. */
    interface Impl {
        Block get(long fileNumber, long blockOffset);

        void put(long fileNumber, long blockOffset, Block block);

        String describe();
    }

    static final class Ours implements Impl {
        private final BlockCache cache;

        Ours(long capacity) {
            cache = new BlockCache(capacity);
        }

        @Override
        public Block get(long fileNumber, long blockOffset) {
            return cache.get(fileNumber, blockOffset);
        }

        @Override
        public void put(long fileNumber, long blockOffset, Block block) {
            cache.put(fileNumber, blockOffset, block);
        }

        @Override
        public String describe() {
            return String.format(Locale.ROOT, "%,d blocks, %,d bytes, %,d evictions", cache.size(),
                    cache.usedBytes(), cache.evictions());
        }
    }

    static final class CaffeineImpl implements Impl {
        private record Key(long fileNumber, long blockOffset) {
        }

        private final Cache<Key, Block> cache;
        private final int charge;

        CaffeineImpl(long capacity, int charge) {
            this.charge = charge;
            cache = Caffeine.newBuilder().maximumWeight(capacity).weigher((Key k, Block b) -> this.charge).build();
        }

        @Override
        public Block get(long fileNumber, long blockOffset) {
            return cache.getIfPresent(new Key(fileNumber, blockOffset));
        }

        @Override
        public void put(long fileNumber, long blockOffset, Block block) {
            cache.put(new Key(fileNumber, blockOffset), block);
        }

        @Override
        public String describe() {
            cache.cleanUp();
            return String.format(Locale.ROOT, "%,d blocks, %,d bytes", cache.estimatedSize(),
                    cache.policy().eviction().orElseThrow().weightedSize().orElse(-1));
        }
    }

    @State(Scope.Benchmark)
    public static class CacheState {
        @Param({"lacuna", "caffeine"})
        public String impl;

        @Param({"4096"})
        public int blockSize;

        @Param({"64"})
        public int capacityMiB;

        Impl cache;
        Block[] pool;
        /** Blocks that fit at once (by charge). */
        int fits;
        final LongAdder lookups = new LongAdder();
        final LongAdder misses = new LongAdder();

        @Setup(Level.Trial)
        public void setUp() {
            long capacity = (long) capacityMiB << 20;
            int charge = blockSize + 64; // Block.charge(): the array plus a fixed overhead
            fits = (int) (capacity / charge);
            cache = switch (impl) {
                case "lacuna" -> new Ours(capacity);
                case "caffeine" -> new CaffeineImpl(capacity, charge);
                default -> throw new IllegalArgumentException("impl must be lacuna or caffeine: " + impl);
            };
            pool = new Block[POOL];
            for (int i = 0; i < POOL; i++) {
                byte[] data = new byte[blockSize];
                data[4] = 1; // an empty block: restart 0, count 1 (little-endian) in its first 8 bytes
                pool[i] = new Block(data, 8, "000001.sst", 0);
            }
            // The hit benchmarks look up the first 3/4 of what fits: fill those (twice, so both caches have
            // seen each of them more than once and neither evicts them as one-hit wonders).
            for (int round = 0; round < 2; round++) {
                for (int b = 0; b < hitSet(); b++) {
                    if (cache.get(file(b), offset(b)) == null) {
                        cache.put(file(b), offset(b), pool[b % POOL]);
                    }
                }
            }
        }

        int hitSet() {
            return fits * 3 / 4;
        }

        long file(int b) {
            return b / BLOCKS_PER_FILE + 1;
        }

        long offset(int b) {
            return (long) (b % BLOCKS_PER_FILE) * blockSize;
        }

        @TearDown(Level.Trial)
        public void tearDown(BenchmarkParams params) {
            long n = lookups.sum();
            System.err.printf(Locale.ROOT, "%n[%s, %d threads, %s] %s; mixed lookups %,d, hit ratio %.3f%n",
                    params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1),
                    params.getThreads(), impl, cache.describe(), n, n == 0 ? 0.0 : 1.0 - (double) misses.sum() / n);
        }
    }

    @Benchmark
    @Threads(1)
    public Block hit1(CacheState s) {
        return hit(s);
    }

    @Benchmark
    @Threads(2)
    public Block hit2(CacheState s) {
        return hit(s);
    }

    @Benchmark
    @Threads(1)
    public Block mixed1(CacheState s) {
        return mixed(s);
    }

    @Benchmark
    @Threads(2)
    public Block mixed2(CacheState s) {
        return mixed(s);
    }

    private static Block hit(CacheState s) {
        int b = ThreadLocalRandom.current().nextInt(s.hitSet());
        Block block = s.cache.get(s.file(b), s.offset(b));
        if (block == null) {
            throw new IllegalStateException("a resident block missed"); // the hit benchmark must only hit
        }
        return block;
    }

    private static Block mixed(CacheState s) {
        int b = ThreadLocalRandom.current().nextInt(2 * s.fits);
        long file = s.file(b);
        long offset = s.offset(b);
        Block block = s.cache.get(file, offset);
        s.lookups.increment();
        if (block == null) {
            s.misses.increment();
            block = s.pool[b % POOL];
            s.cache.put(file, offset, block);
        }
        return block;
    }
}
