package dev.lacuna.lsm;

import static dev.lacuna.lsm.UnflushedLog.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Recovery sorts and links the rebuilt memtables while the log's open goes on (its repair, its new segment) and the
 * store's (the new manifest). An open that fails meanwhile stops those threads, and the next open recovers every
 * write: here the log cannot create its new segment, after every record was handed over.
 */
class ReplayBuildStopTest {
    /** Fails the creation of any file in the log's directory while armed. */
    private static final class NoNewSegment extends ForwardingVfs {
        volatile boolean armed;

        NoNewSegment(MemVfs vfs) {
            super(vfs);
        }

        @Override
        public VfsFile create(Path file) throws IOException {
            if (armed && file.getParent() != null && file.getParent().endsWith(Recovery.WAL_DIR)) {
                throw new IOException("no space left on device (test)");
            }
            return super.create(file);
        }
    }

    /** The threads building memtables from the replay of the store in {@link UnflushedLog#DIR}. */
    private static List<Thread> buildThreads() {
        List<Thread> found = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("lacuna-replay " + UnflushedLog.DIR)) {
                found.add(t);
            }
        }
        return found;
    }

    @Test
    void shouldStopBuildingWhenTheOpenFailsAfterTheRecordsAndRecoverThemNextTime() throws Exception {
        MemVfs mem = new MemVfs();
        NoNewSegment vfs = new NoNewSegment(mem);
        KvOptions options = UnflushedLog.options(mem, 4).toBuilder().vfs(vfs).build();
        try (LsmStore kv = LsmStore.open(UnflushedLog.DIR, options)) {
            kv.put(key(0), new byte[] {1});
        }
        int writes = 20_000;
        UnflushedLog.appendPuts(mem, options, 1, writes + 1, 40);

        vfs.armed = true;
        assertThatThrownBy(() -> LsmStore.open(UnflushedLog.DIR, options).close())
                .isInstanceOf(StorageIOException.class).hasMessageContaining("no space left on device (test)");
        for (Thread t : buildThreads()) {
            t.join(10_000);
            assertThat(t.isAlive()).as("%s, 10 s after the failed open", t.getName()).isFalse();
        }

        vfs.armed = false;
        try (LsmStore kv = LsmStore.open(UnflushedLog.DIR, options)) {
            for (int i = 0; i <= writes; i++) {
                assertThat(kv.get(key(i))).as("key %d", i).isNotNull();
            }
        }
    }
}
