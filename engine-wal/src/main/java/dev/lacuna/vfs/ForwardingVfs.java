package dev.lacuna.vfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

/**
 * A {@link Vfs} that hands every call to another, for wrappers that change a few of them (inject faults,
 * hold an fsync, take crash images): override what changes, and {@link #wrap} to change what files do.
 * Thread-safe if the delegate is.
 */
public abstract class ForwardingVfs implements Vfs {
    private final Vfs delegate;

    /** Forwards to {@code delegate}. */
    protected ForwardingVfs(Vfs delegate) {
        this.delegate = java.util.Objects.requireNonNull(delegate, "delegate");
    }

    /** The file system calls go to. */
    protected final Vfs delegate() {
        return delegate;
    }

    /** The file handed to callers for {@code file}, opened by the delegate; {@code file} itself by default. */
    protected VfsFile wrap(VfsFile file) {
        return file;
    }

    @Override
    public VfsFile create(Path file) throws IOException {
        return wrap(delegate.create(file));
    }

    @Override
    public VfsFile open(Path file) throws IOException {
        return wrap(delegate.open(file));
    }

    @Override
    public VfsFile openReadOnly(Path file) throws IOException {
        return wrap(delegate.openReadOnly(file));
    }

    @Override
    public boolean exists(Path path) {
        return delegate.exists(path);
    }

    @Override
    public long size(Path file) throws IOException {
        return delegate.size(file);
    }

    @Override
    public void rename(Path from, Path to) throws IOException {
        delegate.rename(from, to);
    }

    @Override
    public void delete(Path file) throws IOException {
        delegate.delete(file);
    }

    @Override
    public List<String> list(Path dir) throws IOException {
        return delegate.list(dir);
    }

    @Override
    public void mkdirs(Path dir) throws IOException {
        delegate.mkdirs(dir);
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        delegate.syncDirectory(dir);
    }

    @Override
    public VfsLock lock(Path lockFile) throws IOException {
        return delegate.lock(lockFile);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Forwarded, so that a wrapper keeps its delegate's hard links; a wrapper that must see the bytes
     * (to inject faults in them) overrides it to copy through its own {@code create} and {@code openReadOnly}.
     */
    @Override
    public void link(Path from, Path to) throws IOException {
        delegate.link(from, to);
    }

    /** A {@link VfsFile} that hands every call to another; override what changes. */
    public abstract static class File implements VfsFile {
        private final VfsFile delegate;

        /** Forwards to {@code delegate}. */
        protected File(VfsFile delegate) {
            this.delegate = java.util.Objects.requireNonNull(delegate, "delegate");
        }

        /** The file calls go to, for {@link MemVfs#dropUnsynced(VfsFile)}. */
        final VfsFile forwardee() {
            return delegate;
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            return delegate.read(dst, position);
        }

        @Override
        public void write(ByteBuffer src, long position) throws IOException {
            delegate.write(src, position);
        }

        @Override
        public long append(ByteBuffer src) throws IOException {
            return delegate.append(src);
        }

        @Override
        public void force() throws IOException {
            delegate.force();
        }

        @Override
        public long size() throws IOException {
            return delegate.size();
        }

        @Override
        public void truncate(long size) throws IOException {
            delegate.truncate(size);
        }

        @Override
        public String name() {
            return delegate.name();
        }

        @Override
        public void close() throws IOException {
            delegate.close();
        }
    }
}
