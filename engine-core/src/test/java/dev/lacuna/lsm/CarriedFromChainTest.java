package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvStoreTest.b;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.KvSnapshot;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import org.junit.jupiter.api.Test;

/**
 * An index keyspace (written unlogged) whose dead pairs are never annihilated (their keys are in a file: an item
 * whose index entry oscillates between two values) and that holds a few sole puts: every dead-pair freeze carries
 * those puts on, and the new memtable's {@code carriedFrom} pointed at the frozen one, which pointed at the one
 * before: only a purge cleared it, and with no pair to purge none ran, so each flushed memtable stayed reachable from
 * the active one, arena and all (the review of 664970d: 300 flushed memtables, 4.9 MB of arenas). A frozen memtable
 * never purges, and its {@code carriedFrom} is dropped when it is frozen.
 */
class CarriedFromChainTest {
    private static final int TRIGGER = 16;

    private static byte[] ik(String s) {
        return IndexLikeStore.key(s);
    }

    @Test
    void shouldKeepNoFlushedMemtableReachableThroughCarriedFrom() throws Exception {
        try (LsmStore kv = IndexLikeStore.open(KvOptions.builder().vfs(new MemVfs()).durability(Durability.NONE)
                .deadEntryTrigger(TRIGGER))) {
            Db db = LsmInternals.db(kv);
            WriteBatch first = new WriteBatch();
            for (int k = 0; k < 8; k++) {
                first.put(ik("file" + k), b("v"));
            }
            IndexLikeStore.apply(kv, first);
            kv.flush(); // the oscillating keys are in a file: their pairs are never annihilated
            KvSnapshot held = kv.snapshot(); // (a long read: compactions keep their puts)
            WriteBatch open = new WriteBatch();
            for (int k = 0; k < 8; k++) {
                open.put(ik("open" + k), b("v")); // sole puts, carried by every freeze
            }
            IndexLikeStore.apply(kv, open);
            int freezes = 300;
            for (int i = 0; i < freezes * TRIGGER; i++) {
                int k = i % 8;
                IndexLikeStore.apply(kv, new WriteBatch().put(ik("file" + k), b("w" + i)));
                IndexLikeStore.apply(kv, new WriteBatch().delete(ik("file" + k)));
                if (i % TRIGGER == 0) {
                    IndexLikeStore.awaitFlushes(db);
                }
            }
            IndexLikeStore.awaitFlushes(db);
            Tree tree = db.trees[db.treeOf(ik("open0"))];
            int flushedReachable = 0;
            long retainedBytes = 0;
            for (Memtable m = (Memtable) LsmInternals.field(tree.mem(), "carriedFrom"); m != null;
                    m = (Memtable) LsmInternals.field(m, "carriedFrom")) {
                if ((boolean) LsmInternals.field(m, "flushedOut")) {
                    flushedReachable++;
                    retainedBytes += LsmInternals.arenaBytes(m);
                }
            }
            System.out.printf("carriedFrom chain: %d flushes, %d flushed memtables reachable from the active one"
                    + " (their arenas: %d bytes of heap)%n", kv.stats().flushes(), flushedReachable, retainedBytes);
            assertThat(kv.stats().flushes()).as("flushes (the freezes that carried the sole puts)")
                    .isGreaterThan(freezes / 2);
            assertThat(flushedReachable).as("flushed memtables still reachable through carriedFrom")
                    .isLessThanOrEqualTo(1);
            assertThat(kv.get(ik("open0"))).as("a carried put").isEqualTo(b("v"));
            held.close();
        }
    }
}
