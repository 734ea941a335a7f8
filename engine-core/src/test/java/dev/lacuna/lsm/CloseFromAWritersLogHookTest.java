package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
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

    /** What a call made on another thread did; awaited with a timeout, so that a hang fails the test. */
    private static final class Outcome {
        final CountDownLatch ended = new CountDownLatch(1);
        final AtomicReference<Throwable> thrown = new AtomicReference<>();

        void run(Runnable call) {
            try {
                call.run();
            } catch (Throwable t) {
                thrown.set(t);
            } finally {
                ended.countDown();
            }
        }

        boolean awaitEnd() throws InterruptedException {
            return ended.await(WAIT_SECONDS, TimeUnit.SECONDS);
        }
    }

    private static Thread start(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
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
        Outcome hookClose = new Outcome();
        vfs.hook = () -> {
            inHook.countDown();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            try {
                while (!waitsForTheCommitLock(first.get()) && System.nanoTime() < deadline) {
                    hookClose.ended.await(1, TimeUnit.MILLISECONDS); // a timed wait, polling the first close's state
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            hookClose.run(store::close);
        };
        vfs.armed.set(true);
        Outcome write = new Outcome();
        start(() -> write.run(() -> writeUntilRolled(store, vfs)), WRITER);
        assertThat(inHook.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("the writer's roll reached the hook").isTrue();
        Outcome firstClose = new Outcome();
        first.set(start(() -> firstClose.run(store::close), "first-close"));

        assertThat(hookClose.awaitEnd()).as("the close in the writer's hook ended").isTrue();
        assertThat(hookClose.thrown.get()).as("the close in the writer's hook").isNull();
        assertThat(write.awaitEnd()).as("the write ended").isTrue();
        assertThat(firstClose.awaitEnd()).as("the first close ended").isTrue();
        assertThat(firstClose.thrown.get()).as("the first close").isNull();
        LsmStore.open(DIR, options(vfs, mem)).close(); // the directory was released
    }

    @Test
    void shouldRefuseTheOnlyCloseFromAWritersRollAndStayUsable() throws Exception {
        MemVfs mem = new MemVfs();
        RollHook vfs = new RollHook(mem);
        LsmStore store = LsmStore.open(DIR, options(vfs, mem));
        Outcome hookClose = new Outcome();
        vfs.hook = () -> hookClose.run(store::close);
        vfs.armed.set(true);
        Outcome write = new Outcome();
        start(() -> write.run(() -> writeUntilRolled(store, vfs)), WRITER);

        assertThat(hookClose.awaitEnd()).as("the close in the writer's hook ended").isTrue();
        assertThat(hookClose.thrown.get()).as("the only close, in the writer's roll")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("call close from another thread");
        assertThat(write.awaitEnd()).as("the writes ended").isTrue();
        assertThat(write.thrown.get()).as("the writes").isNull();
        byte[] after = "after".getBytes(StandardCharsets.UTF_8);
        store.put(after, after);
        store.close();
        try (LsmStore again = LsmStore.open(DIR, options(vfs, mem))) {
            assertThat(again.get(after)).as("a write after the refused close").isEqualTo(after);
        }
    }
}
