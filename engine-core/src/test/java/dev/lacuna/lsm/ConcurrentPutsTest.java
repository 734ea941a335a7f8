package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvCursor;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.KvSnapshot;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.nio.charset.StandardCharsets;
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
 * Puts whose memtable inserts run in parallel outside the commit lock ({@link InsertOrder}) while memtables
 * are switched and flushed under it, explicitly and as they fill, with readers on snapshots: each put is one
 * log record of one new key, so a snapshot at sequence s must see exactly s keys (a flush that froze a
 * memtable with an insert in flight would lose one for good), every writer reads its own put at once, and
 * nothing is missing after a reopen.
 */
class ConcurrentPutsTest {
    private static final int WRITERS = 4;
    private static final int PUTS = 3000;

    @Test
    void shouldLoseNoPutToFlushesAndSwitchesWhileInsertsRunInParallel() throws Exception {
        MemVfs vfs = new MemVfs();
        Path dir = Path.of("/db");
        // Small memtables: a switch every few hundred puts, most of them with inserts in flight.
        KvOptions options = KvOptions.builder().vfs(vfs).partitions(2).memtableBytes(32 << 10)
                .durability(Durability.NONE).build();
        ExecutorService pool = Executors.newFixedThreadPool(WRITERS + 2);
        try (LsmStore kv = LsmStore.open(dir, options)) {
            AtomicBoolean writing = new AtomicBoolean(true);
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                writers.add(pool.submit(() -> {
                    for (int i = 0; i < PUTS; i++) {
                        byte[] key = key(writer, i);
                        kv.put(key, value(writer, i));
                        assertThat(kv.get(key)).as("reads-your-writes of %s", new String(key, StandardCharsets.UTF_8))
                                .isEqualTo(value(writer, i));
                    }
                    return null;
                }));
            }
            Future<?> flusher = pool.submit(() -> {
                while (writing.get()) {
                    kv.flush();
                }
                return null;
            });
            Future<Integer> reader = pool.submit(() -> {
                int checks = 0;
                while (writing.get()) {
                    try (KvSnapshot snapshot = kv.snapshot()) {
                        assertThat(count(kv, snapshot)).as("keys at sequence %d", snapshot.sequence())
                                .isEqualTo(snapshot.sequence());
                    }
                    checks++;
                }
                return checks;
            });
            try {
                for (Future<?> f : writers) {
                    f.get(5, TimeUnit.MINUTES);
                }
            } finally {
                writing.set(false);
            }
            flusher.get(5, TimeUnit.MINUTES);
            assertThat(reader.get(5, TimeUnit.MINUTES)).as("snapshots checked").isPositive();
            assertThat(kv.lastSequence()).isEqualTo((long) WRITERS * PUTS);
            assertAllThere(kv);
        } finally {
            pool.shutdownNow();
        }
        try (LsmStore kv = LsmStore.open(dir, options)) {
            assertAllThere(kv);
        }
    }

    private static void assertAllThere(LsmStore kv) {
        try (KvSnapshot snapshot = kv.snapshot()) {
            assertThat(count(kv, snapshot)).isEqualTo((long) WRITERS * PUTS);
        }
        for (int w = 0; w < WRITERS; w++) {
            for (int i = 0; i < PUTS; i++) {
                assertThat(kv.get(key(w, i))).as("writer %d put %d", w, i).isEqualTo(value(w, i));
            }
        }
    }

    private static long count(LsmStore kv, KvSnapshot snapshot) {
        long n = 0;
        try (KvCursor c = kv.scan(null, null, false, snapshot)) {
            for (; c.valid(); c.next()) {
                n++;
            }
        }
        return n;
    }

    private static byte[] key(int writer, int i) {
        return String.format("w%d-%05d", writer, i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int writer, int i) {
        byte[] v = new byte[40];
        v[0] = (byte) writer;
        v[1] = (byte) i;
        v[2] = (byte) (i >>> 8);
        return v;
    }
}
