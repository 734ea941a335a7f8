package dev.lacuna.engine;

import dev.lacuna.StreamBatch;
import dev.lacuna.StreamHandler;
import dev.lacuna.StreamProcessor;
import dev.lacuna.lsm.OwnedThreads;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link StreamProcessor}: one daemon thread that polls its consumer, hands each non-empty batch to the
 * handler and commits it once the handler returned. Its idle strategy is the log's own: a poll waits on the
 * log's condition for the next record (signalled by appends), up to {@value #IDLE_SECONDS} s, after which it
 * commits how far it read past other tables' records (so that an idle stream does not keep the log) and waits
 * again. {@link #close} interrupts that wait only (never the handler), then joins the thread.
 */
final class StreamProcessorThread implements StreamProcessor {
    static final long IDLE_SECONDS = 1;
    private static final Duration IDLE = Duration.ofSeconds(IDLE_SECONDS);
    private static final System.Logger LOG = System.getLogger(StreamProcessorThread.class.getName());

    private final StreamConsumerHandle consumer;
    private final StreamHandler handler;
    private final int batchSize;
    private final Thread thread;
    private final AtomicLong delivered = new AtomicLong();
    /** Guards {@link #polling}, so that {@link #close} interrupts the thread only while it waits for the log. */
    private final Object pollLock = new Object();
    private boolean polling;
    private volatile boolean stopping;
    private volatile Throwable failure;

    StreamProcessorThread(StreamConsumerHandle consumer, StreamHandler handler, int batchSize, String threadName,
                          OwnedThreads owned) {
        this.consumer = consumer;
        this.handler = handler;
        this.batchSize = batchSize;
        // Counted in until its body ends (not when its consumer closes): a handler that closes its consumer and then
        // the database runs on a thread the database's close joins, and must not wait for that close. A callback
        // thread: a handler's close of the database, when it is the only one, closes it (close() skips joining the
        // calling processor, which ends once its handler returns) rather than being refused. A daemon: a forgotten
        // database must not keep the JVM.
        this.thread = owned.newCallbackThread(this::run, threadName);
    }

    void begin() {
        thread.start();
    }

    private void run() {
        long committed = consumer.checkpoint();
        try {
            while (!stopping) {
                StreamBatch batch = poll();
                if (batch == null) {
                    break;
                }
                if (!batch.records().isEmpty()) {
                    handler.handle(batch.records());
                    delivered.addAndGet(batch.records().size());
                }
                if (consumer.isClosed()) {
                    // The handler closed its own consumer (a close from any other thread joins this one before
                    // it closes the handle): nothing can be committed any more, and nothing failed. The batch
                    // stays uncommitted, so a consumer opened again gets it again (at least once).
                    break;
                }
                if (batch.checkpoint() > committed) {
                    consumer.commit(batch); // after the handler returned: at least once across a crash
                    committed = batch.checkpoint();
                }
            }
        } catch (InterruptedException e) {
            if (!stopping) {
                failure = e;
            }
        } catch (Throwable t) {
            failure = t;
            LOG.log(System.Logger.Level.WARNING, "stream processor " + thread.getName() + " stopped: " + t);
        }
    }

    /** The next batch, or null if closing. Only this wait is ever interrupted by {@link #close}. */
    private StreamBatch poll() throws InterruptedException {
        synchronized (pollLock) {
            if (stopping) {
                return null;
            }
            polling = true;
        }
        try {
            return consumer.poll(batchSize, IDLE);
        } catch (InterruptedException e) {
            if (stopping) {
                return null;
            }
            throw e;
        } finally {
            synchronized (pollLock) {
                polling = false;
                if (stopping) {
                    Thread.interrupted(); // meant for the wait only, not for a commit that follows
                }
            }
        }
    }

    @Override
    public boolean running() {
        return thread.isAlive();
    }

    @Override
    public Throwable failure() {
        return failure;
    }

    @Override
    public long delivered() {
        return delivered.get();
    }

    @Override
    public void close() {
        stopping = true;
        synchronized (pollLock) {
            if (polling) {
                thread.interrupt();
            }
        }
        if (Thread.currentThread() == thread) {
            return; // the handler closing its own processor: the loop ends when it returns
        }
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
