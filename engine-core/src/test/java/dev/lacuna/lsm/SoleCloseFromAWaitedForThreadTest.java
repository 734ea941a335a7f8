package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.GetItem;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.PutItem;
import dev.lacuna.StreamBatch;
import dev.lacuna.StreamConsumer;
import dev.lacuna.StreamProcessor;
import dev.lacuna.StreamSpecification;
import dev.lacuna.StreamViewType;
import dev.lacuna.TableSpec;
import dev.lacuna.storage.DatabaseClosedException;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.testing.CallOutcome;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * The only close, called from a thread whose work that close would wait for (a file system hook in a checkpoint, in a
 * SYNC writer's fsync, in a background flush, in the log's syncer): it waited for itself for good, and every later
 * close waited behind it. It is now refused with an IllegalStateException, and the store stays open and usable until
 * a close from another thread. A stream handler's close is the exception: the close skips only the handler's own
 * processor thread, which ends once the handler returns, so it closes the database.
 */
class SoleCloseFromAWaitedForThreadTest {
    private static final Path DIR = Path.of("/db");
    private static final Path COPY = Path.of("/copy");
    private static final long WAIT_SECONDS = 20;
    private static final String TABLE = "Tab";

    private static void assertEnded(CallOutcome call, String what) throws InterruptedException {
        assertThat(call.awaitEnd(WAIT_SECONDS, TimeUnit.SECONDS)).as(what + " ended").isTrue();
    }

    private static void assertReturned(CallOutcome call, String what) throws InterruptedException {
        assertEnded(call, what);
        assertThat(call.thrown()).as(what).isNull();
    }

    /** The close was refused, saying what to do, rather than waiting for its own thread. */
    private static void assertRefused(CallOutcome call, String what) throws InterruptedException {
        assertEnded(call, what);
        assertThat(call.thrown()).as(what).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("call close from another thread");
    }

    /** Runs {@code action} once, in the first create() matching {@code when}, once armed. */
    private static final class CreateHook extends ForwardingVfs {
        final AtomicBoolean armed = new AtomicBoolean();
        volatile Predicate<Path> when = p -> false;
        volatile Runnable action = () -> { };

