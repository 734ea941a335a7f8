package dev.lacuna.lsm;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * An open that fails once the store has queued its first background jobs (a compaction check per partition, a
 * flush of a memtable replayed over its size) stops the background threads it started, before the files and
 * the lock are given back: the pool's threads never end on their own, and a job left running would work on a
 * store whose files were closed and whose directory another open may already have.
 */
class FailedStartStopsBackgroundTest {
    private static final Path DIR = Path.of("/db");

    private static Set<Thread> backgroundThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("lacuna-bg-")).collect(Collectors.toSet());
    }

    @Test
    void shouldStopTheBackgroundThreadsWhenTheStartFailsAfterQueueingWork() {
        MemVfs vfs = new MemVfs();
        KvOptions options = KvOptions.builder().vfs(vfs).memtableBytes(64 * 1024).build();
        try (LsmStore store = LsmStore.open(DIR, options)) {
            for (int i = 0; i < 100; i++) {
                store.put(("k" + i).getBytes(UTF_8), new byte[1024]); // replayed over the memtable's size
            }
        }
        Set<Thread> before = backgroundThreads();
        boolean[] queued = {false};
        assertThatThrownBy(() -> Recovery.open(DIR, options, LsmStore.OWNER_KV, (db, lock) -> LsmStore.start(db, lock,
                store -> {
                    store.startBackgroundWork();
                    queued[0] = !backgroundThreads().equals(before);
                    throw new AssertionError("injected after the background work was queued");
                }))).isInstanceOf(AssertionError.class).hasMessageContaining("injected");
        assertThat(queued[0]).as("background threads started before the failure").isTrue();
        List<String> left = backgroundThreads().stream().filter(t -> !before.contains(t)).map(Thread::getName)
                .sorted().toList();
        assertThat(left).as("background threads of the failed open still alive").isEmpty();
        try (LsmStore store = LsmStore.open(DIR, options)) { // the lock was given back, the files are whole
            assertThat(store.get("k99".getBytes(UTF_8))).hasSize(1024);
        }
    }
}
