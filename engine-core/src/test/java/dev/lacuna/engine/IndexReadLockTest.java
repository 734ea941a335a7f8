package dev.lacuna.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A reader of an index page sees each applied batch whole without blocking the updater ({@link IndexReadLock}):
 * a page read while an apply ran is read again under the lock, and a read during an apply waits for it.
 */
class IndexReadLockTest {
    private final IndexReadLock lock = new IndexReadLock();

    @Test
    void shouldKeepThePageReadWhenNoApplyRan() {
        AtomicInteger reads = new AtomicInteger();
        assertThat(lock.read(() -> reads.incrementAndGet())).isEqualTo(1);
        assertThat(reads).hasValue(1);
    }

    @Test
    void shouldLetAnApplyRunDuringARead() throws Exception {
        AtomicInteger reads = new AtomicInteger();
        boolean[] applied = {false};
        String page = lock.read(() -> {
            if (reads.incrementAndGet() > 1) {
                return "read again";
            }
            Thread apply = new Thread(() -> {
                lock.writeLock().lock();
                lock.writeLock().unlock();
            });
            apply.start();
            try {
                apply.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            applied[0] = !apply.isAlive();
            return "saw part of a batch";
        });
        assertThat(applied[0]).as("the apply ran while the page was read (the reader did not block it)").isTrue();
        assertThat(page).as("the page read while an apply ran").isEqualTo("read again");
        assertThat(reads).hasValue(2);
    }

    @Test
    void shouldWaitForAnApplyUnderWay() throws Exception {
        AtomicInteger reads = new AtomicInteger();
        lock.writeLock().lock();
        CompletableFuture<Integer> page;
        Thread reader;
        try {
            page = new CompletableFuture<>();
            CompletableFuture<Integer> p = page;
            reader = new Thread(() -> p.complete(lock.read(reads::incrementAndGet)));
            reader.start();
            awaitWaiting(reader);
            assertThat(page).as("read while an apply was under way").isNotDone();
        } finally {
            lock.writeLock().unlock();
        }
        assertThat(page.get(30, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(reads).hasValue(1);
    }

    /** Waits (up to 30 s) until {@code thread} waits: for the lock, here. */
    private static void awaitWaiting(Thread thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TERMINATED) {
            assertThat(System.nanoTime()).as("the reader never waited").isLessThan(deadline);
            Thread.onSpinWait();
            Thread.yield();
        }
    }
}
