package dev.lacuna.secondary;

import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A file system on which, after {@link #hold()}, every read made by a global index's updater thread (the log it
 * follows) blocks until {@link #release()}: the updater is stopped where it stands while writers go on, so a
 * test can make an index fall behind at will.
 */
final class HeldIndexReads extends ForwardingVfs {
    private final Semaphore entered = new Semaphore(0);
    private volatile CountDownLatch gate;

    HeldIndexReads(Vfs inner) {
        super(inner);
    }

    /** From now on the updaters' reads block. */
    void hold() {
        entered.drainPermits();
        gate = new CountDownLatch(1);
    }

    /** Whether an updater's read blocked within {@code nanos}. */
    boolean awaitHeld(long nanos) throws InterruptedException {
        return entered.tryAcquire(nanos, TimeUnit.NANOSECONDS);
    }

    /** Lets the held reads, and every later one, go on. */
    void release() {
        CountDownLatch g = gate;
        gate = null;
        if (g != null) {
            g.countDown();
        }
    }

    @Override
    protected VfsFile wrap(VfsFile f) {
        return new ForwardingVfs.File(f) {
            @Override
            public int read(ByteBuffer dst, long position) throws IOException {
                CountDownLatch g = gate;
                if (g != null && Thread.currentThread().getName().startsWith("lacuna-index-")) {
                    entered.release();
                    try {
                        g.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IOException("interrupted while held", e);
                    }
                }
                return super.read(dst, position);
            }
        };
    }
}
