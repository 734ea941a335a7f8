package dev.lacuna.vfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link NioVfs} file: positional reads and writes through a {@link FileChannel}, fsync through an
 * {@link AsynchronousFileChannel} on the same file.
 *
 * <h2>Interrupts</h2>
 * A {@code FileChannel} is an {@link java.nio.channels.InterruptibleChannel}: when a thread is interrupted
 * before or during one of its operations, the channel is closed for every user. An embedder interrupts its
 * threads ({@code Future.cancel(true)}, timeouts), and that must cost at most the interrupted call, not the
 * file. So an operation that fails because the channel was closed by an interrupt — its own thread's
 * ({@link ClosedByInterruptException}) or another's (the channel found closed, or closed under it) —
 * reopens the channel and runs again; the interrupted thread's flag is cleared for the retry (or it would
 * close the new channel at once) and set again before the call returns, so the caller still sees it.
 * Retrying is safe because every operation here is positional and idempotent: a read or write runs again
 * at the same offset, continuing after whatever part the closed attempt completed (the buffer's position
 * says how much); an append took its offset before writing and keeps it; size and truncate can simply run
 * again.
 *
 * <p>{@link #force()} is not retried that way: an interrupt during {@code fsync} hides its outcome, and an
 * {@code fsync} on a reopened descriptor would not report a write-back error that the lost one had already
 * consumed, so a retry could report durable data that is not. It goes through an
 * {@code AsynchronousFileChannel} instead, whose {@code force} runs in the calling thread and which an
 * interrupt never closes; every fsync of a writable file goes through that one descriptor, which therefore
 * sees every write-back error. (A read-only handle forces through its {@code FileChannel}, with retries:
 * nothing was written through it.)
 *
 * <p>The channel is reopened by path, and only if the path still names the file first opened (same
 * {@link BasicFileAttributes#fileKey() file key}, where the platform has one): a file deleted or replaced
 * since cannot be reopened, and the operation fails with an {@link IOException} saying so.
 *
 * <p>Thread-safe. Append and truncate take {@link #sizeLock} so that two appends never pick the same end
 * offset and a truncate cannot interleave with an append's size-then-write.
 */
final class NioFile implements VfsFile {
    private final Path path;
    private final String name;
    private final boolean readOnly;
    private final Set<OpenOption> reopenOptions;
    private final Object fileKey; // null where the platform has none
    private final AsynchronousFileChannel syncChannel; // null for a read-only handle
    private final ReentrantLock sizeLock = new ReentrantLock();
    private final Object reopenLock = new Object();
    private volatile FileChannel channel; // replaced (under reopenLock) after an interrupt closed it
    private volatile boolean closed;      // written under reopenLock

    private NioFile(Path path, FileChannel channel, AsynchronousFileChannel syncChannel, boolean readOnly)
            throws IOException {
        this.path = path;
        this.name = path.toString();
        this.readOnly = readOnly;
        this.reopenOptions = readOnly ? Set.of(StandardOpenOption.READ)
                : Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE);
        this.channel = channel;
        this.syncChannel = syncChannel;
        this.fileKey = Files.readAttributes(path, BasicFileAttributes.class).fileKey();
    }

    /**
     * Opens {@code path} with {@code options} (which must include READ, and WRITE unless
     * {@code readOnly}); closes what it opened if it fails.
     */
    static NioFile open(Path path, Set<OpenOption> options, boolean readOnly) throws IOException {
        FileChannel channel = FileChannel.open(path, options);
        AsynchronousFileChannel sync = null;
        try {
            if (!readOnly) {
                sync = AsynchronousFileChannel.open(path, StandardOpenOption.WRITE);
            }
            return new NioFile(path, channel, sync, readOnly);
        } catch (IOException | RuntimeException e) {
            closeQuietly(channel, e);
            if (sync != null) {
                closeQuietly(sync, e);
            }
            throw e;
        }
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        int start = dst.position();
        return retrying(ch -> {
            // A closed attempt may have read bytes before the channel closed: they count.
            int done = dst.position() - start;
            return done > 0 ? done : ch.read(dst, position);
        });
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
            // The file may also be written at arbitrary positions, so the end is the file's size, not a
            // position this handle tracks.
            long position = size();
            writeFully(src, position);
            return position;
        } finally {
            sizeLock.unlock();
        }
    }

    private void writeFully(ByteBuffer src, long position) throws IOException {
        int start = src.position();
        retrying(ch -> {
            while (src.hasRemaining()) {
                // from the buffer's position, not a counter: a closed attempt may have written part of it
                ch.write(src, position + (src.position() - start));
            }
            return null;
        });
    }

    @Override
    public void force() throws IOException {
        // fdatasync: flushes the data and the size (when it changed), not the timestamps.
        if (syncChannel != null) {
            syncChannel.force(false);
        } else {
            retrying(ch -> {
                ch.force(false);
                return null;
            });
        }
    }

    @Override
    public long size() throws IOException {
        return retrying(FileChannel::size);
    }

    @Override
    public void truncate(long size) throws IOException {
        checkWritable();
        sizeLock.lock();
        try {
            retrying(ch -> ch.truncate(size));
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
        synchronized (reopenLock) {
            closed = true; // no reopen after this
        }
        IOException error = null;
        try {
            channel.close();
        } catch (IOException e) {
            error = e;
        }
        if (syncChannel != null) {
            try {
                syncChannel.close();
            } catch (IOException e) {
                if (error == null) {
                    error = e;
                } else {
                    error.addSuppressed(e);
                }
            }
        }
        if (error != null) {
            throw error;
        }
    }

    /** An operation on the current channel. */
    private interface ChannelOp<T> {
        T run(FileChannel channel) throws IOException;
    }

    /** Runs {@code op}, reopening the channel and running it again for as long as an interrupt closes it. */
    private <T> T retrying(ChannelOp<T> op) throws IOException {
        boolean interrupted = false;
        try {
            while (true) {
                FileChannel current = channel;
                try {
                    return op.run(current);
                } catch (ClosedChannelException e) {
                    if (e instanceof ClosedByInterruptException) {
                        interrupted = true;
                        Thread.interrupted(); // else the retry's channel closes at once; restored below
                    }
                    reopen(current, e);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Replaces {@code failed}, found closed by {@code cause}, unless another thread did, or this file was closed. */
    private void reopen(FileChannel failed, ClosedChannelException cause) throws IOException {
        synchronized (reopenLock) {
            if (closed || failed.isOpen()) {
                throw cause; // closed by its owner (not ours to undo), or not closed at all
            }
            if (channel != failed) {
                return; // another thread reopened it already
            }
            FileChannel fresh;
            try {
                fresh = FileChannel.open(path, reopenOptions);
            } catch (IOException e) {
                e.addSuppressed(cause);
                throw new IOException(name + " was closed by an interrupt and cannot be reopened: " + e, e);
            }
            try {
                Object key = Files.readAttributes(path, BasicFileAttributes.class).fileKey();
                if (!Objects.equals(key, fileKey)) {
                    throw new IOException(name + " was closed by an interrupt and cannot be reopened: the path"
                            + " now names another file", cause);
                }
            } catch (IOException | RuntimeException e) {
                closeQuietly(fresh, e);
                throw e;
            }
            channel = fresh;
        }
    }

    // FileChannel would throw the unchecked NonWritableChannelException; callers handle IOException.
    private void checkWritable() throws IOException {
        if (readOnly) {
            throw new IOException(name + " is open read-only");
        }
    }

    private static void closeQuietly(java.io.Closeable c, Throwable primary) {
        try {
            c.close();
        } catch (IOException e) {
            primary.addSuppressed(e);
        }
    }
}
