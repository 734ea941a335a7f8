package dev.lacuna;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Database.close while a pull consumer's poll waits for records (a long wait, as LongestWaitTest allows) must not hang.
 * The poll holds the handle's monitor while it waits on the log; the database's close, closing the handle, blocked on
 * that monitor, and nothing woke the poll (the log closes only after the streams): close hung until the poll's wait
 * ended. Closing a handle now ends a poll's wait, which returns what it has (here nothing).
 */
class CloseWakesAWaitingPollTest {
    private static final Path DIR = Path.of("/db");
    private static final long WAIT_SECONDS = 20;

    @Test
    void shouldCloseWhileAPollWaits() throws Exception {
        MemVfs vfs = new MemVfs();
        Database db = Database.open(DIR, DatabaseOptions.builder().vfs(vfs).build());
        db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S).build()
                .withStreamSpecification(StreamSpecification.enabled(StreamViewType.NEW_IMAGE)));
        StreamConsumer consumer = db.streamConsumer("Tickets", "puller");
        AtomicReference<Object> polled = new AtomicReference<>();
        Thread poller = new Thread(() -> {
            try {
                polled.set(consumer.poll(10, Duration.ofDays(1)));
            } catch (Throwable t) {
                polled.set(t);
            }
        }, "poller");
        poller.setDaemon(true);
        poller.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        CountDownLatch never = new CountDownLatch(1);
        while (poller.getState() != Thread.State.TIMED_WAITING && poller.getState() != Thread.State.WAITING
                && System.nanoTime() < deadline) {
            never.await(1, TimeUnit.MILLISECONDS);
        }
        Thread closer = new Thread(db::close, "closer");
        closer.setDaemon(true);
        closer.start();
        closer.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        if (closer.isAlive()) {
            System.out.println("HANG closer stack: " + Arrays.toString(closer.getStackTrace()));
        }
        assertThat(closer.isAlive()).as("close returned while a poll waited").isFalse();
        poller.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        assertThat(polled.get()).as("what the woken poll returned").isInstanceOfSatisfying(StreamBatch.class,
                batch -> assertThat(batch.records()).isEmpty());
    }
}
