package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.FaultyVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A write the log refuses (a record over its size limit, a full disk) must not keep memory in the memtable: the
 * commit places its entries in the memtable's arena before the log append, and an entry placed and never added
 * is counted nowhere (neither the memtable's bytes nor the store's memory budget), so nothing flushes it away
 * while the writes keep failing. Retried, such writes grow the heap without bound.
 */
class RefusedWriteKeepsNoMemoryTest {
    private static final Path DIR = Path.of("/db");

    @Test
    void shouldKeepNoArenaBytesForABatchTheLogRefusedAsTooLarge() {
        try (LsmStore kv = LsmStore.open(DIR, options(new MemVfs()))) {
            kv.put(b("x"), b("1"));
            Db db = LsmInternals.db(kv);
            byte[] value = new byte[45 << 20]; // three times in one batch: a record over the log's 128 MiB
            WriteBatch batch = new WriteBatch().put(b("a"), value).put(b("b"), value).put(b("c"), value);
            Memtable mem = db.trees[db.treeOf(b("a"))].mem();
            long arenaBefore = LsmInternals.arenaBytes(mem);
            long countedBefore = mem.bytes();
            for (int attempt = 0; attempt < 2; attempt++) {
                assertThatThrownBy(() -> kv.write(batch, Durability.SYNC))
                        .isInstanceOf(IllegalArgumentException.class);
            }
            assertThat(db.trees[db.treeOf(b("a"))].mem()).as("still the same active memtable").isSameAs(mem);
            assertThat(mem.bytes()).as("bytes the memtable counts").isEqualTo(countedBefore);
            assertThat(LsmInternals.arenaBytes(mem) - arenaBefore).as("arena bytes kept for two refused writes")
                    .isLessThan(value.length);
        }
    }

    @Test
    void shouldKeepNoArenaBytesForWritesWhoseLogAppendFailed() {
        MemVfs disk = new MemVfs();
        FaultyVfs vfs = new FaultyVfs(disk);
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            kv.put(b("x"), b("1"));
            Db db = LsmInternals.db(kv);
            Memtable mem = db.trees[db.treeOf(b("a"))].mem();
            long arenaBefore = LsmInternals.arenaBytes(mem);
            byte[] value = new byte[1 << 20];
            vfs.diskFullAfter(0);
            for (int attempt = 0; attempt < 20; attempt++) {
                // Deletions too: the serial path.
                WriteBatch batch = new WriteBatch().put(b("a"), value);
                if (attempt % 2 == 0) {
                    batch.delete(b("x"));
                }
                assertThatThrownBy(() -> kv.write(batch, Durability.SYNC)).isInstanceOf(RuntimeException.class);
            }
            vfs.heal();
            kv.put(b("y"), b("1")); // the log recovers: the store goes on
            assertThat(kv.get(b("a"))).isNull();
            assertThat(db.trees[db.treeOf(b("a"))].mem()).as("still the same active memtable").isSameAs(mem);
            assertThat(LsmInternals.arenaBytes(mem) - arenaBefore).as("arena bytes kept for 20 failed writes of 1 MiB")
                    .isLessThan(2L * value.length);
        }
    }

    private static KvOptions options(Vfs vfs) {
        return KvOptions.builder().vfs(vfs).durability(Durability.SYNC).build();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
