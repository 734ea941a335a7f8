package dev.lacuna.lsm;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/** What the memtable and skip-list stress tests share: threads released together, joined, their first failure thrown. */
final class StressThreads {
    private StressThreads() {
    }

    /** Starts {@code threads}, releases them at once through {@code start}, waits for all, and throws what failed first. */
    static void runAll(List<Thread> threads, CountDownLatch start, AtomicReference<Throwable> failure)
            throws InterruptedException {
        threads.forEach(Thread::start);
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
    }

    /** Waits for {@code latch}; an interrupt ends the wait and is kept for the thread's loop to see. */
    static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
