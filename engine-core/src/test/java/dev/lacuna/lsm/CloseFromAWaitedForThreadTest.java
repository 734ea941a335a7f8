package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.Item;
import dev.lacuna.PutItem;
import dev.lacuna.TableSpec;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A close called (from a file system hook) on a thread that a close already under way waits for must return at once:
 * waiting for that close, which waits for the calling thread, hangs both. Catches threads left out of the set a close
 * does not wait on: a background flush thread at the item engine's level, a caller's thread running a checkpoint the
 * close waits for, the log's batched-durability syncer, a SYNC writer leading the log's fsync.
 */
class CloseFromAWaitedForThreadTest {
    private static final Path DIR = Path.of("/db");
    private static final Path COPY = Path.of("/copy");
    private static final long WAIT_SECONDS = 20;

    private final CloseWaitLog log = new CloseWaitLog();

    @BeforeEach
    void captureInfo() {
        log.start();
    }

    @AfterEach
    void restoreLogging() {
        log.stop();
    }

    /** Runs {@code action} once, on the first create() matching {@code when}, once armed. */
    private static final class HookVfs extends ForwardingVfs {
        final AtomicBoolean armed = new AtomicBoolean();
        volatile Predicate<Path> when = p -> false;
        volatile Runnable action = () -> { };

        HookVfs(MemVfs inner) {
            super(inner);
        }

        @Override
        public VfsFile create(Path file) throws IOException {
            if (when.test(file) && armed.compareAndSet(true, false)) {
                action.run();
            }
            return super.create(file);
        }
    }

    private static boolean inFrame(Thread t, String cls, String method) {
        return t != null && Arrays.stream(t.getStackTrace())
                .anyMatch(f -> f.getClassName().endsWith(cls) && f.getMethodName().equals(method));
    }

