package dev.lacuna.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * An optimistic page read that fails because an apply ran under it is read again under the lock: a
 * RuntimeException was, an Error (an assertion tripping on half a batch) was thrown to the reader. From the
 * adversarial review of the optimistic index reads; failed before the fix ('saw part of a batch').
 */
class IndexReadLockErrorTest {
    private final IndexReadLock lock = new IndexReadLock();

    @Test
    void shouldReadAgainWhenTheOptimisticAttemptThrewAnErrorBecauseAnApplyRan() {
        AtomicInteger reads = new AtomicInteger();
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
                throw new IllegalStateException(e);
            }
            throw new AssertionError("saw part of a batch");
        });
        assertThat(page).isEqualTo("read again");
    }
}
