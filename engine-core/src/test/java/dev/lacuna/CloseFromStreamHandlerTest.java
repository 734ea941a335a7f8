package dev.lacuna;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A stream handler that closes the database while another thread's close waits for the handler's thread to end: a
 * second close waits for the first to end (ConcurrentCloseReturnsEarlyTest), but this one must not, or the two wait
 * for each other for good. It returns at once, and the first close ends once the handler returned.
 */
class CloseFromStreamHandlerTest {
    private static final Path DIR = Path.of("/db");
    private static final long WAIT_SECONDS = 60;

    /** Whether {@code t} is inside a stream processor's close (joining the processor's thread). */
    private static boolean joinsAProcessor(Thread t) {
        return t.getState() == Thread.State.WAITING && Arrays.stream(t.getStackTrace())
                .anyMatch(f -> f.getClassName().endsWith("StreamProcessorThread") && f.getMethodName().equals("close"));
    }

    @Test
    void shouldReturnFromACloseInAHandlerWhileAnotherCloseWaitsForIt() throws Exception {
        MemVfs vfs = new MemVfs();
        Database db = Database.open(DIR, DatabaseOptions.builder().vfs(vfs).build());
        db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S).build()
                .withStreamSpecification(StreamSpecification.enabled(StreamViewType.NEW_IMAGE)));
        CountDownLatch inHandler = new CountDownLatch(1);
        AtomicReference<Thread> firstCloser = new AtomicReference<>();
        AtomicReference<Throwable> handlerClose = new AtomicReference<>();
        CountDownLatch handlerClosed = new CountDownLatch(1);
        db.streamConsumer("Tickets", "closer").start(records -> {
            if (inHandler.getCount() == 0) {
                return;
            }
            inHandler.countDown();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            Thread first;
            while (((first = firstCloser.get()) == null || !joinsAProcessor(first)) && System.nanoTime() < deadline) {
                handlerClosed.await(1, TimeUnit.MILLISECONDS); // a timed wait, polling the first close's state
            }
            try {
                db.close();
            } catch (Throwable t) {
                handlerClose.set(t);
            }
            handlerClosed.countDown();
        }, 10);
        db.putItem("Tickets", new PutItem(Item.builder().s("pk", "a").build()));
        assertThat(inHandler.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("the handler got the record").isTrue();
        Thread first = new Thread(db::close, "first-close");
        firstCloser.set(first);
        first.start();
        assertThat(handlerClosed.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("the handler's close returned").isTrue();
        first.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        assertThat(first.isAlive()).as("the first close, once the handler returned").isFalse();
        assertThat(handlerClose.get()).as("the handler's close").isNull();
        Database.open(DIR, DatabaseOptions.builder().vfs(vfs).build()).close();
    }
}
