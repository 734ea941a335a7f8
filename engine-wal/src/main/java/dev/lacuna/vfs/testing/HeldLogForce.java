package dev.lacuna.vfs.testing;

import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A file system on which, after {@link #hold()}, the log's group-commit fsyncs block until {@link #release()}:
 * a test can then look at the store while {@code SYNC} writes wait for their fsync, and crash there. Only
 * fsyncs made by the log's group-commit leader ({@code Wal.syncTo}, outside the log's lock) are held: a
 * segment roll forces its new header under the lock, and holding that would stop every reader of the log.
 * For crash tests that must crash while {@code SYNC} writes wait for their fsync (Lacuna's log, key-value and
 * index crash suites do). It knows the log's group-commit method by name (found on the stack), not by a
 * dependency: if that method were renamed, nothing would be held, and {@link #awaitHeld} says so.
 */
public final class HeldLogForce extends ForwardingVfs {
    private static final StackWalker WALKER = StackWalker.getInstance();
    private final Semaphore entered = new Semaphore(0);
    private volatile CountDownLatch gate;

    /** Forwards to {@code inner}, holding nothing until {@link #hold()}. */
    public HeldLogForce(Vfs inner) {
        super(inner);
    }

    /** From now on group-commit fsyncs block. */
    public void hold() {
        entered.drainPermits();
        gate = new CountDownLatch(1);
    }

    /** Whether a group-commit fsync blocked within {@code nanos}. */
    public boolean awaitHeld(long nanos) throws InterruptedException {
        return entered.tryAcquire(nanos, TimeUnit.NANOSECONDS);
    }

    /** Lets the held fsyncs, and every later one, go on. */
    public void release() {
        CountDownLatch g = gate;
        gate = null;
        if (g != null) {
            g.countDown();
        }
    }

    private static boolean inGroupCommit() {
        return WALKER.walk(frames -> frames.anyMatch(
                f -> f.getClassName().equals("dev.lacuna.wal.Wal") && f.getMethodName().equals("syncTo")));
    }

    @Override
    protected VfsFile wrap(VfsFile f) {
        return new ForwardingVfs.File(f) {
            @Override
            public void force() throws IOException {
                CountDownLatch g = gate;
                if (g != null && inGroupCommit()) {
                    entered.release();
                    try {
                        g.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IOException("interrupted while held", e);
                    }
                }
                super.force();
            }
        };
    }
}