        CreateHook(MemVfs inner) {
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

    /** A file system that runs {@code hook} once, in the first fsync on a thread for which {@code on} holds. */
    private static ForwardingVfs forceHook(MemVfs mem, BooleanSupplier on, AtomicBoolean armed, Runnable hook) {
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

    private static Database openWithTable(DatabaseOptions options) {
        Database db = Database.open(DIR, options);
        db.createTable(TableSpec.builder(TABLE).partitionKey("pk", AttributeValue.Type.S).build());
        db.putItem(TABLE, new PutItem(Item.builder().s("pk", "a").build()));
        return db;
    }

    private static GetItem key(String pk) {
        return new GetItem(Key.of("pk", AttributeValue.s(pk)));
    }

    /**
     * The refused close left the database open and usable; a close from this thread then closes it and releases the
     * directory, and what was written is there after a re-open.
     */
    private static void assertUsableThenClosesNormally(Database db, DatabaseOptions options) {
        db.putItem(TABLE, new PutItem(Item.builder().s("pk", "after").build()));
        assertThat(db.getItem(TABLE, key("a"))).as("an item written before").isPresent();
        db.close();
        assertThatThrownBy(() -> db.getItem(TABLE, key("a"))).isInstanceOf(DatabaseClosedException.class);
        try (Database again = Database.open(DIR, options)) { // refused if the LOCK were still held
            assertThat(again.getItem(TABLE, key("after"))).as("an item written after the refused close").isPresent();
        }
    }

    @Test
    void shouldRefuseACloseFromAHookInACheckpointAndStayUsable() throws Exception {
        MemVfs mem = new MemVfs();
        CreateHook vfs = new CreateHook(mem);
        DatabaseOptions options = DatabaseOptions.builder().vfs(vfs).build();
        Database db = openWithTable(options);
        CallOutcome hookClose = new CallOutcome();
        vfs.when = p -> p.startsWith(COPY);
        vfs.action = () -> hookClose.run(db::close); // the close would wait for this very checkpoint
        vfs.armed.set(true);
        CallOutcome checkpoint = new CallOutcome();
        CallOutcome.startDaemon(() -> checkpoint.run(() -> db.checkpoint(COPY)), "checkpointer");

        assertRefused(hookClose, "a close from a hook inside a checkpoint");
        assertReturned(checkpoint, "the checkpoint");
        assertUsableThenClosesNormally(db, options);
        try (Database copy = Database.open(COPY, options)) {
            assertThat(copy.getItem(TABLE, key("a"))).as("the checkpoint's copy").isPresent();
        }
    }

    @Test
    void shouldRefuseACloseFromAHookInASyncWritersFsyncAndStayUsable() throws Exception {
        MemVfs mem = new MemVfs();
        AtomicReference<Database> dbRef = new AtomicReference<>();
        CallOutcome hookClose = new CallOutcome();
        AtomicBoolean armed = new AtomicBoolean(true);
        // The writer leads the log's group fsync, which the close waits for.
        ForwardingVfs vfs = forceHook(mem, () -> Thread.currentThread().getName().equals("sync-writer"), armed,
                () -> hookClose.run(() -> dbRef.get().close()));
        DatabaseOptions options = DatabaseOptions.builder().vfs(vfs).durability(Durability.SYNC).build();
        Database db = openWithTable(options);
        dbRef.set(db);
        CallOutcome write = new CallOutcome();
        CallOutcome.startDaemon(
                () -> write.run(() -> db.putItem(TABLE, new PutItem(Item.builder().s("pk", "w").build()))),
                "sync-writer");

        assertRefused(hookClose, "a close from a hook inside a SYNC writer's fsync");
        assertReturned(write, "the SYNC write");
        assertThat(db.getItem(TABLE, key("w"))).as("the SYNC write").isPresent();
        assertUsableThenClosesNormally(db, options);
    }

    @Test
    void shouldRefuseACloseFromAHookInABackgroundFlushAndStayUsable() throws Exception {
        MemVfs mem = new MemVfs();
        CreateHook vfs = new CreateHook(mem);
        DatabaseOptions options = DatabaseOptions.builder().vfs(vfs).build();
        Database db = openWithTable(options);
        CallOutcome hookClose = new CallOutcome();
        vfs.when = p -> p.toString().endsWith(".sst") && Thread.currentThread().getName().startsWith("lacuna-bg-");
        vfs.action = () -> hookClose.run(db::close); // the close would wait for this background job
        vfs.armed.set(true);
        CallOutcome flush = new CallOutcome();
        CallOutcome.startDaemon(() -> flush.run(db::flush), "flusher");

        assertRefused(hookClose, "a close from a hook inside a background flush");
        assertReturned(flush, "the flush");
        assertUsableThenClosesNormally(db, options);
    }

    @Test
    void shouldRefuseAStoreCloseFromAHookInTheLogSyncerAndStayUsable() throws Exception {
        MemVfs mem = new MemVfs();
        AtomicReference<LsmStore> storeRef = new AtomicReference<>();
        CallOutcome hookClose = new CallOutcome();
        AtomicBoolean armed = new AtomicBoolean(true);
        // The close joins the batched-durability syncer's thread, where the hook runs.
        ForwardingVfs vfs = forceHook(mem, () -> Thread.currentThread().getName().startsWith("lacuna-wal-sync-")
                && storeRef.get() != null, armed, () -> hookClose.run(() -> storeRef.get().close()));
        dev.lacuna.kv.KvOptions options = KvStoreTest.small(mem, 1).toBuilder().vfs(vfs)
                .durability(Durability.batched(Duration.ofMillis(1))).build();
        LsmStore store = LsmStore.open(DIR, options);
        storeRef.set(store);
        store.put(bytes("k"), bytes("v"));

        assertRefused(hookClose, "a close from a hook inside the log syncer's fsync");
        store.put(bytes("k2"), bytes("v2"));
        store.close();
        try (LsmStore again = LsmStore.open(DIR, options)) {
            assertThat(again.get(bytes("k2"))).as("a write after the refused close").isEqualTo(bytes("v2"));
        }
    }

    /**
     * A stream handler that shuts the application down by closing the database: the close stops everything but the
     * handler's own processor thread (which ends once the handler returns) and releases the directory. The batch
     * the handler had is not committed, so a consumer opened again gets it again (at least once).
     */
    @Test
    void shouldCloseTheDatabaseFromAStreamHandler() throws Exception {
        MemVfs vfs = new MemVfs();
        DatabaseOptions options = DatabaseOptions.builder().vfs(vfs).build();
        Database db = Database.open(DIR, options);
        db.createTable(TableSpec.builder(TABLE).partitionKey("pk", AttributeValue.Type.S).build()
                .withStreamSpecification(StreamSpecification.enabled(StreamViewType.NEW_IMAGE)));
        CallOutcome handlerClose = new CallOutcome();
        CountDownLatch handled = new CountDownLatch(1);
        StreamConsumer consumer = db.streamConsumer(TABLE, "stopper");
        StreamProcessor processor = consumer.start(records -> {
            if (handled.getCount() > 0) {
                handled.countDown();
                handlerClose.run(db::close);
            }
        }, 10);
        db.putItem(TABLE, new PutItem(Item.builder().s("pk", "a").build()));

        assertReturned(handlerClose, "a stream handler's close of the database");
        awaitStopped(processor);
        assertThat(processor.failure()).as("the processor's failure").isNull();
        assertThatThrownBy(() -> db.getItem(TABLE, key("a"))).isInstanceOf(DatabaseClosedException.class);
        try (Database again = Database.open(DIR, options);
             StreamConsumer redo = again.streamConsumer(TABLE, "stopper")) {
            StreamBatch batch = redo.poll(10);
            assertThat(batch.records()).as("the uncommitted batch, delivered again").hasSize(1);
        }
    }

    /** Waits (timed, polling) until the processor's thread has ended; fails if it has not. */
    private static void awaitStopped(StreamProcessor processor) throws InterruptedException {
        CountDownLatch never = new CountDownLatch(1);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (processor.running() && System.nanoTime() < deadline) {
            never.await(1, TimeUnit.MILLISECONDS);
        }
        assertThat(processor.running()).as("the processor's thread, once its handler returned").isFalse();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
