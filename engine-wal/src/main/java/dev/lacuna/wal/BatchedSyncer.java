package dev.lacuna.wal;

import java.time.Duration;

/**
 * The log's background thread for {@link dev.lacuna.storage.Durability#batched batched} durability: it fsyncs
 * each batched record no later than its deadline, so that many records share one fsync without any
 * appender waiting for it. The thread is started lazily on the first batched append and stopped by
 * {@link #stop()} (called from {@link Wal#close()}).
 */
final class BatchedSyncer implements Runnable {
    private final Wal wal;
    private final String threadName;

    // Guarded by this.
    private Thread thread;
    private long deadline = Long.MAX_VALUE; // System.nanoTime() by which targetLsn must be durable
    private long targetLsn;
    private boolean stopping;

    BatchedSyncer(Wal wal, String threadName) {
        this.wal = wal;
        this.threadName = threadName;
    }

    /** Asks for {@code lsn} to be fsynced within {@code maxDelay}. */
    synchronized void request(long lsn, Duration maxDelay) {
        if (stopping) {
            return; // close() makes everything durable
        }
        if (wal.durableLsn() >= lsn) {
            return;
        }
        long due = System.nanoTime() + maxDelay.toNanos();
        targetLsn = Math.max(targetLsn, lsn);
        if (due < deadline) {
            deadline = due;
            notifyAll();
        }
        if (thread == null) {
            thread = new Thread(this, threadName);
            thread.setDaemon(true);
            thread.start();
        }
    }

    /** Whether {@code t} is the syncer's thread. */
    synchronized boolean runsOn(Thread t) {
        return t != null && t == thread;
    }

    /** Stops the thread and waits for it to end. */
    void stop() {
        Thread t;
        synchronized (this) {
            stopping = true;
            notifyAll();
            t = thread;
        }
        if (t != null && t != Thread.currentThread()) {
            boolean interrupted = false;
            while (t.isAlive()) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void run() {
        try {
            loop();
        } finally {
            // However it ended (an Error from the fsync, an interrupt), the next request starts a syncer again:
            // a field naming a dead thread left batched records with no one to make them durable.
            synchronized (this) {
                if (thread == Thread.currentThread()) {
                    thread = null;
                }
            }
        }
    }

    private void loop() {
        while (true) {
            long lsn;
            synchronized (this) {
                try {
                    while (!stopping) {
                        if (deadline == Long.MAX_VALUE) {
                            wait();
                            continue;
                        }
                        long remaining = deadline - System.nanoTime();
                        if (remaining <= 0) {
                            break;
                        }
                        wait(remaining / 1_000_000, (int) (remaining % 1_000_000));
                    }
                } catch (InterruptedException e) {
                    return;
                }
                if (stopping) {
                    return;
                }
                lsn = targetLsn;
                deadline = Long.MAX_VALUE;
            }
            try {
                wal.syncTo(lsn);
            } catch (RuntimeException e) {
                // The log has failed (or closed): syncTo fails it for anything its fsync threw, and it reports that
                // to the next appender, whose append repairs it. Nothing to do here but go on syncing.
            }
        }
    }
}
