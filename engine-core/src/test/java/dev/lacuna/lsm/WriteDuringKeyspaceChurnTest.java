package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvKeyspaceTest.bytes;
import static dev.lacuna.lsm.KvKeyspaceTest.key;
import static dev.lacuna.lsm.KvStoreTest.DIR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Keyspaces created and dropped while batches spanning keyspace 0 and the live keyspace are written from four
 * threads: a write to a keyspace dropped meanwhile is refused as one to a keyspace that does not exist (it hit a
 * NullPointerException in the wait for room before), and no acknowledged put is lost, live or after a reopen.
 */
class WriteDuringKeyspaceChurnTest {
    @Test
    void shouldKeepAcknowledgedPutsWhileKeyspacesAreCreatedAndDropped() throws Exception {
        MemVfs vfs = new MemVfs();
        KvOptions options = KvKeyspaceTest.options(vfs).toBuilder().memtableBytes(16 << 10)
                .durability(Durability.NONE).build();
        Map<String, Integer> acked = new ConcurrentHashMap<>(); // key name -> keyspace (0 or live one)
        AtomicInteger live = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(5);
        int finalKeyspace;
        try (LsmStore kv = LsmStore.open(DIR, options)) {
            live.set(kv.createKeyspace(2, bytes("ks")).id());
            AtomicBoolean writing = new AtomicBoolean(true);
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                int writer = w;
                writers.add(pool.submit(() -> {
                    for (int i = 0; i < 3000; i++) {
                        String name = "w" + writer + "-" + i;
                        int ks = live.get();
                        try {
                            kv.write(new WriteBatch().put(key(0, name), bytes(name)).put(key(ks, name), bytes(name)),
                                    Durability.NONE);
                            acked.put(name, ks);
                        } catch (IllegalArgumentException dropped) {
                            kv.write(new WriteBatch().put(key(0, name), bytes(name)), Durability.NONE);
                            acked.put(name, 0);
                        }
                    }
                    return null;
                }));
            }
            Future<?> churner = pool.submit(() -> {
                while (writing.get()) {
                    int old = live.get();
                    live.set(kv.createKeyspace(2, bytes("ks")).id());
                    kv.dropKeyspace(old);
                }
                return null;
            });
            try {
                for (Future<?> f : writers) {
                    f.get(10, TimeUnit.MINUTES);
                }
            } finally {
                writing.set(false);
            }
            churner.get(5, TimeUnit.MINUTES);
            finalKeyspace = live.get();
            check(kv, acked, finalKeyspace);
        } finally {
            pool.shutdownNow();
        }
        try (LsmStore kv = LsmStore.open(DIR, options)) {
            check(kv, acked, finalKeyspace);
        }
    }

    private static void check(LsmStore kv, Map<String, Integer> acked, int finalKeyspace) {
        for (Map.Entry<String, Integer> e : acked.entrySet()) {
            assertThat(kv.get(key(0, e.getKey()))).as("keyspace 0: %s", e.getKey()).isEqualTo(bytes(e.getKey()));
            if (e.getValue() == finalKeyspace) {
                assertThat(kv.get(key(finalKeyspace, e.getKey()))).as("keyspace %d: %s", finalKeyspace, e.getKey())
                        .isEqualTo(bytes(e.getKey()));
            }
        }
    }
}
