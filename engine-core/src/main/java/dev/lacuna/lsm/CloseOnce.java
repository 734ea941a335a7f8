package dev.lacuna.lsm;

import dev.lacuna.storage.StorageIOException;
import java.util.function.BooleanSupplier;

/**
 * Runs a close once, and makes every other call of close return only once that one has ended: a second close that
 * returned while the first still waited (for a compactRange in another thread, a background job, an fsync) told its
 * caller the directory was released while its lock was still held, and a re-open right after was refused. Shared by
 * {@link LsmStore} and the item engine above it. Public for {@code dev.lacuna.engine}; the package is not exported.
 */
public final class CloseOnce {
    private final String what;
    /** The thread running the close, null before it started. Guarded by this. */
    private Thread closer;
    /** Whether the close has ended (returned or thrown). Guarded by this. */
    private boolean ended;
    /** What the close threw, or null. Guarded by this. */
    private Throwable failure;

    /** @param what what is closed, for the message of a failure reported to a later close ("store /db") */
    public CloseOnce(String what) {
        this.what = what;
    }

    /**
     * Runs {@code close} if no call has yet; otherwise waits until the call that runs it has ended, as
     * {@link java.nio.channels.Channel#close} does. Whatever ends that call (a return, a RuntimeException, an Error)
     * ends the wait. A call that waited for a close that failed throws a new {@link StorageIOException} with the
     * failure as its cause (its caller would otherwise take the store for released, and its log for durable); a
     * call made after the close ended has no effect (the failure went to the calls made while it ran).
     *
     * <p>An interrupt does not end the wait (a caller that returned would take the directory for released); the
     * thread's interrupt flag is set again when the call returns. A call from the closing thread itself (a close
     * nested in the close) returns at once, as does one for which {@code mustNotWait} answers true: a thread the
     * close itself waits for (one counted in the store's {@link OwnedThreads}), which would otherwise wait forever.
     *
     * <p>The first call, made from a thread for which {@code waitsForCaller} answers true (a file system hook in a
     * background job, a checkpoint or the log's fsync), is refused: its close would wait for the work running on its
     * own thread, that is for itself, for good, and every later call behind it. Nothing is closed then, and a call
     * from another thread closes as usual.
     *
     * @param mustNotWait    asked, in the calling thread, only if a close is under way in another thread
     * @param waitsForCaller whether {@code close}, run in the calling thread, would wait for that very thread
     * @throws IllegalStateException if no close is under way and {@code waitsForCaller} answers true
     */
    public void close(Runnable close, BooleanSupplier mustNotWait, BooleanSupplier waitsForCaller) {
        Thread me = Thread.currentThread();
        // Asked first, outside this monitor (it may take other locks: the log's syncer's); only the calling thread
        // changes its own answer, so it holds for the whole call.
        boolean refuse = waitsForCaller.getAsBoolean();
        boolean underWay;
        synchronized (this) {
            if (ended || closer == me) {
                return;
            }
            underWay = closer != null;
            if (!underWay) {
                if (refuse) {
                    throw new IllegalStateException("close() of " + what + " was called from a thread it runs on ("
                            + me.getName() + ") while that thread's work is in progress, which the close would wait"
                            + " for; nothing was closed: call close from another thread");
                }
                closer = me;
            }
        }
        if (underWay) {
            // Asked outside this monitor: the answer may take other locks (the list of a database's stream handles).
            if (!mustNotWait.getAsBoolean()) {
                awaitEnd();
            }
            return;
        }
        Throwable thrown = null;
        try {
            close.run();
        } catch (RuntimeException | Error e) {
            thrown = e;
            throw e;
        } finally {
            synchronized (this) {
                ended = true;
                failure = thrown;
                notifyAll();
            }
        }
    }

    /** Waits until the close running in another thread has ended, then reports its failure. */
    private synchronized void awaitEnd() {
        boolean interrupted = false;
        while (!ended) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) {
            // A new exception each call: try-with-resources adds one close's to another's, which must not be itself.
            throw new StorageIOException("closing " + what + " failed: " + failure, failure);
        }
    }
}
