package dev.lacuna.vfs.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * For crash tests: closes what a crash left behind (the old process's database, still running on the file system
 * that was cloned) on the side, two at a time (or as many as asked), rather than on the crash test's time: closing
 * a database with index updaters or stream consumers waits out their log polls. {@link #close()} waits for every
 * close.
 */
public final class BackgroundCloser implements AutoCloseable {
    private final ExecutorService pool;
    private final List<Future<?>> closing = new ArrayList<>();
    private final boolean failuresExpected;

    /**
     * {@code failuresExpected}: whether a close may fail (on a broken file system, where the breakage was the
     * point); if not, a failed close fails {@link #close()}.
     */
    public BackgroundCloser(boolean failuresExpected) {
        this(failuresExpected, 2);
    }

    /** As {@link #BackgroundCloser(boolean)}, closing {@code threads} at a time. */
    public BackgroundCloser(boolean failuresExpected, int threads) {
        this.failuresExpected = failuresExpected;
        this.pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "crash-closer");
            t.setDaemon(true); // a close that never ends must not keep the JVM alive: close() gave up on it
            return t;
        });
    }

    /** Closes {@code c} on the side. */
    public void closeLater(AutoCloseable c) {
        closing.add(pool.submit(() -> {
            c.close();
            return null;
        }));
    }

    /** Waits (up to a minute each) for every close; a close that failed fails this, unless failures were expected. */
    @Override
    public void close() throws InterruptedException, ExecutionException, java.util.concurrent.TimeoutException {
        pool.shutdown();
        for (Future<?> f : closing) {
            try {
                f.get(60, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!failuresExpected) {
                    throw e;
                }
            }
        }
    }
}
