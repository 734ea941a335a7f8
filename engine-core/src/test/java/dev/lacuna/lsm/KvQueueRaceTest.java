package dev.lacuna.lsm;

import dev.lacuna.kv.KvCursor;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Readers racing a queue's writer while dead pairs are purged from the memtable under them. The writer
 * puts key i and then deletes key i−40, so at every sequence the queue is a run of 40 or 41 consecutive
 * keys. Every scan — forward and reverse, from several threads — must see exactly such a run: a purge
 * that removed a put a reader still needed, or showed a reader a put without its deletion, would break
 * it (a gap, an extra key, a short queue).
 */
class KvQueueRaceTest {
    private static final int OPEN = 40;

    static long id(byte[] key) {
        return ByteBuffer.wrap(key, 1, 8).getLong();
    }

    @Test
    void shouldShowEveryScanAConsistentQueueWhilePairsArePurged() throws Exception {
        int writes = Integer.getInteger("kv.race.writes", 200_000);
        KvOptions options = KvOptions.builder().vfs(new MemVfs()).durability(Durability.NONE)
                .memtableBytes(256 * 1024).build();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try (LsmStore kv = LsmStore.open(Path.of("/race"), options)) {
            for (long i = 0; i < OPEN; i++) {
                kv.put(KvTombstoneBoundTest.key(i), new byte[8]);
            }
            AtomicBoolean done = new AtomicBoolean();
            List<Future<Long>> readers = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                boolean reverse = r == 1;
                readers.add(pool.submit(() -> {
                    long scans = 0;
                    while (!done.get()) {
                        List<Long> ids = new ArrayList<>();
                        try (KvCursor c = kv.scan(new byte[] {'q'}, new byte[] {'r'}, reverse, null)) {
                            for (; c.valid(); c.next()) {
                                ids.add(id(c.key()));
                            }
                        }
                        if (reverse) {
                            java.util.Collections.reverse(ids);
                        }
                        assertThat(ids.size()).as("queue length at scan %d", scans).isBetween(OPEN, OPEN + 1);
                        for (int k = 1; k < ids.size(); k++) {
                            assertThat(ids.get(k)).as("consecutive ids %s", ids).isEqualTo(ids.get(k - 1) + 1);
                        }
                        scans++;
                    }
                    return scans;
                }));
            }
            Future<?> writer = pool.submit(() -> {
                for (long i = OPEN; i < OPEN + writes; i++) {
                    kv.write(new WriteBatch().put(KvTombstoneBoundTest.key(i), new byte[8]), Durability.NONE);
                    kv.write(new WriteBatch().delete(KvTombstoneBoundTest.key(i - OPEN)), Durability.NONE);
                }
                done.set(true);
                return null;
            });
            writer.get(5, TimeUnit.MINUTES);
            long scans = 0;
            for (Future<Long> r : readers) {
                scans += r.get(1, TimeUnit.MINUTES);
            }
            assertThat(scans).isGreaterThan(0);
            System.out.println("queue race scans: " + scans + ", writes: " + 2L * writes);
        } finally {
            pool.shutdownNow();
        }
    }
}
