package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.base.InternalKey;
import dev.lacuna.kv.SstableOptions;
import dev.lacuna.sstable.BlockCache;
import dev.lacuna.sstable.Lz4;
import dev.lacuna.sstable.SstableWriter;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The table cache closes a reader for room only while the cache's own reference is the last one. Found in review:
 * trim picked an unused reader, then (before it closed it) a read pinned that reader and the cache was closed, which
 * dropped the cache's reference; trim's compare-and-set of the count from 1 to 0 then took the read's pin for the
 * cache's and closed the reader under the read, which failed with an I/O error instead of finishing or being told
 * the store is closed. The interleaving is forced here: the read and the close run in trim's window between its pick
 * and its close. Seen failing before the fix (the pinned reader was closed).
 */
class SstableCacheTrimTest {
    private static final Path DIR = Path.of("/db");

    @Test
    void shouldNotCloseAReaderPinnedWhileTrimPickedIt() throws IOException {
        MemVfs vfs = new MemVfs();
        vfs.mkdirs(DIR);
        writeTable(vfs, 1);
        writeTable(vfs, 2);
        AtomicReference<SstableCache> cache = new AtomicReference<>();
        AtomicReference<SstableCache.Handle> pinnedInWindow = new AtomicReference<>();
        Runnable window = () -> {
            if (pinnedInWindow.get() == null) {
                // Trim has picked table 1, the only unused reader. A read pins it, then the store closes.
                pinnedInWindow.set(cache.get().acquire(1));
                cache.get().close();
            }
        };
        cache.set(new SstableCache(vfs, DIR, new BlockCache(0), Lz4.fastest(), 1, window));

        cache.get().acquire(1).release();
        SstableCache.Handle second = cache.get().acquire(2); // over the limit of one: trims, and the window runs
        SstableCache.Handle first = pinnedInWindow.get();
        assertThat(first).as("the read pinned in trim's window").isNotNull();

        assertThat(first.reader.isClosed()).as("table 1's reader, pinned by a read").isFalse();
        assertThat(first.reader.get(key(1), InternalKey.MAX_SEQUENCE))
                .as("the pinned read of table 1").isNotNull();
        first.release();
        second.release();
        assertThat(first.reader.isClosed()).as("table 1's reader once its last use ended").isTrue();
        assertThat(second.reader.isClosed()).as("table 2's reader once its last use ended").isTrue();
    }

    private static void writeTable(MemVfs vfs, long number) throws IOException {
        try (VfsFile file = vfs.create(DIR.resolve(SstableCache.fileName(number)))) {
            SstableWriter writer = new SstableWriter(file, SstableOptions.defaults(), 0, Lz4.fastest());
            writer.add(InternalKey.encode(key(number), 1, InternalKey.KIND_PUT), new byte[] {(byte) number});
            writer.finish();
            file.force();
        }
    }

    private static byte[] key(long number) {
        return ("key" + number).getBytes(StandardCharsets.US_ASCII);
    }
}
