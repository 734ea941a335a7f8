package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Point reads' slots ({@link Tree#borrow}, {@link Tree#giveBack}): twenty readers (more than the sixteen slots, so
 * threads share a slot and take it from each other) borrow the view while a writer replaces it as fast as it can. A
 * borrowed view's version must not be released while it is read; every replaced view's version must be released
 * exactly once, so no slot keeps one. Without the slots emptied at each new view, the replaced versions that slots
 * still held were never released here.
 */
class ViewSlotsStressTest {
    private static final int READERS = 20;
    private static final int INSTALLS = Integer.getInteger("lacuna.viewSlots.installs", 100_000);

    @Test
    void shouldReleaseEveryReplacedViewOnceAndNoneUnderAReader() throws Exception {
        InstalledVersions versions = new InstalledVersions();
        Tree tree = versions.tree;

        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicInteger reads = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int r = 0; r < READERS; r++) {
            threads.add(new Thread(() -> {
                try {
                    while (!stop.get() && failure.get() == null) {
                        Tree.Shared view = tree.borrow();
                        if (versions.releases(view.version()) != 0) {
                            failure.compareAndSet(null, new AssertionError("borrowed a released version"));
                        }
                        Thread.onSpinWait();
                        if (versions.releases(view.version()) != 0) {
                            failure.compareAndSet(null, new AssertionError("version released under a reader"));
                        }
                        tree.giveBack(view);
                        reads.incrementAndGet();
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }, "slot-reader-" + r));
        }
        threads.forEach(Thread::start);
        for (int i = 0; i < INSTALLS && failure.get() == null; i++) {
            versions.installNext();
        }
        stop.set(true);
        for (Thread t : threads) {
            t.join();
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertThat(reads.get()).as("reads made").isPositive();
        versions.assertEachReplacedReleasedOnce(); // (unref below zero throws: a double free)
    }
}
