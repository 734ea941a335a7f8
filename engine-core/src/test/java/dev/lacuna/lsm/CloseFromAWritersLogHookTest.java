package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.testing.CallOutcome;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A close from a file system hook in a writer's log append (here the roll to a new segment), which runs under the
 * commit lock: the store's close takes that lock first. While another thread's close waited for it, the hook's close
 * waited for that close: both hung. As the only close, it closed the log under the append in progress. A thread
 * holding the commit lock now counts as one the close waits for: the first returns at once, the second is refused.
 */
class CloseFromAWritersLogHookTest {
    private static final Path DIR = Path.of("/db");
    private static final long WAIT_SECONDS = 20;
    private static final String WRITER = "writer";

    /** Runs {@code hook} once, when the writer's thread creates a log segment, once armed. */
    private static final class RollHook extends ForwardingVfs {
        final AtomicBoolean armed = new AtomicBoolean();
        volatile Runnable hook = () -> { };

        RollHook(MemVfs inner) {
            super(inner);
        }

        @Override
        public VfsFile create(Path file) throws IOException {
            if (Thread.currentThread().getName().equals(WRITER) && file.toString().endsWith(".wal")
                    && armed.compareAndSet(true, false)) {
                hook.run();
            }
            return super.create(file);
        }
    }

    private static KvOptions options(RollHook vfs, MemVfs mem) {
        return KvStoreTest.small(mem, 1).toBuilder().vfs(vfs).build();
    }

    /** Writes until the hook has run (the log rolled on the writer's thread); bounded, should it never run. */
    private static void writeUntilRolled(LsmStore store, RollHook vfs) {
        byte[] value = new byte[512];
        for (int i = 0; vfs.armed.get() && i < 100_000; i++) {
            store.put(("k" + i).getBytes(StandardCharsets.UTF_8), value);
        }
    }

    /** Whether {@code t} waits for the commit lock in the store's close. */
    private static boolean waitsForTheCommitLock(Thread t) {
        return t != null && t.getState() == Thread.State.WAITING && Arrays.stream(t.getStackTrace())
                .anyMatch(f -> f.getClassName().endsWith("LsmStore") && f.getMethodName().equals("closeOnce"))
                && Arrays.stream(t.getStackTrace())
                .anyMatch(f -> f.getClassName().endsWith("CommitLock") && f.getMethodName().equals("lock"));
    }

    @Test
    void shouldReturnFromACloseInAWritersRollWhileAnotherCloseWaitsForTheCommitLock() throws Exception {
        MemVfs mem = new MemVfs();
        RollHook vfs = new RollHook(mem);
        LsmStore store = LsmStore.open(DIR, options(vfs, mem));
        AtomicReference<Thread> first = new AtomicReference<>();
        CountDownLatch inHook = new CountDownLatch(1);
        CallOutcome hookClose = new CallOutcome();
        vfs.hook = () -> {
            inHook.countDown();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            try {
                while (!waitsForTheCommitLock(first.get()) && System.nanoTime() < deadline) {
                    hookClose.awaitEnd(1, TimeUnit.MILLISECONDS); // a timed wait, polling the first close's state
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            hookClose.run(store::close);
        };
        vfs.armed.set(true);
        CallOutcome write = new CallOutcome();
        CallOutcome.startDaemon(() -> write.run(() -> writeUntilRolled(store, vfs)), WRITER);
        assertThat(inHook.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("the writer's roll reached the hook").isTrue();
        CallOutcome firstClose = new CallOutcome();
        first.set(CallOutcome.startDaemon(() -> firstClose.run(store::close), "first-close"));

        assertThat(hookClose.awaitEnd(WAIT_SECONDS, TimeUnit.SECONDS))
                .as("the close in the writer's hook ended").isTrue();
        assertThat(hookClose.thrown()).as("the close in the writer's hook").isNull();
        assertThat(write.awaitEnd(WAIT_SECONDS, TimeUnit.SECONDS)).as("the write ended").isTrue();
        assertThat(firstClose.awaitEnd(WAIT_SECONDS, TimeUnit.SECONDS)).as("the first close ended").isTrue();
        assertThat(firstClose.thrown()).as("the first close").isNull();
        LsmStore.open(DIR, options(vfs, mem)).close(); // the directory was released
    }

    @Test
    void shouldRefuseTheOnlyCloseFromAWritersRollAndStayUsable() throws Exception {
        MemVfs mem = new MemVfs();
        RollHook vfs = new RollHook(mem);
        LsmStore store = LsmStore.open(DIR, options(vfs, mem));
        CallOutcome hookClose = new CallOutcome();
        vfs.hook = () -> hookClose.run(store::close);
        vfs.armed.set(true);
        CallOutcome write = new CallOutcome();
        CallOutcome.startDaemon(() -> write.run(() -> writeUntilRolled(store, vfs)), WRITER);

        assertThat(hookClose.awaitEnd(WAIT_SECONDS, TimeUnit.SECONDS))
                .as("the close in the writer's hook ended").isTrue();
        assertThat(hookClose.thrown()).as("the only close, in the writer's roll")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("call close from another thread");
        assertThat(write.awaitEnd(WAIT_SECONDS, TimeUnit.SECONDS)).as("the writes ended").isTrue();
        assertThat(write.thrown()).as("the writes").isNull();
        byte[] after = "after".getBytes(StandardCharsets.UTF_8);
        store.put(after, after);
        store.close();
        try (LsmStore again = LsmStore.open(DIR, options(vfs, mem))) {
            assertThat(again.get(after)).as("a write after the refused close").isEqualTo(after);
        }
    }
}
