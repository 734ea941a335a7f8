package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Review of 4727dae: the open sized every entry of the log's directory, for a hint, before the log's recovery, which
 * ignores every name that is not a segment's; an entry it could not size failed the open (all three below failed).
 * The size now comes from the log's recovery, which sizes its segments only.
 */
class LogSizeHintOpenReviewTest {
    private static final byte[] K = "k".getBytes(StandardCharsets.UTF_8);
    private static final byte[] V = "v".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path tmp;

    @Test
    void shouldOpenWithADirectoryInTheLogDirectory() throws IOException {
        MemVfs vfs = new MemVfs();
        Path dir = Path.of("/db");
        try (LsmStore kv = LsmStore.open(dir, KvOptions.builder().vfs(vfs).build())) {
            kv.put(K, V);
        }
        vfs.mkdirs(dir.resolve(Recovery.WAL_DIR).resolve("lost+found"));
        try (LsmStore kv = LsmStore.open(dir, KvOptions.builder().vfs(vfs).build())) {
            assertThat(kv.get(K)).isEqualTo(V);
        }
    }

    @Test
    void shouldOpenWithADanglingLinkInTheLogDirectory() throws IOException {
        Path dir = tmp.resolve("db");
        try (LsmStore kv = LsmStore.open(dir, KvOptions.builder().build())) {
            kv.put(K, V);
        }
        Files.createSymbolicLink(dir.resolve(Recovery.WAL_DIR).resolve("old.wal.bak"), tmp.resolve("gone"));
        try (LsmStore kv = LsmStore.open(dir, KvOptions.builder().build())) {
            assertThat(kv.get(K)).isEqualTo(V);
        }
    }

    /** Lists, in the log's directory, a file that is gone by the time it is sized (an NFS ".nfs…" file). */
    private static final class VanishingEntry extends ForwardingVfs {
        VanishingEntry(Vfs delegate) {
            super(delegate);
        }

        @Override
        public List<String> list(Path dir) throws IOException {
            List<String> names = new ArrayList<>(super.list(dir));
            if (dir.getFileName().toString().equals(Recovery.WAL_DIR)) {
                names.add(".nfs000000000001");
            }
            return names;
        }
    }

    @Test
    void shouldOpenWhenAnEntryOfTheLogDirectoryVanishes() {
        MemVfs mem = new MemVfs();
        Path dir = Path.of("/db");
        try (LsmStore kv = LsmStore.open(dir, KvOptions.builder().vfs(mem).build())) {
            kv.put(K, V);
        }
        try (LsmStore kv = LsmStore.open(dir, KvOptions.builder().vfs(new VanishingEntry(mem)).build())) {
            assertThat(kv.get(K)).isEqualTo(V);
        }
    }
}
