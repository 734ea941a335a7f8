package dev.lacuna.vfs.testing;

import dev.lacuna.vfs.MemVfs;
import java.io.IOException;
import java.util.Random;

/**
 * The crash-image step of a power-loss cycle of a crash test ({@link CrashCycles}): the file system is cloned as a power loss would leave it, and the
 * cycle's readers and writers, which run on while the clone is taken, learn that it has begun. What a reader read
 * counts against the crash image only if it was read {@link #before()} the clone began: a read that ends while the
 * clone is taken may have seen a write the image does not hold, which is no loss.
 */
public final class CrashMoment {
    private volatile boolean taken;

    /** Whether the clone has not begun: what a reader read by now must survive the crash. */
    public boolean before() {
        return !taken;
    }

    /**
     * Marks the clone begun and takes it: what {@code vfs} holds durably, plus (if {@code partial} is not null) a
     * random part of what it does not ({@link BrokenVfs#crashClone}).
     */
    public MemVfs take(BrokenVfs vfs, Random partial) throws IOException {
        taken = true;
        return vfs.crashClone(partial);
    }
}
