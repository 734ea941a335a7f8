package dev.lacuna;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.testing.CallOutcome;
import dev.lacuna.vfs.testing.ThreadHookVfs;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A close from a file system hook in a stream consumer's poll, on a caller's thread: the poll holds the handle's
 * monitor, which the database's close takes to close the handle. While another thread's close waited for that
 * monitor, the hook's close waited for that close: both hung. The poll's thread now counts as one the close waits
 * for while the poll runs: such a close returns at once, and, when it is the only close, is refused (it would close
 * the log under the poll's own read) and leaves the database usable.
 */
class CloseFromAPollHookTest {
    private static final Path DIR = Path.of("/db");
    private static final long WAIT_SECONDS = 20;
    private static final String POLLER = "poller";

    private static Database openWithAStream(DatabaseOptions options) {
        Database db = Database.open(DIR, options);
        db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S).build()
                .withStreamSpecification(StreamSpecification.enabled(StreamViewType.NEW_IMAGE)));
        db.putItem("Tickets", new PutItem(Item.builder().s("pk", "a").build()));
        return db;
    }

    /** Whether {@code t} waits for a stream consumer handle's monitor in that handle's close. */
    private static boolean blockedClosingAHandle(Thread t) {
        return t != null && t.getState() == Thread.State.BLOCKED && Arrays.stream(t.getStackTrace())
                .anyMatch(f -> f.getClassName().endsWith("StreamConsumerHandle") && f.getMethodName().equals("close"));
    }

    @Test
    void shouldReturnFromACloseInAPollsHookWhileAnotherCloseWaitsForThePollsMonitor() throws Exception {
        ThreadHookVfs vfs = new ThreadHookVfs(new MemVfs(), POLLER);
        DatabaseOptions options = DatabaseOptions.builder().vfs(vfs).build();
        Database db = openWithAStream(options);
        StreamConsumer consumer = db.streamConsumer("Tickets", "puller");
        AtomicReference<Thread> first = new AtomicReference<>();
        CountDownLatch inHook = new CountDownLatch(1);
        CallOutcome hookClose = new CallOutcome();
        vfs.arm(s -> true, () -> {
            inHook.countDown();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            try {
                while (!blockedClosingAHandle(first.get()) && System.nanoTime() < deadline) {
                    hookClose.awaitEnd(1, TimeUnit.MILLISECONDS); // a timed wait, polling the first close's state
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            hookClose.run(db::close);
        });
        CallOutcome poll = new CallOutcome();
        CallOutcome.startDaemon(() -> poll.run(() -> consumer.poll(10)), POLLER);
        assertThat(inHook.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("the poll reached the hook").isTrue();
        CallOutcome firstClose = new CallOutcome();
        first.set(CallOutcome.startDaemon(() -> firstClose.run(db::close), "first-close"));

        assertThat(hookClose.awaitEnd(WAIT_SECONDS, TimeUnit.SECONDS))
                .as("the close in the poll's hook ended").isTrue();
        assertThat(hookClose.thrown()).as("the close in the poll's hook").isNull();
        assertThat(poll.awaitEnd(WAIT_SECONDS, TimeUnit.SECONDS)).as("the poll ended").isTrue();
        assertThat(firstClose.awaitEnd(WAIT_SECONDS, TimeUnit.SECONDS)).as("the first close ended").isTrue();
        assertThat(firstClose.thrown()).as("the first close").isNull();
        Database.open(DIR, options).close(); // the directory was released
    }

    @Test
    void shouldRefuseTheOnlyCloseFromAPollsHookAndStayUsable() throws Exception {
        ThreadHookVfs vfs = new ThreadHookVfs(new MemVfs(), POLLER);
        DatabaseOptions options = DatabaseOptions.builder().vfs(vfs).build();
        Database db = openWithAStream(options);
        StreamConsumer consumer = db.streamConsumer("Tickets", "puller");
        CallOutcome hookClose = new CallOutcome();
        vfs.arm(s -> true, () -> hookClose.run(db::close));
        AtomicReference<StreamBatch> polled = new AtomicReference<>();
        CallOutcome poll = new CallOutcome();
        CallOutcome.startDaemon(() -> poll.run(() -> polled.set(consumer.poll(10))), POLLER);

        assertThat(hookClose.awaitEnd(WAIT_SECONDS, TimeUnit.SECONDS))
                .as("the close in the poll's hook ended").isTrue();
        assertThat(hookClose.thrown()).as("the only close, in the poll's hook")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("call close from another thread");
        assertThat(poll.awaitEnd(WAIT_SECONDS, TimeUnit.SECONDS)).as("the poll ended").isTrue();
        assertThat(poll.thrown()).as("the poll").isNull();
        assertThat(polled.get().records()).as("the records polled").hasSize(1);
        consumer.commit(polled.get());
        consumer.close();
        db.close();
        try (Database again = Database.open(DIR, options);
             StreamConsumer after = again.streamConsumer("Tickets", "puller")) {
            assertThat(after.poll(10).records()).as("past the committed batch").isEmpty();
        }
    }
}
