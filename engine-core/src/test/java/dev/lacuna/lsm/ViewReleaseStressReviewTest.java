package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Review of e54ef7d (a view counted in stripes, reverted; the test stays for the single count): twelve readers, half
 * the views closed by another thread, while a writer replaces the view as fast as it can. A view's version must not be
 * released while a reader holds the view; every replaced view's version must be released once, exactly.
 */
class ViewReleaseStressReviewTest {
    private static final int READERS = 12;
    private static final int INSTALLS = Integer.getInteger("lacuna.viewRelease.installs", 200_000);

    @Test
    void noPrematureNoLeakNoDoubleRelease() throws Exception {
        InstalledVersions versions = new InstalledVersions();
        Tree tree = versions.tree;

        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        LinkedBlockingQueue<Tree.View> handOff = new LinkedBlockingQueue<>();
        AtomicInteger leftToClose = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        CountDownLatch readersDone = new CountDownLatch(READERS);
        for (int r = 0; r < READERS; r++) {
            int self = r;
            threads.add(new Thread(() -> {
                try {
                    long n = 0;
                    while (!stop.get() && failure.get() == null) {
                        Tree.View view = tree.acquire();
                        if (versions.releases(view.version()) != 0) {
                            failure.compareAndSet(null, new AssertionError("acquired a released version"));
                        }
                        Thread.onSpinWait();
                        if (versions.releases(view.version()) != 0) {
                            failure.compareAndSet(null, new AssertionError("version released under a reader"));
                        }
                        if ((n++ + self) % 2 == 0) {
                            leftToClose.incrementAndGet();
                            handOff.add(view); // closed by the closer thread
                        } else {
                            view.close();
                        }
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                } finally {
                    readersDone.countDown();
                }
            }, "reader-" + r));
        }
        Thread closer = new Thread(() -> {
            try {
                while (true) {
                    Tree.View v = handOff.poll(10, java.util.concurrent.TimeUnit.MILLISECONDS);
                    if (v == null) {
                        if (readersDone.getCount() == 0 && handOff.isEmpty()) {
                            return;
                        }
                        continue;
                    }
                    if (versions.releases(v.version()) != 0) {
                        failure.compareAndSet(null, new AssertionError("released before a handed-off close"));
                    }
                    v.close();
                    leftToClose.decrementAndGet();
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        }, "closer");
        threads.forEach(Thread::start);
        closer.start();
        for (int i = 0; i < INSTALLS && failure.get() == null; i++) {
            versions.installNext();
        }
        stop.set(true);
        for (Thread t : threads) {
            t.join();
        }
        closer.join();
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertThat(leftToClose.get()).isZero();
        versions.assertEachReplacedReleasedOnce(); // (unref below zero throws: a double free)
    }
}
