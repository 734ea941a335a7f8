package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.base.InternalKey;
import dev.lacuna.kv.SstableOptions;
import dev.lacuna.manifest.FileMeta;
import dev.lacuna.sstable.Lz4;
import dev.lacuna.vfs.MemVfs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The outputs of a flush or compaction: a new file starts once one passes the target size, but only between
 * user keys, so that every version of a key stays in one file and the files of a level keep disjoint user-key
 * ranges (reads and compactions rely on it); the metadata and byte count match what was written. Written after
 * mutation testing found these rules unchecked: a split inside a key's versions, no split at all, and a wrong
 * byte count all passed the crash suites.
 */
class SstableOutputsTest {
    private static final Path DIR = Path.of("/tables");
    private static final int KEYS = 100;
    private static final int VERSIONS = 3;

    @Test
    void shouldSplitOutputsBetweenUserKeysOnlyAndDescribeThemExactly() throws Exception {
        MemVfs vfs = new MemVfs();
        vfs.mkdirs(DIR);
        AtomicLong numbers = new AtomicLong(10);
        SstableOutputs out = new SstableOutputs(vfs, DIR, SstableOptions.defaults(), Lz4.pureJava(), numbers::incrementAndGet, 1024, 0);
        byte[] value = new byte[40];
        long sequence = KEYS * VERSIONS;
        for (int k = 0; k < KEYS; k++) {
            byte[] user = String.format("key%03d", k).getBytes(StandardCharsets.UTF_8);
            for (int v = 0; v < VERSIONS; v++) { // newest first, as internal keys sort
                out.add(InternalKey.encode(user, sequence--, InternalKey.KIND_PUT), value);
            }
        }
        List<FileMeta> files = out.finish();

        assertThat(files).as("outputs of %d entries at a 1 KiB target", KEYS * VERSIONS).hasSizeGreaterThan(3);
        long entries = 0;
        long bytes = 0;
        for (int i = 0; i < files.size(); i++) {
            FileMeta f = files.get(i);
            assertThat(f.entries() % VERSIONS).as("file %d holds whole keys: %d entries", i, f.entries()).isZero();
            if (i > 0) {
                assertThat(InternalKey.compareUserKeys(files.get(i - 1).largest(), f.smallest()))
                        .as("file %d starts after the user key file %d ends with", i, i - 1).isNegative();
            }
            try (var file = vfs.openReadOnly(DIR.resolve(SstableCache.fileName(f.number())))) {
                assertThat(file.size()).as("file %d's size as recorded", i).isEqualTo(f.size());
            }
            entries += f.entries();
            bytes += f.size();
        }
        assertThat(entries).isEqualTo(KEYS * VERSIONS);
        assertThat(out.bytesWritten()).as("bytes written").isEqualTo(bytes);
        assertThat(files.get(0).number()).isEqualTo(11);
        assertThat(vfs.list(DIR)).hasSize(files.size());
    }
}
