package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvStoreTest.DIR;
import static dev.lacuna.lsm.KvStoreTest.b;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KeyspaceRouter;
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
    private static final int TABLE = 1;
    private static final int INDEX = 2;
    private static final int TRIGGER = 16;

    private static byte[] ik(String s) {
        return KvKeyspaceTest.key(INDEX, s);
    }

    /** {@code entries} applied unlogged at the LSN of a logged write, as an index's updater applies them. */
    private static void apply(LsmStore kv, WriteBatch entries) {
        long lsn = kv.write(new WriteBatch().put(KvKeyspaceTest.key(TABLE, "t"), b("t")), Durability.NONE);
        kv.applyUnlogged(entries, lsn);
    }

    private static void awaitFlushes(Db db) throws InterruptedException {
        synchronized (db.progress) {
            while (LsmInternals.frozenMemtables(db) > 0) {
                db.progress.wait(100);
            }
        }
    }

    @Test
    void shouldKeepNoFlushedMemtableReachableThroughCarriedFrom() throws Exception {
        try (LsmStore kv = LsmStore.open(DIR, KvOptions.builder().vfs(new MemVfs()).durability(Durability.NONE)
                .keyspaceRouter(KeyspaceRouter.FIRST_FOUR_BYTES).deadEntryTrigger(TRIGGER).build())) {
            assertThat(kv.createKeyspace(1, b("table")).id()).isEqualTo(TABLE);
            assertThat(kv.createKeyspace(1, b("index")).id()).isEqualTo(INDEX);
            Db db = LsmInternals.db(kv);
            WriteBatch first = new WriteBatch();
            for (int k = 0; k < 8; k++) {
                first.put(ik("file" + k), b("v"));
            }
            apply(kv, first);
            kv.flush(); // the oscillating keys are in a file: their pairs are never annihilated
            KvSnapshot held = kv.snapshot(); // (a long read: compactions keep their puts)
            WriteBatch open = new WriteBatch();
            for (int k = 0; k < 8; k++) {
                open.put(ik("open" + k), b("v")); // sole puts, carried by every freeze
            }
            apply(kv, open);
            int freezes = 300;
            for (int i = 0; i < freezes * TRIGGER; i++) {
                int k = i % 8;
                apply(kv, new WriteBatch().put(ik("file" + k), b("w" + i)));
                apply(kv, new WriteBatch().delete(ik("file" + k)));
                if (i % TRIGGER == 0) {
                    awaitFlushes(db);
                }
            }
            awaitFlushes(db);
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
