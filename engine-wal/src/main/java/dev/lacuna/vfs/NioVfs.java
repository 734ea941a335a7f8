package dev.lacuna.vfs;

import java.io.IOException;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The production {@link Vfs}: the operating system's file system through {@link FileChannel} (and
 * {@link AsynchronousFileChannel} for fsync, which an interrupt cannot close).
 *
 * <p>{@link VfsFile#force()} is {@code fdatasync} ({@code force(false)}), which also flushes the file size
 * when it changed, so appended bytes are durable after it. {@link #syncDirectory(Path)} opens the
 * directory and fsyncs it, which works on Linux (on some platforms, notably Windows, opening a directory
 * as a channel fails).
 *
 * <p>An interrupted thread costs at most its own call, never a file or the lock: a file whose channel an
 * interrupt closed reopens it and runs the operation again (the package-private {@code NioFile} explains
 * how), and see {@link #lock(Path)}.
 *
 * <p>Thread-safe: it holds no state (the locks it takes are the process's, shared by every instance: see
 * {@link #lock(Path)}); each {@link VfsFile} it returns is thread-safe as well.
 */
public final class NioVfs implements Vfs {
    /** Creates a file system view over the operating system's default file system. */
    public NioVfs() {
    }

    @Override
    public VfsFile create(Path file) throws IOException {
        return NioFile.open(file,
                Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE), false);
    }

    @Override
    public VfsFile open(Path file) throws IOException {
        return NioFile.open(file, Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE), false);
    }

    @Override
    public VfsFile openReadOnly(Path file) throws IOException {
        return NioFile.open(file, Set.of(StandardOpenOption.READ), true);
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

    /**
     * {@inheritDoc}
     *
     * <p>Through an {@link AsynchronousFileChannel}, whose {@code force} runs in the calling thread and is not
     * interruptible, so that an interrupted caller neither fails the sync nor loses its outcome.
     */
    @Override
    public void syncDirectory(Path dir) throws IOException {
        try (AsynchronousFileChannel channel = AsynchronousFileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Uses an OS file lock ({@code FileChannel.tryLock}), so it excludes other processes as well as a
     * second lock of the same file (by any path to it) within this JVM. A refused second lock in this JVM
     * closes no descriptor of the file, since on POSIX closing one would release the holder's lock too, and
     * an interrupt cannot release it (the package-private {@code NioLocks} explains both).
     */
    @Override
    public VfsLock lock(Path lockFile) throws IOException {
        return NioLocks.lock(lockFile);
    }

    /**
     * {@inheritDoc}
     *
     * <p>A hard link ({@code Files.createLink}); where the file system refuses one (another device, no hard
     * links, a permission), a copy.
     */
    @Override
    public void link(Path from, Path to) throws IOException {
        if (!Files.exists(from)) {
            throw new java.nio.file.NoSuchFileException(from.toString());
        }
        try {
            Files.createLink(to, from);
        } catch (java.nio.file.FileAlreadyExistsException | java.nio.file.NoSuchFileException e) {
            throw e; // the caller's mistake (or a race): copying would hit it too
        } catch (IOException | UnsupportedOperationException e) {
            VfsCopy.copy(this, from, to);
        }
    }
}
