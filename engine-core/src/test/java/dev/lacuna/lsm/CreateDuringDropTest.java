package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvKeyspaceTest.bytes;
import static dev.lacuna.lsm.KvKeyspaceTest.key;
import static dev.lacuna.lsm.KvStoreTest.DIR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.vfs.MemVfs;
import org.junit.jupiter.api.Test;

/**
 * A drop takes its keyspaces' routes away, then waits for their flushes before its one manifest edit; meanwhile
 * the manifest still lists them. A keyspace created in that wait rebuilt every route from the manifest and so
 * brought the dropping keyspace's route back: writes to it were acknowledged, then discarded with its trees when
 * the drop went through (found by reading, in the review of the interrupted drop). Writes to a keyspace being
 * dropped must fail from the moment the drop starts, whatever is created meanwhile.
 */
class CreateDuringDropTest {
    @Test
    void shouldRefuseWritesToAKeyspaceBeingDroppedAfterAnotherIsCreated() throws Exception {
        MemVfs mem = new MemVfs();
        ControlledVfs vfs = new ControlledVfs(mem, ".sst");
        int id;
        int created;
        try (LsmStore kv = LsmStore.open(DIR, DropInterruptTest.options(vfs))) {
            id = kv.createKeyspace(1, bytes("doomed")).id();
            for (int i = 0; i < 10; i++) { // far below the memtable's size: only the drop flushes them
                kv.put(key(id, "k" + i), bytes("v" + i));
            }
            vfs.hold(); // the drop's flush waits in its fsync, the keyspace still in the manifest
            DropInterruptTest.Dropper dropper = new DropInterruptTest.Dropper(kv, id);
            try {
                dropper.start();
                assertThat(vfs.awaitHeld(60_000_000_000L)).isTrue();
                dropper.awaitIn("awaitFlushed");
                created = kv.createKeyspace(1, bytes("new")).id();
                assertThatThrownBy(() -> kv.put(key(id, "late"), bytes("lost")))
                        .as("a write to the keyspace being dropped, after a create").isInstanceOf(
                                IllegalArgumentException.class);
                kv.put(key(created, "k"), bytes("v"));
            } finally {
                vfs.release();
            }
            dropper.join(60_000);
            assertThat(dropper.isAlive()).isFalse();
            assertThat(dropper.thrown.get()).isNull();
            assertThat(kv.keyspaces()).extracting(Keyspace::id).doesNotContain(id).contains(created);
        }
        try (LsmStore kv = LsmStore.open(DIR, DropInterruptTest.options(mem))) {
            assertThat(kv.keyspaces()).extracting(Keyspace::id).doesNotContain(id).contains(created);
            assertThat(KvStoreTest.s(kv.get(key(created, "k")))).isEqualTo("v");
        }
    }
}
