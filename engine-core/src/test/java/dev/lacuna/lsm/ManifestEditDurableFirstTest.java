package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A version edit is installed only once it is durable. When the manifest is rewritten (it grew past its
 * bound) and writing the new one fails — a full disk — the compaction that asked for the edit must not
 * have released its inputs: they would be deleted while the manifest on disk still names them, and the
 * next open would delete the outputs as unreferenced.
 */
class ManifestEditDurableFirstTest {
    private static final Path DIR = Path.of("/db");
    private static final int KEYS = 100;

    @Test
    void shouldKeepEveryKeyWhenTheManifestRewriteOfACompactionFails() {
        MemVfs mem = new MemVfs();
        ControlledVfs vfs = new ControlledVfs(mem, ".wal");
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < KEYS; i++) {
                    kv.put(key(i), key(i));
                }
                kv.flush();
            }
            // Two overlapping level-0 files, every key durable in them: compacting them merges them.
            vfs.failCreates("MANIFEST-");
            assertThatThrownBy(() -> kv.compactRange(null, null)).as("the injected fault was met")
                    .isInstanceOf(RuntimeException.class);
        } catch (RuntimeException closing) {
            // the store refuses writes after a background error; closing may report it again
        }
        vfs.failCreates(null);
        try (LsmStore kv = LsmStore.open(DIR, options(mem))) { // a restart: the process ended, the disk kept all
            int readable = 0;
            for (int i = 0; i < KEYS; i++) {
                if (kv.get(key(i)) != null) {
                    readable++;
                }
            }
            assertThat(readable).as("keys readable after the failed manifest rewrite").isEqualTo(KEYS);
        }
    }

    private static KvOptions options(Vfs vfs) {
        // A manifest bound of one byte: every edit rewrites it.
        return KvOptions.builder().vfs(vfs).durability(Durability.SYNC).maxManifestBytes(1).build();
    }

    private static byte[] key(int i) {
        return String.format("key%05d", i).getBytes(StandardCharsets.UTF_8);
    }
}
