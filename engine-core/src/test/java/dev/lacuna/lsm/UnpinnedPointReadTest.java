package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.SstableOptions;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A point read uses a cached table reader without pinning it ({@link SstableCache#peekUnpinned}), so the cache may
 * close that reader for room while the read needs its file. With one reader kept open and no block cache, readers
 * in four threads open table after table and close each other's readers all the time: every read must still find
 * the value it wants. Without the read again with a pin, reads failed here with "reading data block ... failed"
 * (a closed channel).
 */
class UnpinnedPointReadTest {
    private static final Path DIR = Path.of("/db");
    private static final int KEYS = 3_000;
    private static final int THREADS = 4;
    private static final int READS = Integer.getInteger("lacuna.unpinnedReads", 20_000);

    @Test
    void shouldReadEveryValueWhileReadersAreClosedForRoomUnderTheReads() throws Exception {
        KvOptions options = KvOptions.builder().vfs(new MemVfs()).durability(Durability.NONE).partitions(1)
                .memtableBytes(16 << 10).targetFileBytes(4 << 10).l0CompactionTrigger(1_000)
                .l0StopWritesTrigger(2_000).backgroundThreads(1).blockCacheBytes(0)
                .table(SstableOptions.defaults().withBlockSize(512)).maxOpenFiles(1).build();
        try (LsmStore kv = LsmStore.open(DIR, options)) {
            for (int i = 0; i < KEYS; i++) {
                kv.put(key(i), value(i));
            }
            kv.flush();
            assertThat(kv.stats().filesPerLevel()[0]).as("tables at level 0").isGreaterThan(20);

            CountDownLatch start = new CountDownLatch(1);
            Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
            AtomicLong checked = new AtomicLong();
            List<Thread> readers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                long seed = t;
                Thread reader = new Thread(() -> {
                    Random random = new Random(seed);
                    try {
                        start.await();
                        for (int r = 0; r < READS && failures.isEmpty(); r++) {
                            int i = random.nextInt(KEYS);
                            byte[] got = kv.get(key(i));
                            if (!java.util.Arrays.equals(got, value(i))) {
                                throw new AssertionError("key " + i + ": got "
                                        + (got == null ? "nothing" : new String(got, StandardCharsets.UTF_8)));
                            }
                            checked.incrementAndGet();
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }, "point-reader-" + t);
                readers.add(reader);
                reader.start();
            }
            start.countDown();
            for (Thread reader : readers) {
                reader.join();
            }
            assertThat(failures).isEmpty();
            assertThat(checked.get()).isEqualTo((long) THREADS * READS);
        }
    }

    private static byte[] key(int i) {
        return String.format("k%06d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        return ("value of " + i + " ".repeat(60)).getBytes(StandardCharsets.UTF_8);
    }
}
