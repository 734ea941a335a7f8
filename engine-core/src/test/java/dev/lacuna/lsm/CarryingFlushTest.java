package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvKeyspaceTest.bytes;
import static dev.lacuna.lsm.KvKeyspaceTest.key;
import static dev.lacuna.lsm.KvKeyspaceTest.options;
import static dev.lacuna.lsm.KvStoreTest.DIR;
import static dev.lacuna.lsm.KvStoreTest.s;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvCursor;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link LsmStore#flushKeyspace(int, long)}: a log consumer's checkpoint flush that keeps the keys written after
 * the checkpoint in memory, so that a queue's entry opened just before it and deleted just after never reaches a
 * file (where its deletion would leave a tombstone over a put for every scan to step over).
 */
class CarryingFlushTest {

    @Test
    void shouldKeepKeysWrittenAfterTheCheckpointInMemorySoThatTheirDeletionAnnihilatesThem() {
        MemVfs vfs = new MemVfs();
        int index;
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            int base = kv.createKeyspace(1, bytes("base")).id();
            index = kv.createKeyspace(1, bytes("index")).id();
            long lsn1 = kv.write(new WriteBatch().put(key(base, "a"), bytes("1")), Durability.SYNC);
            long lsn2 = kv.write(new WriteBatch().put(key(base, "b"), bytes("2")), Durability.SYNC);
            long lsn3 = kv.write(new WriteBatch().put(key(base, "c"), bytes("3")), Durability.SYNC);
            long lsn4 = kv.write(new WriteBatch().put(key(base, "d"), bytes("4")), Durability.SYNC);
            // Settled at the checkpoint (lsn1): an entry that stays, and one deleted again at lsn3, after it.
            kv.applyUnlogged(new WriteBatch().put(key(index, "queue-old"), bytes("old"))
                    .put(key(index, "queue-gone"), bytes("gone")), lsn1);
            kv.applyUnlogged(new WriteBatch().put(key(index, "queue-new"), bytes("new")), lsn2); // after it
            kv.applyUnlogged(new WriteBatch().delete(key(index, "queue-gone")), lsn3);

            kv.flushKeyspace(index, lsn1);

            assertThat(scan(kv, index)).containsExactly("queue-new=new", "queue-old=old");
            // queue-new is in memory only: deleting it annihilates the two, and the next scan steps over nothing.
            kv.applyUnlogged(new WriteBatch().delete(key(index, "queue-new")), lsn4);
            try (KvCursor c = kv.scan(key(index, ""), key(index + 1, ""), false, null)) {
                List<String> seen = new ArrayList<>();
                for (; c.valid(); c.next()) {
                    seen.add(s(c.key()).substring(4));
                }
                assertThat(seen).containsExactly("queue-old");
                assertThat(c.deadEntriesSkipped()).isZero();
            }
        }
        try (LsmStore kv = LsmStore.open(DIR, options(vfs.crashClone()))) {
            // The files hold what the checkpoint settled; the rest is the log's to write again.
            assertThat(s(kv.get(key(index, "queue-old")))).isEqualTo("old");
            assertThat(kv.get(key(index, "queue-new"))).isNull();
            assertThat(kv.get(key(index, "queue-gone"))).isNull();
        }
    }

    @Test
    void shouldFlushEverythingWhenNothingWasWrittenAfterTheCheckpoint() {
        MemVfs vfs = new MemVfs();
        int index;
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            int base = kv.createKeyspace(1, bytes("base")).id();
            index = kv.createKeyspace(1, bytes("index")).id();
            long lsn1 = kv.write(new WriteBatch().put(key(base, "a"), bytes("1")), Durability.SYNC);
            long lsn2 = kv.write(new WriteBatch().put(key(base, "b"), bytes("2")), Durability.SYNC);
            kv.applyUnlogged(new WriteBatch().put(key(index, "queue-one"), bytes("1")), lsn1);
            kv.applyUnlogged(new WriteBatch().put(key(index, "queue-two"), bytes("2")), lsn2);
            kv.flushKeyspace(index, lsn2);
        }
        try (LsmStore kv = LsmStore.open(DIR, options(vfs.crashClone()))) {
            assertThat(s(kv.get(key(index, "queue-one")))).isEqualTo("1");
            assertThat(s(kv.get(key(index, "queue-two")))).isEqualTo("2");
        }
    }

    private static List<String> scan(LsmStore kv, int keyspace) {
        List<String> out = new ArrayList<>();
        try (KvCursor c = kv.scan(key(keyspace, ""), key(keyspace + 1, ""), false, null)) {
            for (; c.valid(); c.next()) {
                out.add(s(c.key()).substring(4) + "=" + s(c.value()));
            }
        }
        return out;
    }
}
