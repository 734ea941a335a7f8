package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvStoreTest.DIR;
import static dev.lacuna.lsm.KvStoreTest.b;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KeyspaceRouter;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;

/**
 * A store with a logged keyspace (a table's) and one written as a global index's entries are: unlogged, at the LSN
 * of a logged write ({@link LsmStore#applyUnlogged}). The tests of carrying freezes ({@code Memtable#carryLive}),
 * which only a memtable without logged writes makes, share it.
 */
final class IndexLikeStore {
    static final int TABLE = 1;
    static final int INDEX = 2;

    private IndexLikeStore() {
    }

    /** Opens {@code options} (its keyspace router replaced) at {@link KvStoreTest#DIR} and makes the two keyspaces. */
    static LsmStore open(KvOptions.Builder options) {
        LsmStore kv = LsmStore.open(DIR, options.keyspaceRouter(KeyspaceRouter.FIRST_FOUR_BYTES).build());
        assertThat(kv.createKeyspace(1, b("table")).id()).isEqualTo(TABLE);
        assertThat(kv.createKeyspace(1, b("index")).id()).isEqualTo(INDEX);
        return kv;
    }

    /** Key {@code name} of the index keyspace. */
    static byte[] key(String name) {
        return KvKeyspaceTest.key(INDEX, name);
    }

    /** {@code entries} applied unlogged at the LSN of a logged write, as an index's updater applies them. */
    static void apply(LsmStore kv, WriteBatch entries) {
        long lsn = kv.write(new WriteBatch().put(KvKeyspaceTest.key(TABLE, "t"), b("t")), Durability.NONE);
        kv.applyUnlogged(entries, lsn);
    }

    /** Waits until no frozen memtable waits for its flush. */
    static void awaitFlushes(Db db) throws InterruptedException {
        synchronized (db.progress) {
            while (LsmInternals.frozenMemtables(db) > 0) {
                db.progress.wait(100);
            }
        }
    }
}
