package dev.lacuna.secondary;

import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import dev.lacuna.vfs.VfsLock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A file system over a {@link MemVfs} that, while recording, takes a power-loss image
 * ({@link MemVfs#crashClone()}) just before every fsync and directory sync: each image is what a crash at
 * that moment would leave, so a test can check every crash point of an operation, not a random few.
 */
final class CrashPointVfs implements Vfs {
    private final MemVfs mem;
    private final List<MemVfs> images = new ArrayList<>();
    private volatile boolean recording;

    CrashPointVfs(MemVfs mem) {
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

    private VfsFile wrap(VfsFile f) {
        return new VfsFile() {
            @Override
            public int read(ByteBuffer dst, long position) throws IOException {
                return f.read(dst, position);
            }

            @Override
            public void write(ByteBuffer src, long position) throws IOException {
                f.write(src, position);
            }

            @Override
            public long append(ByteBuffer src) throws IOException {
                return f.append(src);
            }

            @Override
            public void force() throws IOException {
                crashPoint();
                f.force();
            }

            @Override
            public long size() throws IOException {
                return f.size();
            }

            @Override
            public void truncate(long size) throws IOException {
                f.truncate(size);
            }

            @Override
            public String name() {
                return f.name();
            }

            @Override
            public void close() throws IOException {
                f.close();
            }
        };
    }

    @Override
    public VfsFile create(Path file) throws IOException {
        return wrap(mem.create(file));
    }

    @Override
    public VfsFile open(Path file) throws IOException {
        return wrap(mem.open(file));
    }

    @Override
    public VfsFile openReadOnly(Path file) throws IOException {
        return wrap(mem.openReadOnly(file));
    }

    @Override
    public boolean exists(Path path) {
        return mem.exists(path);
    }

    @Override
    public long size(Path file) throws IOException {
        return mem.size(file);
    }

    @Override
    public void rename(Path from, Path to) throws IOException {
        mem.rename(from, to);
    }

    @Override
    public void delete(Path file) throws IOException {
        mem.delete(file);
    }

    @Override
    public List<String> list(Path dir) throws IOException {
        return mem.list(dir);
    }

    @Override
    public void mkdirs(Path dir) throws IOException {
        mem.mkdirs(dir);
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        crashPoint();
        mem.syncDirectory(dir);
    }

    @Override
    public VfsLock lock(Path lockFile) throws IOException {
        return mem.lock(lockFile);
    }
}
