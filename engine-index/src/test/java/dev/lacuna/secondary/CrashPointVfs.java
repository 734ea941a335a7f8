package dev.lacuna.secondary;

import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A file system over a {@link MemVfs} that, while recording, takes a power-loss image
 * ({@link MemVfs#crashClone()}) just before every fsync and directory sync: each image is what a crash at
 * that moment would leave, so a test can check every crash point of an operation, not a random few.
 */
final class CrashPointVfs extends ForwardingVfs {
    private final MemVfs mem;
    private final List<MemVfs> images = new ArrayList<>();
    private volatile boolean recording;

    CrashPointVfs(MemVfs mem) {
        super(mem);
        this.mem = mem;
    }

    /** Starts or stops taking images. */
    void recording(boolean on) {
        recording = on;
    }

    /** The images taken so far, oldest first. */
    synchronized List<MemVfs> images() {
        return List.copyOf(images);
    }

    private void crashPoint() {
        if (recording) {
            synchronized (this) {
                images.add(mem.crashClone());
            }
        }
    }

    @Override
    protected VfsFile wrap(VfsFile f) {
        return new ForwardingVfs.File(f) {
            @Override
            public void force() throws IOException {
                crashPoint();
                super.force();
            }
        };
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        crashPoint();
        super.syncDirectory(dir);
    }
}
