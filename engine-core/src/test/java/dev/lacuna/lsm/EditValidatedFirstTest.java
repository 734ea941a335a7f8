package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.base.InternalKey;
import dev.lacuna.manifest.FileMeta;
import dev.lacuna.manifest.VersionEdit;
import dev.lacuna.vfs.MemVfs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A version edit that recovery would refuse is refused before it is written, and changes nothing: written
 * first, it made the next open fail ("manifest removes file … that is not in level …") over what was only a
 * faulty edit in the running process, and an edit refused half way through apply had already changed the
 * version set in memory.
 */
class EditValidatedFirstTest {
    private static final Path DIR = Path.of("/db");

    private static FileMeta file(long number) {
        byte[] k = InternalKey.encode(("k" + number).getBytes(StandardCharsets.UTF_8), 1, InternalKey.KIND_PUT);
        return new FileMeta(number, 100, k, k, 1, 1, 1, 0, 0);
    }

    private static Map<String, byte[]> files(MemVfs vfs) throws Exception {
        Map<String, byte[]> out = new TreeMap<>();
        for (String name : vfs.list(DIR)) {
            out.put(name, vfs.readAll(DIR.resolve(name)));
        }
        return out;
    }

    @Test
    void shouldRefuseAnEditRecoveryWouldRefuseBeforeWritingIt() throws Exception {
        MemVfs vfs = new MemVfs();
        vfs.mkdirs(DIR);
        try (VersionSet set = VersionSet.open(vfs, DIR, 2, 1 << 20, n -> { })) {
            set.startManifest();
            set.logAndApply(new VersionEdit().addFile(0, 1, file(7)), 1);
            Map<String, byte[]> before = files(vfs);

            // a valid deletion followed by a file on a level that does not exist
            VersionEdit bad = new VersionEdit().deleteFile(0, 1, 7).addFile(1, 9, file(8));
            assertThatThrownBy(() -> set.logAndApply(bad, 2)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("level 9");
            VersionEdit missing = new VersionEdit().deleteFile(0, 1, 99);
            assertThatThrownBy(() -> set.logAndApply(missing, 2)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("removes file 99");

            assertThat(files(vfs)).as("nothing written").containsOnlyKeys(before.keySet())
                    .allSatisfy((name, bytes) -> assertThat(bytes).isEqualTo(before.get(name)));
            assertThat(set.acquire(0).files(1)).extracting(FileMeta::number).containsExactly(7L);
            set.logAndApply(new VersionEdit().addFile(1, 2, file(9)), 3); // and the set still takes edits
        }
        try (VersionSet reopened = VersionSet.open(vfs, DIR, 2, 1 << 20, n -> { })) {
            assertThat(reopened.acquire(0).files(1)).extracting(FileMeta::number).containsExactly(7L);
            assertThat(reopened.acquire(1).files(2)).extracting(FileMeta::number).containsExactly(9L);
        }
    }
}
