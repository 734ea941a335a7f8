package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvStoreTest.DIR;
import static dev.lacuna.lsm.KvStoreTest.b;
import static dev.lacuna.lsm.KvStoreTest.s;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.testing.HeldLogForce;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * flush() seals the log's segment being written only when it has nothing to write: sealing waits, under the
 * log's write lock, for a group commit's fsync in flight, and every append waits behind it. A flush that finds
 * the active memtables empty but a frozen one still waiting for its flush (whose job waits for that very
 * fsync) has something to write too: it used to seal, so a plain write stalled until the held fsync ended.
 */
class FlushBehindHeldLogFsyncTest {
    @Test
    void aFlushWaitingForAFrozenMemtableDoesNotHoldWritesBehindALogFsync() throws Exception {
        HeldLogForce vfs = new HeldLogForce(new MemVfs());
        try (LsmStore kv = LsmStore.open(DIR, KvStoreTest.small(new MemVfs(), 1).toBuilder().vfs(vfs).build())) {
            for (int i = 0; i < 20; i++) {
                kv.put(b("k" + i), b("v" + i)); // Durability.NONE: logged, not yet forced
            }
            vfs.hold();
            CompletableFuture<Void> first = CompletableFuture.runAsync(kv::flush); // freezes the memtable
            CompletableFuture<Void> second = null;
            try {
                // The flush job forces the log up to the frozen memtable first: that group commit is held.
                assertThat(vfs.awaitHeld(60_000_000_000L)).isTrue();
                AtomicReference<Thread> flusher = new AtomicReference<>();
                second = CompletableFuture.runAsync(() -> {
                    flusher.set(Thread.currentThread());
                    kv.flush(); // nothing active to freeze, one frozen memtable to wait for
                });
                awaitWaitingIn(flusher, "flush");
                CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> kv.put(b("later"), b("x")));
                writer.get(30, TimeUnit.SECONDS); // a TimeoutException: the write waited behind the held fsync
                assertThat(s(kv.get(b("later")))).isEqualTo("x");
            } finally {
                vfs.release();
            }
            first.get(60, TimeUnit.SECONDS);
            second.get(60, TimeUnit.SECONDS);
            assertThat(s(kv.get(b("k7")))).isEqualTo("v7");
        }
    }

    /** Waits (with a bound) until the thread is blocked somewhere inside LsmStore.{@code method}. */
    private static void awaitWaitingIn(AtomicReference<Thread> thread, String method) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            Thread t = thread.get();
            if (t != null && (t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING)
                    && Arrays.stream(t.getStackTrace()).anyMatch(f -> f.getClassName().equals(LsmStore.class.getName())
                            && f.getMethodName().equals(method))) {
                return;
            }
            assertThat(System.nanoTime()).as("the flush reaches its wait").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }
}
