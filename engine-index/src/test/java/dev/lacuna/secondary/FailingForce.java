package dev.lacuna.secondary;

import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;

/**
 * A file system on which one chosen fsync of one kind of file fails: the {@code n}-th force, counted from
 * {@link #failNth}, of a file whose name contains a marker ({@code ".wal"} for the log's segments,
 * {@code "MANIFEST-"} for the manifest). {@link dev.lacuna.vfs.FaultyVfs} counts every file's fsyncs together,
 * which makes "the log's next fsync" depend on how many manifest edits come first, the very order a test of
 * a schema change wants to be free to change.
 */
final class FailingForce extends ForwardingVfs {
    private final Object lock = new Object();
    private String marker; // guarded by lock; null: nothing fails
    private int left;      // guarded by lock: forces of matching files still to pass before the one that fails

    FailingForce(Vfs inner) {
        super(inner);
    }

    /** Makes the {@code n}-th force (1: the next) of a file whose name contains {@code marker} fail, once. */
    void failNth(String marker, int n) {
        synchronized (lock) {
            this.marker = marker;
            this.left = n - 1;
        }
    }

    /** Whether the armed failure has not struck yet. */
    boolean armed() {
        synchronized (lock) {
            return marker != null;
        }
    }

    private void admit(String name) throws IOException {
        synchronized (lock) {
            if (marker == null || !name.contains(marker)) {
                return;
            }
            if (left > 0) {
                left--;
                return;
            }
            marker = null;
        }
        throw new IOException("injected failure: fsync of " + name);
    }

    @Override
    protected VfsFile wrap(VfsFile f) {
        return new ForwardingVfs.File(f) {
            @Override
            public void force() throws IOException {
                admit(name());
                super.force();
            }
        };
    }
}
