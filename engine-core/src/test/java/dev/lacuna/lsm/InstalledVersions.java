package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A tree fed empty versions as its version set would feed them ({@code installVersion}, then the set's own reference
 * dropped), counting how often each version is released: for the view stress tests.
 */
final class InstalledVersions {
    final Tree tree;
    private final Method install;
    private final Map<Version, AtomicInteger> released = new ConcurrentHashMap<>();
    private final List<Version> all = new ArrayList<>();

    InstalledVersions() throws ReflectiveOperationException {
        Constructor<Tree> ctor = Tree.class.getDeclaredConstructor(int.class);
        ctor.setAccessible(true);
        tree = ctor.newInstance(0);
        install = Tree.class.getDeclaredMethod("installVersion", Version.class);
        install.setAccessible(true);
        installNext();
    }

    /** Installs a new version; the tree and its readers hold it from then on. */
    void installNext() throws ReflectiveOperationException {
        Version v = Version.empty(x -> released.get(x).incrementAndGet());
        released.put(v, new AtomicInteger()); // starts with one reference: the version set's
        all.add(v);
        install.invoke(tree, v);
        v.unref();
    }

    /** How often {@code version} was released (0 while anyone holds it). */
    int releases(Version version) {
        return released.get(version).get();
    }

    /** Every version but the current one released exactly once, the current one not at all. */
    void assertEachReplacedReleasedOnce() {
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < all.size() - 1; i++) {
            int times = releases(all.get(i));
            if (times != 1) {
                wrong.add(i + "=" + times + "/refs " + LsmInternals.field(all.get(i), "refs"));
            }
        }
        assertThat(wrong).as("versions not released exactly once, of %d", all.size()).isEmpty();
        assertThat(releases(all.get(all.size() - 1))).as("the current version").isZero();
    }
}
