package dev.lacuna.bench;

import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;

/**
 * A file system on which, while held, the reads of the global index updaters' threads (the log they follow)
 * wait: a benchmark lets a backlog build up, then releases the updater and times it working the backlog off
 * alone, its maximum apply rate.
 */
final class HeldUpdaterVfs extends ForwardingVfs {
    private volatile CountDownLatch gate;

    HeldUpdaterVfs(Vfs inner) {
        super(inner);
    }

    void hold() {
        gate = new CountDownLatch(1);
    }

    void release() {
        CountDownLatch g = gate;
        gate = null;
        if (g != null) {
            g.countDown();
        }
    }

    @Override
    protected VfsFile wrap(VfsFile f) {
        return new ForwardingVfs.File(f) {
            @Override
            public int read(ByteBuffer dst, long position) throws IOException {
                CountDownLatch g = gate;
                if (g != null && Thread.currentThread().getName().startsWith("lacuna-index-")) {
                    try {
                        g.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new InterruptedIOException("interrupted while held");
                    }
                }
                return super.read(dst, position);
            }
        };
    }
}
