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
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Recovery sorts and links the rebuilt memtables while the log's open goes on (its repair, its new segment) and the
 * store's (the new manifest). An open that fails meanwhile stops those threads and waits for them before it throws,
 * handing the replay's memory back for an open retried at once, and the next open recovers every write: here the log
 * cannot create its new segment, after every record was handed over. Found by a review: the threads, only
 * interrupted, went on sorting and linking after the open had thrown (seen failing: two caught in the build), and
 * a retry at once needed the heap of two replays.
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

    /** The threads building memtables for the store in {@link UnflushedLog#DIR}, caught inside the build. */
    private static List<String> stillBuilding() {
        List<String> found = new ArrayList<>();
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            if (e.getKey().getName().equals("lacuna-replay " + UnflushedLog.DIR)) {
                for (StackTraceElement f : e.getValue()) {
                    if (f.getClassName().equals(Replay.class.getName()) && f.getMethodName().equals("built")) {
                        found.add(e.getKey().getName() + " at " + e.getValue()[0]);
                        break;
                    }
                }
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
        int writes = 600_000; // enough that sorting and linking outlast the log's failing open
        UnflushedLog.appendPuts(mem, options, 1, writes + 1, 8);

        vfs.armed = true;
        assertThatThrownBy(() -> LsmStore.open(UnflushedLog.DIR, options).close())
                .isInstanceOf(StorageIOException.class).hasMessageContaining("no space left on device (test)");
        assertThat(stillBuilding()).as("the failed open's build threads, once it threw").isEmpty();

        vfs.armed = false;
        try (LsmStore kv = LsmStore.open(UnflushedLog.DIR, options)) {
            for (int i = 0; i <= writes; i++) {
                assertThat(kv.get(key(i))).as("key %d", i).isNotNull();
            }
        }
    }
}
