package dev.lacuna.lsm;

import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the SSTables open for reading (opens minus closes of {@code .sst} files opened read-only: the
 * tables' readers) and the most ever open at once, as a descriptor limit would.
 */
final class OpenFileCountingVfs extends ForwardingVfs {
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicInteger max = new AtomicInteger();
    private final AtomicInteger opens = new AtomicInteger();

    OpenFileCountingVfs(Vfs delegate) {
        super(delegate);
    }

    /** SSTables open for reading now. */
    int open() {
        return open.get();
    }

    /** The most SSTables open for reading at once since the last {@link #resetMax()}. */
    int max() {
        return max.get();
    }

    /** Read-only opens of SSTables so far. */
    int opens() {
        return opens.get();
    }

    void resetMax() {
        max.set(open.get());
    }

    @Override
    public VfsFile openReadOnly(Path file) throws IOException {
        VfsFile f = super.openReadOnly(file);
        if (!file.getFileName().toString().endsWith(".sst")) {
            return f;
        }
        opens.incrementAndGet();
        max.accumulateAndGet(open.incrementAndGet(), Math::max);
        AtomicBoolean closed = new AtomicBoolean();
        return new ForwardingVfs.File(f) {
            @Override
            public void close() throws IOException {
                if (closed.compareAndSet(false, true)) {
                    open.decrementAndGet();
                }
                super.close();
            }
        };
    }
}
