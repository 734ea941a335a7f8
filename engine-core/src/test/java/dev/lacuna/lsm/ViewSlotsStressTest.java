package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
        Map<Version, AtomicInteger> released = new ConcurrentHashMap<>();
        Constructor<Tree> ctor = Tree.class.getDeclaredConstructor(int.class);
        ctor.setAccessible(true);
        Tree tree = ctor.newInstance(0);
        Method install = Tree.class.getDeclaredMethod("installVersion", Version.class);
        install.setAccessible(true);
        List<Version> all = new ArrayList<>();
        Version first = newVersion(released);
        all.add(first);
        install.invoke(tree, first);
        first.unref(); // the version set's own reference goes at once: the tree and its readers hold it

        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicInteger reads = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int r = 0; r < READERS; r++) {
            threads.add(new Thread(() -> {
                try {
                    while (!stop.get() && failure.get() == null) {
                        Tree.Shared view = tree.borrow();
                        if (released.get(view.version()).get() != 0) {
                            failure.compareAndSet(null, new AssertionError("borrowed a released version"));
                        }
                        Thread.onSpinWait();
                        if (released.get(view.version()).get() != 0) {
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
            Version next = newVersion(released);
            all.add(next);
            install.invoke(tree, next);
            next.unref();
        }
        stop.set(true);
        for (Thread t : threads) {
            t.join();
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertThat(reads.get()).as("reads made").isPositive();
        // Every version but the current one released exactly once (unref below zero throws: a double free).
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < all.size() - 1; i++) {
            int times = released.get(all.get(i)).get();
            if (times != 1) {
                wrong.add(i + "=" + times);
            }
        }
        assertThat(wrong).as("versions not released exactly once, of %d", all.size()).isEmpty();
        assertThat(released.get(all.get(all.size() - 1)).get()).as("the current version").isZero();
    }

    private static Version newVersion(Map<Version, AtomicInteger> released) {
        Version v = Version.empty(x -> released.get(x).incrementAndGet());
        released.put(v, new AtomicInteger());
        return v;
    }
}
