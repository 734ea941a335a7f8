package dev.lacuna.vfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

/**
 * The production {@link Vfs}: the operating system's file system through {@link FileChannel}.
 *
 * <p>{@link VfsFile#force()} is {@code fdatasync} ({@code FileChannel.force(false)}), which also flushes
 * the file size when it changed, so appended bytes are durable after it. {@link #syncDirectory(Path)}
 * opens the directory and fsyncs it, which works on Linux (on some platforms, notably Windows, opening a
 * directory as a channel fails).
 *
 * <p>Thread-safe: it holds no state; each {@link VfsFile} it returns is thread-safe as well.
 */
public final class NioVfs implements Vfs {
    /** Creates a file system view over the operating system's default file system. */
    public NioVfs() {
    }

    @Override
    public VfsFile create(Path file) throws IOException {
        FileChannel channel = FileChannel.open(file,
                StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
        return new NioFile(channel, file.toString(), false);
    }

    @Override
    public VfsFile open(Path file) throws IOException {
        FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        return new NioFile(channel, file.toString(), false);
    }

    @Override
    public VfsFile openReadOnly(Path file) throws IOException {
        FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
        return new NioFile(channel, file.toString(), true);
    }

    @Override
    public boolean exists(Path path) {
        return Files.exists(path);
    }

    @Override
    public long size(Path file) throws IOException {
        return Files.size(file);
    }

    @Override
    public void rename(Path from, Path to) throws IOException {
        // rename(2) replaces the target atomically; REPLACE_EXISTING documents the intent (the JDK ignores
        // other options when ATOMIC_MOVE is given).
        Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public void delete(Path file) throws IOException {
        Files.delete(file);
    }

    /**
     * {@inheritDoc}
     *
     * @throws java.nio.file.NoSuchFileException if {@code dir} does not exist
     */
    @Override
    public List<String> list(Path dir) throws IOException {
        List<String> names = new ArrayList<>();
        try (Stream<Path> entries = Files.list(dir)) {
            entries.forEach(entry -> names.add(entry.getFileName().toString()));
        }
        names.sort(null);
        return names;
    }

    @Override
    public void mkdirs(Path dir) throws IOException {
        Files.createDirectories(dir);
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Uses an OS file lock ({@code FileChannel.tryLock}), so it excludes other processes as well as a
     * second lock of the same file within this JVM.
     */
    @Override
    public VfsLock lock(Path lockFile) throws IOException {
        FileChannel channel = FileChannel.open(lockFile,
                StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        FileLock fileLock;
        try {
            fileLock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            // Another channel in this JVM holds it: the same database opened twice in one process.
            channel.close();
            throw lockedException(lockFile);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        if (fileLock == null) {
            channel.close();
            throw lockedException(lockFile);
        }
        return new NioLock(channel, fileLock);
    }

    private static IOException lockedException(Path lockFile) {
        return new IOException(lockFile + " is locked by another process or another open database");
    }

    /** A held OS lock; closing releases the lock and closes the channel, once. */
    private static final class NioLock implements VfsLock {
        private final FileChannel channel;
        private final FileLock fileLock;
        private final AtomicBoolean closed = new AtomicBoolean();

        NioLock(FileChannel channel, FileLock fileLock) {
            this.channel = channel;
            this.fileLock = fileLock;
        }

        @Override
        public void close() throws IOException {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            try {
                fileLock.release();
            } finally {
                channel.close();
            }
        }
    }

    /**
     * A file over a {@link FileChannel}. Positional reads and writes go straight to the channel (pread and
     * pwrite are thread-safe); append and truncate take {@link #sizeLock} so that two appends never pick
     * the same end offset and a truncate cannot interleave with an append's size-then-write.
     */
    private static final class NioFile implements VfsFile {
        private final FileChannel channel;
        private final String name;
        private final boolean readOnly;
        private final ReentrantLock sizeLock = new ReentrantLock();

        NioFile(FileChannel channel, String name, boolean readOnly) {
            this.channel = channel;
            this.name = name;
            this.readOnly = readOnly;
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            return channel.read(dst, position);
        }

        @Override
        public void write(ByteBuffer src, long position) throws IOException {
            checkWritable();
            writeFully(src, position);
        }

        @Override
        public long append(ByteBuffer src) throws IOException {
            checkWritable();
            sizeLock.lock();
            try {
                // The file may also be written at arbitrary positions, so the end is the channel's size,
                // not a position this handle tracks.
                long position = channel.size();
                writeFully(src, position);
                return position;
            } finally {
                sizeLock.unlock();
            }
        }

        private void writeFully(ByteBuffer src, long position) throws IOException {
            long at = position;
            while (src.hasRemaining()) {
                at += channel.write(src, at);
            }
        }

        @Override
        public void force() throws IOException {
            // fdatasync: flushes the data and the size (when it changed), not the timestamps.
            channel.force(false);
        }

        @Override
        public long size() throws IOException {
            return channel.size();
        }

        @Override
        public void truncate(long size) throws IOException {
            checkWritable();
            sizeLock.lock();
            try {
                channel.truncate(size);
            } finally {
                sizeLock.unlock();
            }
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }

        // FileChannel would throw the unchecked NonWritableChannelException; callers handle IOException.
        private void checkWritable() throws IOException {
            if (readOnly) {
                throw new IOException(name + " is open read-only");
            }
        }
    }
}
