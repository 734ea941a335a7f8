package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvStoreTest.DIR;
import static dev.lacuna.lsm.KvStoreTest.s;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.vfs.MemVfs;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Level-0 tables may overlap, so a read must find a key's newest version in them first: the version set keeps
 * level 0 newest first. With several level-0 tables (no compaction merges them here), the last value written
 * before each flush, and a deletion flushed last, must be what a read returns, before and after a reopen.
 * (PIT: with the sort of level 0 removed from {@code VersionSet.apply}, no test of the run failed: a read
 * returned a value overwritten since.)
 */
class LevelZeroOrderTest {
    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldReadTheNewestVersionOfAKeyFromOverlappingLevelZeroTables() {
        MemVfs vfs = new MemVfs();
        KvOptions options = KvStoreTest.small(vfs, 1).toBuilder().l0CompactionTrigger(10).l0StopWritesTrigger(20).build();
        try (LsmStore kv = LsmStore.open(DIR, options)) {
            for (int round = 0; round < 3; round++) {
                kv.put(bytes("key"), bytes("v" + round));
                kv.put(bytes("gone"), bytes("w" + round));
                kv.flush();
            }
            kv.delete(bytes("gone"));
            kv.flush();
            assertThat(s(kv.get(bytes("key")))).isEqualTo("v2");
            assertThat(kv.get(bytes("gone"))).isNull();
        }
        try (LsmStore kv = LsmStore.open(DIR, options)) {
            assertThat(s(kv.get(bytes("key")))).as("after a reopen").isEqualTo("v2");
            assertThat(kv.get(bytes("gone"))).as("after a reopen").isNull();
        }
    }
}
