package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvKeyspaceTest.bytes;
import static dev.lacuna.lsm.KvKeyspaceTest.key;
import static dev.lacuna.lsm.KvKeyspaceTest.options;
import static dev.lacuna.lsm.KvStoreTest.DIR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.vfs.MemVfs;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a keyspace's manifest edit carries besides the keyspace, checked where only the manifest can restore
 * it: a consumer's log checkpoint recorded in the same edit as the creation, and the next keyspace id and tree
 * once the keyspace holding the highest ones is dropped (no live keyspace then tells an open where to go on).
 * Each through a power loss and through two reopens (the first rewrites the manifest from a snapshot, which
 * the second reads).
 */
class KeyspaceManifestFieldsTest {

    /**
     * (PIT: with the checkpoints left out of {@code VersionSet.createKeyspace}'s edit, or
     * {@code VersionEdit.checkpoints()} returning none, the log held them in memory only: the store did not list
     * them and a reopen lost them. Seen failing on both.)
     */
    @Test
    void shouldRestoreACheckpointRecordedWithAKeyspacesCreation() {
        MemVfs vfs = new MemVfs();
        MemVfs crashed;
        int id;
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            for (int i = 0; i < 10; i++) {
                kv.put(bytes("\0\0\0\0k" + i), bytes("v" + i)); // keyspace 0: the log's sequence moves on
            }
            id = kv.createKeyspace(2, bytes("indexed"), Map.of("index-1", kv.lastSequence())).id();
            assertThat(kv.logCheckpoints()).as("checkpoints of the open store").containsEntry("index-1", 10L);
            kv.put(key(id, "a"), bytes("b"));
            crashed = vfs.crashClone();
        }
        for (MemVfs disk : new MemVfs[] {crashed, crashed, vfs}) { // after the power loss twice, then the clean stop
            try (LsmStore kv = LsmStore.open(DIR, options(disk))) {
                assertThat(kv.keyspaces()).extracting(Keyspace::id).containsExactly(id);
                assertThat(kv.logCheckpoints()).as("checkpoints after a reopen").containsEntry("index-1", 10L);
            }
        }
    }

    /**
     * (PIT: with {@code VersionEdit.nextIds()} returning nothing, a store that had dropped its newest keyspace
     * gave its id to the next one after a reopen that read a rewritten manifest. Seen failing.)
     */
    @Test
    void shouldNeverReuseTheIdOrTreesOfADroppedNewestKeyspace() {
        MemVfs vfs = new MemVfs();
        Keyspace dropped;
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            kv.createKeyspace(1, bytes("kept"));
            dropped = kv.createKeyspace(4, bytes("dropped"));
            kv.dropKeyspace(dropped.id());
        }
        MemVfs crashed;
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) { // writes a manifest from a snapshot
            crashed = vfs.crashClone();
        }
        for (MemVfs disk : new MemVfs[] {crashed, vfs}) {
            try (LsmStore kv = LsmStore.open(DIR, options(disk))) {
                Keyspace fresh = kv.createKeyspace(4, bytes("new"));
                assertThat(fresh.id()).as("the new keyspace's id").isGreaterThan(dropped.id());
                kv.put(key(fresh.id(), "x"), bytes("y")); // its trees are fresh ones, not the dropped keyspace's
                assertThat(KvStoreTest.s(kv.get(key(fresh.id(), "x")))).isEqualTo("y");
            }
        }
    }
}
