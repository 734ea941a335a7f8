package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvKeyspaceTest.bytes;
import static dev.lacuna.lsm.KvKeyspaceTest.key;
import static dev.lacuna.lsm.KvStoreTest.DIR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.lacuna.vfs.MemVfs;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A keyspace id given twice to one drop put its trees twice in the list of trees to drop, and the drop then
 * waited for the compaction slot of a tree it had itself claimed a moment before: it hung for good, holding
 * the keyspace half dropped. Such a list is refused before anything changes.
 */
class DuplicateDropIdsTest {
    @Test
    void shouldRefuseAKeyspaceIdGivenTwiceWithoutChangingAnything() {
        MemVfs vfs = new MemVfs();
        try (LsmStore kv = LsmStore.open(DIR, KvKeyspaceTest.options(vfs))) {
            int id = kv.createKeyspace(2, bytes("twice")).id();
            kv.put(key(id, "k"), bytes("v"));
            assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
                    assertThatThrownBy(() -> kv.dropKeyspaces(List.of(id, id), List.of()))
                            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice"),
                    "a drop naming keyspace " + id + " twice");
            // Refused before anything changed: the keyspace is whole, and can still be written and dropped.
            assertThat(KvStoreTest.s(kv.get(key(id, "k")))).isEqualTo("v");
            kv.put(key(id, "k2"), bytes("v2"));
            kv.dropKeyspaces(List.of(id), List.of());
            assertThat(kv.keyspaces()).extracting(Keyspace::id).doesNotContain(id);
        }
    }
}
