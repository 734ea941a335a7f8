package dev.lacuna.lsm;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The threads a close may wait for: every thread a store (or the item engine over it) runs its own work on
 * (background jobs, index updaters and their checkpoints, the TTL sweeper, stream processors), each counted while
 * its body runs, and every caller's thread while it runs work the close waits for (a compactRange, a checkpoint). A
 * close from one of them while another thread's close is under way must return at once: that close waits for the
 * calling thread, so waiting for it in turn would hang both ({@link CloseOnce}). A thread is counted out when its
 * body ends, not when whatever started it is closed: a stream handler that closes its consumer and then the database
 * still runs on a thread the close joins.
 *
 * <p>The only close, made from a counted thread, would wait for that thread's own work: it is refused instead
 * ({@link #closeFromCurrentWaitsForIt}). A thread made by {@link #newCallbackThread} (a stream processor, which runs a
 * user's handler) is the exception while it runs nothing else: the close skips joining it, and it ends once its
 * handler returns.
 *
 * <p>One set per store, shared by the item engine over it. Public for {@code dev.lacuna.engine}; the package is not
 * exported.
 */
public final class OwnedThreads {
    /** Each thread counted in, with how many times (work may nest: a checkpoint from a background job's hook). */
    private final Map<Thread, Integer> counted = new ConcurrentHashMap<>();
    /** The threads of {@link #newCallbackThread} while their body runs: the close does not wait for them. */
    private final Set<Thread> callbacks = ConcurrentHashMap.newKeySet();

    /** Counts the calling thread in until a matching {@link #exit}. */
    public void enter() {
        counted.merge(Thread.currentThread(), 1, Integer::sum);
    }

    /** Counts out one {@link #enter} of the calling thread. */
    public void exit() {
        counted.computeIfPresent(Thread.currentThread(), (t, n) -> n == 1 ? null : n - 1);
    }

    /** Whether the calling thread is counted in. */
    public boolean includesCurrent() {
        return counted.containsKey(Thread.currentThread());
    }

    /**
     * Whether a close started on the calling thread would wait for that very thread, or close the store under its
     * work: it is counted in for the store's own work (a background job, a checkpoint, an index updater, the
     * sweeper), not only for the body of a {@link #newCallbackThread}, which the close does not join when it runs on
     * it.
     */
    public boolean closeFromCurrentWaitsForIt() {
        Thread t = Thread.currentThread();
        Integer n = counted.get(t);
        return n != null && n > (callbacks.contains(t) ? 1 : 0);
    }

    /**
     * Runs {@code work} in the calling thread, counted in: a caller's work that holds a monitor the close takes (a
     * stream consumer's poll or close, a flush's stream-retention read), so that a close from a file system hook in
     * it neither waits for a close waiting for that monitor nor, alone, closes the store under it.
     */
    public <T, E extends Exception> T counted(Work<T, E> work) throws E {
        enter();
        try {
            return work.run();
        } finally {
            exit();
        }
    }

    /**
     * Work of a caller's, run by {@link #counted}.
     *
     * @param <T> what it returns
     * @param <E> what it may throw
     */
    @FunctionalInterface
    public interface Work<T, E extends Exception> {
        /** Does the work. */
        T run() throws E;
    }

    /** {@code body}, run with its thread counted in: the body of a thread the store owns. */
    public Runnable owning(Runnable body) {
        return () -> {
            enter();
            try {
                body.run();
            } finally {
                exit();
            }
        };
    }

    /** A daemon thread named {@code name} that runs {@code body} counted in; not started. */
    public Thread newThread(Runnable body, String name) {
        Thread t = new Thread(owning(body), name);
        t.setDaemon(true); // the owner's close stops it; a forgotten store must not keep the JVM alive
        return t;
    }

    /**
     * As {@link #newThread}, for a thread that runs a user's callback which may close the store (a stream processor
     * running its handler): its owner's close, called on it, does not join it (the thread ends once the callback
     * returns), so such a close is not refused for it alone ({@link #closeFromCurrentWaitsForIt}).
     */
    public Thread newCallbackThread(Runnable body, String name) {
        return newThread(() -> {
            callbacks.add(Thread.currentThread());
            try {
                body.run();
            } finally {
                callbacks.remove(Thread.currentThread());
            }
        }, name);
    }
}