    /** Waits (timed, polling) until {@code t} is inside {@code cls.method}. */
    private static void awaitInFrame(AtomicReference<Thread> t, String cls, String method) {
        CountDownLatch never = new CountDownLatch(1);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!inFrame(t.get(), cls, method) && System.nanoTime() < deadline) {
            try {
                never.await(1, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /**
     * A hook that says it was entered, waits until the first close waits for its thread ({@code awaitFirst}), then
     * closes ({@code close}) and says it returned, keeping what the close threw.
     */
    private static Runnable closingHook(CountDownLatch entered, Runnable awaitFirst, Runnable close,
            AtomicReference<Throwable> failure, CountDownLatch closed) {
        return () -> {
            entered.countDown();
            awaitFirst.run();
            try {
                close.run();
            } catch (Throwable t) {
                failure.set(t);
            }
            closed.countDown();
        };
    }

    /** A file system that runs {@code hook} once, in the first fsync on a thread for which {@code on} holds. */
    private static ForwardingVfs forceHook(MemVfs mem, java.util.function.BooleanSupplier on, AtomicBoolean armed,
            Runnable hook) {
        return new ForwardingVfs(mem) {
            @Override
            protected VfsFile wrap(VfsFile file) {
                return new ForwardingVfs.File(file) {
                    @Override
                    public void force() throws IOException {
                        if (on.getAsBoolean() && armed.compareAndSet(true, false)) {
                            hook.run();
                        }
                        super.force();
                    }
                };
            }
        };
    }

    /**
     * Starts the first close ({@code close}, its thread published in {@code first}) while the hook waits for it, and
     * asserts that the hook's own close ({@code hookClosed}, {@code hookClose}) and then the first close returned.
     */
    private static void assertBothReturn(Runnable close, AtomicReference<Thread> first, CountDownLatch hookClosed,
            AtomicReference<Throwable> hookClose, String what) throws InterruptedException {
        Thread closer = daemon(close, "first-close");
        first.set(closer);
        closer.start();
        boolean returned = hookClosed.await(WAIT_SECONDS, TimeUnit.SECONDS);
        if (!returned) {
            System.out.println("DEADLOCK first-close stack: " + Arrays.toString(closer.getStackTrace()));
        }
        assertThat(returned).as(what).isTrue();
        closer.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        assertThat(closer.isAlive()).as("the first close returned").isFalse();
        assertThat(hookClose.get()).as("the hook's close").isNull();
    }

    /**
     * A background (flush) thread's file system hook calls Database.close while another thread's close waits in
     * Background.shutdown for that very thread. LsmStore's close exempted its background threads, but the item
     * engine's CloseOnce, which Database.close goes through first, did not: it waited for the first close.
     */
    @Test
    void databaseCloseFromABackgroundThreadHookWhileAnotherCloseWaitsForIt() throws Exception {
        MemVfs mem = new MemVfs();
        HookVfs vfs = new HookVfs(mem);
        DatabaseOptions options = DatabaseOptions.builder().vfs(vfs).build();
        Database db = Database.open(DIR, options);
        db.createTable(TableSpec.builder("Tab").partitionKey("pk", AttributeValue.Type.S).build());
        db.putItem("Tab", new PutItem(Item.builder().s("pk", "a").build()));

        AtomicReference<Thread> first = new AtomicReference<>();
        AtomicReference<Throwable> hookClose = new AtomicReference<>();
        CountDownLatch hookEntered = new CountDownLatch(1);
        CountDownLatch hookClosed = new CountDownLatch(1);
        vfs.when = p -> p.toString().endsWith(".sst") && Thread.currentThread().getName().startsWith("lacuna-bg-");
        vfs.action = () -> {
            hookEntered.countDown();
            awaitInFrame(first, "Background", "shutdown"); // the first close waits for this thread
            try {
                db.close();
            } catch (Throwable t) {
                hookClose.set(t);
            }
            hookClosed.countDown();
        };
        vfs.armed.set(true);
        Thread flusher = daemon(() -> {
            try {
                db.flush();
            } catch (RuntimeException e) {
                System.out.println("the flush: " + e); // may fail on the closing store
            }
        }, "flusher");
        flusher.start();
        assertThat(hookEntered.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("a background flush reached the hook")
                .isTrue();
        assertBothReturn(db::close, first, hookClosed, hookClose,
                "the close in the background thread's hook returned");
    }

    /**
     * The same from a checkpoint running in a caller's thread: the first close waits for it (awaitCallerWork), and a
     * hook in the checkpoint's thread that closes the database waits for the first close.
     */
    @Test
    void databaseCloseFromACheckpointThreadHookWhileAnotherCloseWaitsForIt() throws Exception {
        MemVfs mem = new MemVfs();
        HookVfs vfs = new HookVfs(mem);
        DatabaseOptions options = DatabaseOptions.builder().vfs(vfs).build();
        Database db = Database.open(DIR, options);
        db.createTable(TableSpec.builder("Tab").partitionKey("pk", AttributeValue.Type.S).build());
        db.putItem("Tab", new PutItem(Item.builder().s("pk", "a").build()));

        AtomicReference<Throwable> hookClose = new AtomicReference<>();
        CountDownLatch hookEntered = new CountDownLatch(1);
        CountDownLatch hookClosed = new CountDownLatch(1);
        vfs.when = p -> p.startsWith(COPY);
        vfs.action = () -> {
            hookEntered.countDown();
            try {
                log.closeWaits.await(WAIT_SECONDS, TimeUnit.SECONDS); // the first close waits for this checkpoint
                db.close();
            } catch (Throwable t) {
                hookClose.set(t);
            }
            hookClosed.countDown();
        };
        vfs.armed.set(true);
        Thread checkpointer = daemon(() -> {
            try {
                db.checkpoint(COPY);
            } catch (RuntimeException e) {
                System.out.println("the checkpoint: " + e);
            }
        }, "checkpointer");
        checkpointer.start();
        assertThat(hookEntered.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("the checkpoint reached the hook").isTrue();
        assertBothReturn(db::close, new AtomicReference<>(), hookClosed, hookClose,
                "the close in the checkpoint thread's hook returned");
    }

    /**
     * LsmStore's exemption knew the background pool's threads only: the log's batched-durability syncer thread
     * (lacuna-wal-sync-*), which the close joins in Wal.close, was not exempt. A file system hook in its fsync that
     * closes the store waited for the first close, which waited for it.
     */
    @Test
    void storeCloseFromTheLogSyncerThreadHookWhileAnotherCloseWaitsForIt() throws Exception {
        MemVfs mem = new MemVfs();
        AtomicReference<Thread> first = new AtomicReference<>();
        AtomicReference<Throwable> hookClose = new AtomicReference<>();
        AtomicReference<LsmStore> storeRef = new AtomicReference<>();
        CountDownLatch hookEntered = new CountDownLatch(1);
        CountDownLatch hookClosed = new CountDownLatch(1);
        AtomicBoolean armed = new AtomicBoolean(true);
        // The first close joins the syncer's thread, where the hook runs.
        Runnable hook = closingHook(hookEntered, () -> awaitInFrame(first, "BatchedSyncer", "stop"),
                () -> storeRef.get().close(), hookClose, hookClosed);
        ForwardingVfs vfs = forceHook(mem, () -> Thread.currentThread().getName().startsWith("lacuna-wal-sync-")
                && storeRef.get() != null, armed, hook);
        LsmStore store = LsmStore.open(DIR, KvStoreTest.small(mem, 1).toBuilder().vfs(vfs)
                .durability(dev.lacuna.storage.Durability.batched(java.time.Duration.ofMillis(1))).build());
        storeRef.set(store);
        store.put("k".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                "v".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(hookEntered.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("the syncer's fsync reached the hook")
                .isTrue();
        assertBothReturn(store::close, first, hookClosed, hookClose,
                "the close in the syncer thread's hook returned");
    }

    /**
     * A writer leading the log's group fsync (a SYNC write) is a thread the close waits for too: Wal.close waits for
     * the leader to finish before it closes the files. A file system hook in that fsync which closes the store waited
     * for the first close, which waited for it.
     */
    @Test
    void storeCloseFromASyncWritersFsyncHookWhileAnotherCloseWaitsForIt() throws Exception {
        MemVfs mem = new MemVfs();
        AtomicReference<Thread> first = new AtomicReference<>();
        AtomicReference<Throwable> hookClose = new AtomicReference<>();
        AtomicReference<LsmStore> storeRef = new AtomicReference<>();
        CountDownLatch hookEntered = new CountDownLatch(1);
        CountDownLatch hookClosed = new CountDownLatch(1);
        AtomicBoolean armed = new AtomicBoolean(true);
        // The first close waits in Wal.close for this fsync's leader, where the hook runs.
        Runnable hook = closingHook(hookEntered, () -> awaitInFrame(first, "Wal", "close"),
                () -> storeRef.get().close(), hookClose, hookClosed);
        ForwardingVfs vfs = forceHook(mem, () -> Thread.currentThread().getName().equals("sync-writer"), armed, hook);
        LsmStore store = LsmStore.open(DIR, KvStoreTest.small(mem, 1).toBuilder().vfs(vfs)
                .durability(dev.lacuna.storage.Durability.SYNC).build());
        storeRef.set(store);
        Thread writer = daemon(() -> {
            try {
                store.put("k".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                        "v".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            } catch (RuntimeException e) {
                System.out.println("the write: " + e); // may fail on the closing store
            }
        }, "sync-writer");
        writer.start();
        assertThat(hookEntered.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("the writer's fsync reached the hook")
                .isTrue();
        assertBothReturn(store::close, first, hookClosed, hookClose,
                "the close in the sync writer's fsync hook returned");
    }
}
