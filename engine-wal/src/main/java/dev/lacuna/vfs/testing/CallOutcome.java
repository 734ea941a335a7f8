package dev.lacuna.vfs.testing;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * For tests of calls that might hang (a close made from a file system hook, a poll, a write): what a call made on
 * another thread did — whether it ended, and what it threw. The test awaits the end with a timeout, so that a hang
 * fails it instead of blocking it.
 */
public final class CallOutcome {
    private final CountDownLatch ended = new CountDownLatch(1);
    private final AtomicReference<Throwable> thrown = new AtomicReference<>();

    /** Runs {@code call} in the calling thread and records how it ended. */
    public void run(Runnable call) {
        try {
            call.run();
        } catch (Throwable t) {
            thrown.set(t);
        } finally {
            ended.countDown();
        }
    }

    /** Whether the call ended within {@code time}. */
    public boolean awaitEnd(long time, TimeUnit unit) throws InterruptedException {
        return ended.await(time, unit);
    }

    /** What the call threw, or null (also while it runs). */
    public Throwable thrown() {
        return thrown.get();
    }

    /** Starts {@code body} on a new daemon thread named {@code name}: a hung one must not keep the JVM alive. */
    public static Thread startDaemon(Runnable body, String name) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
