package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A write that fails leaves nothing behind, now or after a restart: the deletion of a put that sits alone
 * in the memtable consults the tables' bloom filters (to annihilate the pair), and opening a table can
 * fail (a descriptor limit, an interrupt, a bad footer). That check runs before the log append, so a
 * failure there fails the whole batch before any of it is logged or applied.
 */
class FailedWriteLeavesNothingTest {
    private static final Path DIR = Path.of("/db");

    @Test
    void shouldLeaveNoPartOfABatchWhoseWriteFailed() {
        MemVfs mem = new MemVfs();
        ControlledVfs vfs = new ControlledVfs(mem, ".wal");
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            kv.put(b("a"), b("1"));
            kv.put(b("z"), b("1"));
            kv.flush(); // a table whose key range holds "m"
        }
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) { // its table not open yet
            kv.put(b("m"), b("1")); // alone in the memtable: its deletion will look for it in the table
            vfs.failOpens(".sst");
            assertThatThrownBy(() -> kv.write(new WriteBatch().put(b("b"), b("1")).delete(b("m")), Durability.SYNC))
                    .as("the injected fault was met").isInstanceOf(RuntimeException.class);
            vfs.failOpens(null);
            kv.put(b("c"), b("1"));

            assertThat(kv.get(b("b"))).as("part of the failed batch is visible").isNull();
            assertThat(kv.get(b("m"))).as("part of the failed batch is visible").isEqualTo(b("1"));
        }
        try (LsmStore kv = LsmStore.open(DIR, options(mem.crashClone()))) {
            assertThat(kv.get(b("b"))).as("the failed batch is there after a restart").isNull();
            assertThat(kv.get(b("m"))).as("the failed batch is there after a restart").isEqualTo(b("1"));
            assertThat(kv.get(b("c"))).isEqualTo(b("1"));
        }
    }

    private static KvOptions options(Vfs vfs) {
        return KvOptions.builder().vfs(vfs).durability(Durability.SYNC).build();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
