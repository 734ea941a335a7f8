package dev.lacuna;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.Item;
import dev.lacuna.PutItem;
import dev.lacuna.StreamConsumer;
import dev.lacuna.StreamSpecification;
import dev.lacuna.StreamViewType;
import dev.lacuna.TableSpec;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.testing.CallOutcome;
import dev.lacuna.vfs.testing.ThreadHookVfs;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Closes from file system hooks in a caller's work that holds a monitor the database's close takes: the stream
 * retention read of {@code Database.flush} (the Streams monitor) and a consumer's close (its handle's monitor). With
 * another close under way, such a close returns at once (it hung: each waited for the other); alone, it is refused.
 */
class CloseFromAFlushOrConsumerCloseHookTest {
    private static final Path DIR = Path.of("/db");
    private static final long WAIT_SECONDS = 20;
    private static final String HOOKED = "hooked-flush";
    private static final String HOOKED2 = "hooked-consumer-close";

    static Database openWithAStream(DatabaseOptions options) {
        Database db = Database.open(DIR, options);
        db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S).build()
                .withStreamSpecification(StreamSpecification.enabled(StreamViewType.NEW_IMAGE)));
        db.putItem("Tickets", new PutItem(Item.builder().s("pk", "a").build()));
        return db;
    }

    /** The hook waits until the first close is blocked in {@code cls.method}, then closes the database. */
    static Runnable closeOnceBlocked(Database db, AtomicReference<Thread> first, String cls, String method,
                                     CountDownLatch inHook, CallOutcome hookClose) {
        return () -> {
            inHook.countDown();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            try {
                while (!ThreadHookVfs.blockedIn(first.get(), cls, method) && System.nanoTime() < deadline) {
                    hookClose.awaitEnd(1, TimeUnit.MILLISECONDS); // timed wait, polling the first close's state
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            SAW_BLOCKED.set(ThreadHookVfs.blockedIn(first.get(), cls, method));
            hookClose.run(db::close);
        };
    }

    static final AtomicBoolean SAW_BLOCKED = new AtomicBoolean();

    static String stackOf(String name) {
        return Thread.getAllStackTraces().entrySet().stream().filter(e -> e.getKey().getName().equals(name))
                .map(e -> e.getKey().getState() + "\n" + Arrays.stream(e.getValue()).limit(25).map(Object::toString)
                        .reduce("", (a, b) -> a + "  at " + b + "\n")).findFirst().orElse("(gone)");
    }

    /**
     * Database.flush runs stream retention on the caller's thread under the Streams monitor, reading the log; the
     * database's close takes that monitor (Streams.close). A hook in that read closing the database while another
     * close waits for the monitor: the hook's close is not counted as one that close waits for, so it waits for it.
     */
    @Test
    void closeFromAHookInFlushsRetentionReadWhileAnotherCloseWaitsForTheStreamsMonitor() throws Exception {
        ThreadHookVfs vfs = new ThreadHookVfs(new MemVfs(), HOOKED);
        DatabaseOptions options = DatabaseOptions.builder().vfs(vfs).build();
        Database db = openWithAStream(options);
        AtomicReference<Thread> first = new AtomicReference<>();
        CountDownLatch inHook = new CountDownLatch(1);
        CallOutcome hookClose = new CallOutcome();
        vfs.arm(ThreadHookVfs.in("Streams", "enforceRetention"),
                closeOnceBlocked(db, first, "Streams", "close", inHook, hookClose));
        CallOutcome flush = new CallOutcome();
        CallOutcome.startDaemon(() -> flush.run(db::flush), HOOKED);
        assertThat(inHook.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("the flush's retention reached the hook").isTrue();
        CallOutcome firstClose = new CallOutcome();
        first.set(CallOutcome.startDaemon(() -> firstClose.run(db::close), "first-close"));

        boolean ended = hookClose.awaitEnd(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(SAW_BLOCKED.get()).as("the first close was blocked on the Streams monitor").isTrue();
        assertThat(ended).as("the close in the retention read's hook ended; hooked thread:\n" + stackOf(HOOKED)
                + "\nfirst close:\n" + stackOf("first-close")).isTrue();
        assertThat(firstClose.awaitEnd(WAIT_SECONDS, TimeUnit.SECONDS)).as("the first close ended").isTrue();
        assertThat(firstClose.thrown()).as("the first close").isNull();
    }

    /**
     * A consumer's close on a caller's thread closes its log reader under the handle's monitor, which the database's
     * close takes. A hook in that reader's file close closing the database while another close waits for the monitor.
     */
    @Test
    void closeFromAHookInAConsumersCloseWhileAnotherCloseWaitsForTheHandlesMonitor() throws Exception {
        ThreadHookVfs vfs = new ThreadHookVfs(new MemVfs(), HOOKED2);
        DatabaseOptions options = DatabaseOptions.builder().vfs(vfs).build();
        Database db = openWithAStream(options);
        AtomicReference<Thread> first = new AtomicReference<>();
        CountDownLatch inHook = new CountDownLatch(1);
        CallOutcome hookClose = new CallOutcome();
        AtomicReference<StreamConsumer> consumer = new AtomicReference<>();
        CallOutcome user = new CallOutcome();
        CountDownLatch polled = new CountDownLatch(1);
        CallOutcome.startDaemon(() -> user.run(() -> {
            StreamConsumer c = db.streamConsumer("Tickets", "puller");
            consumer.set(c);
            c.poll(10); // opens the reader
            vfs.arm(ThreadHookVfs.in("StreamConsumerHandle", "close"),
                    closeOnceBlocked(db, first, "StreamConsumerHandle", "close", inHook, hookClose));
            polled.countDown();
            c.close();
        }), HOOKED2);
        assertThat(polled.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        boolean hooked = inHook.await(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(hooked).as("the consumer's close reached the hook (reader file closed under the monitor)").isTrue();
        CallOutcome firstClose = new CallOutcome();
        first.set(CallOutcome.startDaemon(() -> firstClose.run(db::close), "first-close"));

        boolean ended = hookClose.awaitEnd(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(SAW_BLOCKED.get()).as("the first close was blocked on the handle's monitor").isTrue();
        assertThat(ended).as("the close in the consumer close's hook ended; hooked thread:\n" + stackOf(HOOKED2)
                + "\nfirst close:\n" + stackOf("first-close")).isTrue();
        assertThat(firstClose.awaitEnd(WAIT_SECONDS, TimeUnit.SECONDS)).as("the first close ended").isTrue();
        assertThat(firstClose.thrown()).as("the first close").isNull();
    }

    /**
     * The only close, from a hook in Database.flush's retention read (Streams monitor held, the log being read): it is
     * not refused, unlike the same close from a poll's read; it closes the store under the read, and the flush fails
     * with DatabaseClosedException.
     */
    @Test
    void soleCloseFromAHookInFlushsRetentionRead() throws Exception {
        String name = "hooked-sole-flush";
        ThreadHookVfs vfs = new ThreadHookVfs(new MemVfs(), name);
        DatabaseOptions options = DatabaseOptions.builder().vfs(vfs).build();
        Database db = openWithAStream(options);
        CallOutcome hookClose = new CallOutcome();
        vfs.arm(ThreadHookVfs.in("Streams", "enforceRetention"), () -> hookClose.run(db::close));
        CallOutcome flush = new CallOutcome();
        CallOutcome.startDaemon(() -> flush.run(db::flush), name);
        assertThat(hookClose.awaitEnd(WAIT_SECONDS, TimeUnit.SECONDS)).as("the hook's close ended").isTrue();
        assertThat(flush.awaitEnd(WAIT_SECONDS, TimeUnit.SECONDS)).as("the flush ended").isTrue();
        // As the same close from a poll's read: refused, nothing closed, the flush goes on and the database is usable.
        assertThat(hookClose.thrown()).as("the only close, in the flush retention read's hook")
                .isInstanceOf(IllegalStateException.class);
        assertThat(flush.thrown()).as("the flush").isNull();
        db.putItem("Tickets", new PutItem(Item.builder().s("pk", "b").build()));
        db.close();
        Database.open(DIR, options).close();
    }
}
