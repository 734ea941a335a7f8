package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.Item;
import dev.lacuna.PutItem;
import dev.lacuna.TableSpec;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import dev.lacuna.vfs.VfsLock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A second close racing a first one that waits (here for a checkpoint running in another thread, held inside the
 * file system) returned at once, as the store already counted as closed: its caller's re-open of the directory was
 * then refused (the first close still held the lock) until the first close ended. Every close now returns only
 * once the store is closed and the directory released; a close that waited for one that failed reports the failure
 * rather than hang or pretend all went well.
 */
class ConcurrentCloseReturnsEarlyTest {
    private static final Path DIR = Path.of("/db");
    private static final Path COPY = Path.of("/copy");
    private static final long WAIT_SECONDS = 60;

    private final CloseWaitLog log = new CloseWaitLog();

    @BeforeEach
    void captureInfo() {
        log.start();
    }

    @AfterEach
    void restoreLogging() {
        log.stop();
    }

    /** Holds the first file a checkpoint creates in {@link #COPY} until {@link #resume}; can fail the lock release. */
    private static final class HeldCheckpoint extends ForwardingVfs {
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch resume = new CountDownLatch(1);
        volatile boolean failLockRelease;

        HeldCheckpoint(MemVfs inner) {
            super(inner);
        }

