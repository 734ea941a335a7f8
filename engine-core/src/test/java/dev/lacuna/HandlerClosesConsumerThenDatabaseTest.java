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
 * A stream handler that, while another thread's close joins its processor's thread, closes its own consumer and then
 * the database ("stop everything") must not hang. The item engine exempted from waiting for a close under way only the
 * processors of handles still open; closing the consumer removed the handle, so the handler's Database.close waited
 * for the first close, which waited for the handler: both hung. A processor's thread now counts as the database's
 * until its body ends, whatever its consumer's state.
 */
class HandlerClosesConsumerThenDatabaseTest {
    private static final Path DIR = Path.of("/db");
    private static final long WAIT_SECONDS = 20;

    private static boolean joinsAProcessor(Thread t) {
        return t.getState() == Thread.State.WAITING && Arrays.stream(t.getStackTrace())
                .anyMatch(f -> f.getClassName().endsWith("StreamProcessorThread") && f.getMethodName().equals("close"));
    }

    @Test
    void shouldReturnFromAHandlersCloseAfterItClosedItsConsumer() throws Exception {
        MemVfs vfs = new MemVfs();
        Database db = Database.open(DIR, DatabaseOptions.builder().vfs(vfs).build());
        db.createTable(TableSpec.builder("Tickets").partitionKey("pk", AttributeValue.Type.S).build()
                .withStreamSpecification(StreamSpecification.enabled(StreamViewType.NEW_IMAGE)));
        CountDownLatch inHandler = new CountDownLatch(1);
        AtomicReference<Thread> firstCloser = new AtomicReference<>();
        AtomicReference<Throwable> handlerClose = new AtomicReference<>();
        CountDownLatch handlerClosed = new CountDownLatch(1);
        StreamConsumer consumer = db.streamConsumer("Tickets", "closer");
        consumer.start(records -> {
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
                consumer.close();
                db.close();
            } catch (Throwable t) {
                handlerClose.set(t);
            }
            handlerClosed.countDown();
        }, 10);
        db.putItem("Tickets", new PutItem(Item.builder().s("pk", "a").build()));
        assertThat(inHandler.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("the handler got the record").isTrue();
        Thread first = new Thread(db::close, "first-close");
        first.setDaemon(true);
        firstCloser.set(first);
        first.start();
        assertThat(handlerClosed.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("the handler's close returned").isTrue();
        first.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        assertThat(first.isAlive()).as("the first close, once the handler returned").isFalse();
        assertThat(handlerClose.get()).as("the handler's close").isNull();
    }
}
