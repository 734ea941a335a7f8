package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvStoreTest.DIR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvCursor;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A cursor its user forgets to close holds back the purge of put/delete pairs from the memtable only until it
 * is garbage-collected: the next scan (or flush) frees what it held. Before, its place in the read tracker
 * stayed forever, and every later scan stepped over the dead pairs.
 */
class UnclosedCursorTest {

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static long deadEntriesInQueue(LsmStore kv) {
        try (KvCursor c = kv.scan(b("q"), b("r"), false, null)) {
            while (c.valid()) {
                c.next();
            }
            return c.deadEntriesSkipped();
        }
    }

    @Test
    void shouldFreeWhatACollectedUnclosedCursorHeld() throws Exception {
        MemVfs vfs = new MemVfs();
        try (LsmStore kv = LsmStore.open(DIR, KvStoreTest.small(vfs, 1).toBuilder().memtableBytes(1 << 20).memoryBudget(64 << 20)
                .deadEntryTrigger(1_000_000).durability(Durability.NONE).build())) {
            kv.put(b("a"), b("1"));
            leakACursor(kv);
            for (int i = 0; i < 100; i++) {
                kv.put(b("q" + i), b("v"));
                kv.delete(b("q" + i)); // the put and its deletion meet in the memtable: purgeable, once no read needs them
            }
            assertThat(deadEntriesInQueue(kv)).as("pairs held back by the open cursor").isEqualTo(200);

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            long dead = 200;
            while (dead > 0 && System.nanoTime() < deadline) {
                System.gc(); // the cursor is unreachable: let the collector find it
                deadEntriesInQueue(kv); // a scan frees what collected cursors held
                kv.put(b("z"), b("w")); // a write purges what no read needs any more
                dead = deadEntriesInQueue(kv);
            }
            assertThat(dead).as("dead entries once the leaked cursor is collected").isZero();
        }
    }

    /** Opens a cursor, reads a little, and drops it without closing it. */
    private static void leakACursor(LsmStore kv) {
        KvCursor c = kv.scan(null, null, false, null);
        assertThat(c.valid()).isTrue();
    }
}