        @Override
        public VfsFile create(Path file) throws IOException {
            if (file.startsWith(COPY) && held.getCount() > 0) {
                held.countDown();
                try {
                    resume.await(WAIT_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return super.create(file);
        }

        @Override
        public VfsLock lock(Path lockFile) throws IOException {
            VfsLock lock = super.lock(lockFile);
            return () -> {
                lock.close(); // released: only the close's report fails
                if (failLockRelease) {
                    throw new AssertionError("injected: releasing the lock failed");
                }
            };
        }
    }

    /** The outcome of a close called in a thread of its own, and of the re-open its caller makes right after. */
    private static final class SecondClose {
        final CountDownLatch returned = new CountDownLatch(1);
        final AtomicReference<Throwable> closeThrew = new AtomicReference<>();
        final AtomicReference<Throwable> reopenThrew = new AtomicReference<>();
        /** Whether the thread's interrupt flag was set when the close returned. */
        volatile boolean interruptedOnReturn;
        final Thread thread;

        SecondClose(Runnable close, Runnable reopen) {
            thread = new Thread(() -> {
                try {
                    close.run();
                } catch (Throwable t) {
                    closeThrew.set(t);
                }
                interruptedOnReturn = Thread.interrupted(); // cleared: the re-open must not see it
                try {
                    reopen.run(); // at once, as the caller of a close that returned may
                } catch (Throwable t) {
                    reopenThrew.set(t);
                }
                returned.countDown();
            }, "second-close");
            thread.start();
        }

        /** Waits until the close returned or waits (for the first close, with the fix). */
        void awaitReturnedOrWaiting() throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (!returned.await(10, TimeUnit.MILLISECONDS) && thread.getState() != Thread.State.WAITING
                    && System.nanoTime() < deadline) {
                // polls the thread's state: it has no other way to say it waits
            }
        }

        void join() throws InterruptedException {
            thread.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            assertThat(thread.isAlive()).as("the second close returned").isFalse();
        }
    }

    private static KvOptions options(MemVfs mem, HeldCheckpoint vfs) {
        return KvStoreTest.small(mem, 1).toBuilder().vfs(vfs).build();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A first close waiting for {@code held}'s checkpoint, started in a thread of its own. */
    private Thread firstCloseWaiting(Runnable close, Runnable checkpoint, HeldCheckpoint held,
                                     AtomicReference<Throwable> firstThrew) throws InterruptedException {
        Thread checkpointer = new Thread(() -> {
            try {
                checkpoint.run();
            } catch (RuntimeException e) {
                System.out.println("the checkpoint: " + e); // may fail on the closing store: not the point here
            }
        }, "checkpointer");
        checkpointer.start();
        assertThat(held.held.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("the checkpoint is held").isTrue();
        Thread first = new Thread(() -> {
            try {
                close.run();
            } catch (Throwable t) {
                firstThrew.set(t);
            }
        }, "first-close");
        first.start();
        assertThat(log.closeWaits.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("the first close waits for the checkpoint")
                .isTrue();
        return first;
    }

    /** What a race of two closes gave: the second close, what the first threw, whether the second returned early. */
    private record Race(SecondClose second, Throwable firstThrew, boolean returnedEarly) {
    }

    /**
     * Runs {@code close} in a thread while {@code checkpoint} is held, then again in a second thread (interrupted once
     * it waits, if {@code interrupt}), which runs {@code reopen} right after; then lets the checkpoint go on.
     */
    private Race race(Runnable close, Runnable checkpoint, Runnable reopen, HeldCheckpoint vfs, boolean interrupt)
            throws InterruptedException {
        AtomicReference<Throwable> firstThrew = new AtomicReference<>();
        Thread first = firstCloseWaiting(close, checkpoint, vfs, firstThrew);
        SecondClose second = new SecondClose(close, reopen);
        second.awaitReturnedOrWaiting();
        boolean returnedEarly = second.returned.getCount() == 0;
        if (interrupt) {
            second.thread.interrupt();
        }
        vfs.resume.countDown();
        second.join();
        first.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        assertThat(first.isAlive()).as("the first close returned").isFalse();
        return new Race(second, firstThrew.get(), returnedEarly);
    }

    private static void assertReturnedOnceReleased(Race race) {
        assertThat(race.returnedEarly()).as("the second close returned while the first still waited (the re-open after"
                + " it: %s)", race.second().reopenThrew.get()).isFalse();
        assertThat(race.second().closeThrew.get()).as("the second close").isNull();
        assertThat(race.second().reopenThrew.get()).as("the re-open right after the second close returned").isNull();
        assertThat(race.firstThrew()).as("the first close").isNull();
    }

    @Test
    void shouldReturnFromASecondCloseOnlyOnceTheDirectoryIsReleased() throws Exception {
        MemVfs mem = new MemVfs();
        HeldCheckpoint vfs = new HeldCheckpoint(mem);
        LsmStore store = LsmStore.open(DIR, options(mem, vfs));
        store.put(bytes("k"), bytes("v"));
        assertReturnedOnceReleased(race(store::close, () -> store.checkpoint(COPY),
                () -> LsmStore.open(DIR, options(mem, vfs)).close(), vfs, false));
        try (LsmStore again = LsmStore.open(DIR, options(mem, vfs))) {
            assertThat(again.get(bytes("k"))).isEqualTo(bytes("v"));
        }
    }

    /**
     * An interrupt does not end a second close's wait (its caller would take the directory for released): it returns
     * once the first close ended, with its interrupt flag set.
     */
    @Test
    void shouldKeepWaitingThroughAnInterrupt() throws Exception {
        MemVfs mem = new MemVfs();
        HeldCheckpoint vfs = new HeldCheckpoint(mem);
        LsmStore store = LsmStore.open(DIR, options(mem, vfs));
        Race race = race(store::close, () -> store.checkpoint(COPY),
                () -> LsmStore.open(DIR, options(mem, vfs)).close(), vfs, true);
        assertReturnedOnceReleased(race);
        assertThat(race.second().interruptedOnReturn).as("the interrupt flag when the second close returned").isTrue();
    }

    /**
     * The first close fails (an Error, releasing the lock): the second, waiting for it, must still return, and say
     * that the close failed rather than return as if all went well.
     */
    @Test
    void shouldEndASecondCloseWaitingForAFirstOneThatFails() throws Exception {
        MemVfs mem = new MemVfs();
        HeldCheckpoint vfs = new HeldCheckpoint(mem);
        LsmStore store = LsmStore.open(DIR, options(mem, vfs));
        store.put(bytes("k"), bytes("v"));
        vfs.failLockRelease = true;
        Race race = race(store::close, () -> store.checkpoint(COPY), () -> { }, vfs, false);
        assertThat(race.firstThrew()).as("the first close").isInstanceOf(AssertionError.class)
                .hasMessageContaining("injected");
        assertThat(race.returnedEarly()).as("the second close returned while the first still waited").isFalse();
        assertThat(race.second().closeThrew.get()).as("the second close, after the first failed")
                .isInstanceOf(StorageIOException.class).hasCause(race.firstThrew());
        store.close(); // after the failed close has ended: no effect, as for any close of a closed store
        vfs.failLockRelease = false;
        try (LsmStore again = LsmStore.open(DIR, options(mem, vfs))) {
            assertThat(again.get(bytes("k"))).isEqualTo(bytes("v"));
        }
    }

    /** The same through the item API: Database.close (the item engine's) waits for the close under way. */
    @Test
    void shouldReturnFromASecondDatabaseCloseOnlyOnceTheDirectoryIsReleased() throws Exception {
        MemVfs mem = new MemVfs();
        HeldCheckpoint vfs = new HeldCheckpoint(mem);
        DatabaseOptions options = DatabaseOptions.builder().vfs(vfs).build();
        Database db = Database.open(DIR, options);
        db.createTable(TableSpec.builder("Tab").partitionKey("pk", AttributeValue.Type.S).build());
        db.putItem("Tab", new PutItem(Item.builder().s("pk", "a").build()));
        assertReturnedOnceReleased(race(db::close, () -> db.checkpoint(COPY), () -> Database.open(DIR, options).close(),
                vfs, false));
    }
}
