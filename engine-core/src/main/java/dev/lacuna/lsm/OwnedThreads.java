package dev.lacuna.lsm;

import java.util.Map;
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
 * <p>One set per store, shared by the item engine over it. Public for {@code dev.lacuna.engine}; the package is not
 * exported.
 */
public final class OwnedThreads {
    /** Each thread counted in, with how many times (work may nest: a checkpoint from a background job's hook). */
    private final Map<Thread, Integer> counted = new ConcurrentHashMap<>();

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
}
