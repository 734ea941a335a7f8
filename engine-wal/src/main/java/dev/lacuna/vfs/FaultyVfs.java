package dev.lacuna.vfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A {@link Vfs} that wraps another and makes chosen operations fail, to test how callers handle I/O
 * errors: a single failed fsync ({@link #failNth}), a dead disk ({@link #failFrom}) or a full disk
 * ({@link #diskFullAfter}). Every file it opens is wrapped too, so rules reach writes and forces made
 * through those handles.
 *
 * <p>An operation that fails by rule does not reach the delegate at all, except that the write crossing
 * a {@link #diskFullAfter} limit first writes the bytes that fit, as a real full disk does. Operations
 * not covered by {@link Op} (reads, truncation, listing, locking, ...) always pass through.
 *
 * <p>Thread-safe: rules and counters are guarded by one monitor, which is not held while the delegate
 * runs. Rules may be changed while other threads do I/O; an operation sees the rules in force when it
 * is counted.
 */
public final class FaultyVfs implements Vfs {
    /** The kinds of operation that can be counted and made to fail. */
    public enum Op {
        /** {@link VfsFile#write} and {@link VfsFile#append}. */
        WRITE,
        /** {@link VfsFile#force()}. */
        FORCE,
        /** {@link Vfs#syncDirectory(Path)}. */
        SYNC_DIRECTORY,
        /** {@link Vfs#rename(Path, Path)}. */
        RENAME,
        /** {@link Vfs#create(Path)}. */
        CREATE,
        /** {@link Vfs#delete(Path)}. */
        DELETE
    }

    private final Vfs delegate;
    private final Object monitor = new Object();
    private final Map<Op, Counter> counters = new EnumMap<>(Op.class); // guarded by monitor
    private long diskBytesLeft = Long.MAX_VALUE; // guarded by monitor; MAX_VALUE means no limit

    /** Wraps {@code delegate}, initially injecting nothing. */
    public FaultyVfs(Vfs delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        for (Op op : Op.values()) {
            counters.put(op, new Counter());
        }
    }

    /**
     * Makes the {@code n}-th operation of kind {@code op}, counted from this call, throw
     * {@code IOException("injected failure: <op> #<n> on <file>")} instead of running. One-shot: later
     * operations run normally.
     *
     * @param n 1 for the very next operation of that kind
     */
    public void failNth(Op op, long n) {
        Objects.requireNonNull(op, "op");
        requirePositive(n);
        synchronized (monitor) {
            Counter counter = counters.get(op);
            counter.oneShot.put(counter.seen + n, n);
        }
    }

    /**
     * Makes the {@code n}-th operation of kind {@code op}, counted from this call, and every later one
     * fail as {@link #failNth} does: a dead disk. Replaces an earlier {@code failFrom} for that kind.
     *
     * @param n 1 to fail from the very next operation of that kind
     */
    public void failFrom(Op op, long n) {
        Objects.requireNonNull(op, "op");
        requirePositive(n);
        synchronized (monitor) {
            Counter counter = counters.get(op);
            counter.failFromBase = counter.seen;
            counter.failFrom = counter.seen + n;
        }
    }

    /**
     * Lets {@code bytes} more bytes be written (from this call on, through any file); after that, writes
     * throw {@code IOException("No space left on device")}. The write that crosses the limit writes the
     * bytes that fit and then throws. Replaces an earlier limit.
     *
     * @param bytes zero or more
     */
    public void diskFullAfter(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("negative byte budget " + bytes);
        }
        synchronized (monitor) {
            diskBytesLeft = bytes;
        }
    }

    /** Removes every rule: nothing fails any more. Counts are kept. */
    public void heal() {
        synchronized (monitor) {
            for (Counter counter : counters.values()) {
                counter.oneShot.clear();
                counter.failFrom = Long.MAX_VALUE;
            }
            diskBytesLeft = Long.MAX_VALUE;
        }
    }

    /** How many operations of kind {@code op} were attempted so far, including those that failed. */
    public long count(Op op) {
        Objects.requireNonNull(op, "op");
        synchronized (monitor) {
            return counters.get(op).seen;
        }
    }

    @Override
    public VfsFile create(Path file) throws IOException {
        admit(Op.CREATE, file.toString());
        return new FaultyFile(delegate.create(file));
    }

    @Override
    public VfsFile open(Path file) throws IOException {
        return new FaultyFile(delegate.open(file));
    }

    @Override
    public VfsFile openReadOnly(Path file) throws IOException {
        return new FaultyFile(delegate.openReadOnly(file));
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
        admit(Op.RENAME, from + " -> " + to);
        delegate.rename(from, to);
    }

    @Override
    public void delete(Path file) throws IOException {
        admit(Op.DELETE, file.toString());
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
        admit(Op.SYNC_DIRECTORY, dir.toString());
        delegate.syncDirectory(dir);
    }

    @Override
    public VfsLock lock(Path lockFile) throws IOException {
        return delegate.lock(lockFile);
    }

    /** Counts one operation and throws if a rule says it fails. */
    private void admit(Op op, String target) throws IOException {
        synchronized (monitor) {
            admitLocked(op, target);
        }
    }

    private void admitLocked(Op op, String target) throws IOException {
        Counter counter = counters.get(op);
        long ordinal = ++counter.seen;
        Long nth = counter.oneShot.remove(ordinal);
        if (nth != null) {
            throw injected(op, nth, target);
        }
        if (ordinal >= counter.failFrom) {
            throw injected(op, ordinal - counter.failFromBase, target);
        }
    }

    /**
     * Counts one write of {@code length} bytes and charges it to the disk budget.
     *
     * @return how many of the bytes may be written; fewer than {@code length} means the disk is full and
     *     the caller writes that many, then throws
     */
    private int admitWrite(String target, int length) throws IOException {
        synchronized (monitor) {
            admitLocked(Op.WRITE, target);
            if (length <= diskBytesLeft) {
                if (diskBytesLeft != Long.MAX_VALUE) {
                    diskBytesLeft -= length;
                }
                return length;
            }
            int fits = (int) diskBytesLeft;
            diskBytesLeft = 0;
            return fits;
        }
    }

    private static IOException injected(Op op, long n, String target) {
        return new IOException("injected failure: " + op + " #" + n + " on " + target);
    }

    private static IOException diskFull() {
        return new IOException("No space left on device");
    }

    private static void requirePositive(long n) {
        if (n < 1) {
            throw new IllegalArgumentException("operations are counted from 1: " + n);
        }
    }

    /** Rules and count for one kind of operation. */
    private static final class Counter {
        private long seen;
        /** Absolute ordinal to fail once, mapped to the ordinal relative to its rule (for the message). */
        private final Map<Long, Long> oneShot = new HashMap<>();
        /** Absolute ordinal from which everything fails; MAX_VALUE means never. */
        private long failFrom = Long.MAX_VALUE;
        /** The count when {@link #failFrom} was set, so messages number failures as the rule did. */
        private long failFromBase;
    }

    /** A file whose writes and forces go through the rules. */
    private final class FaultyFile implements VfsFile {
        private final VfsFile file;

        FaultyFile(VfsFile file) {
            this.file = file;
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            return file.read(dst, position);
        }

        @Override
        public void write(ByteBuffer src, long position) throws IOException {
            int length = src.remaining();
            int fits = admitWrite(file.name(), length);
            if (fits == length) {
                file.write(src, position);
                return;
            }
            if (fits > 0) {
                file.write(prefix(src, fits), position);
            }
            throw diskFull();
        }

        @Override
        public long append(ByteBuffer src) throws IOException {
            int length = src.remaining();
            int fits = admitWrite(file.name(), length);
            if (fits == length) {
                return file.append(src);
            }
            if (fits > 0) {
                file.append(prefix(src, fits));
            }
            throw diskFull();
        }

        /** The first {@code count} bytes of {@code src}, consumed from it as a partial write would. */
        private ByteBuffer prefix(ByteBuffer src, int count) {
            ByteBuffer prefix = src.duplicate();
            prefix.limit(prefix.position() + count);
            src.position(src.position() + count);
            return prefix;
        }

        @Override
        public void force() throws IOException {
            admit(Op.FORCE, file.name());
            file.force();
        }

        @Override
        public long size() throws IOException {
            return file.size();
        }

        @Override
        public void truncate(long size) throws IOException {
            file.truncate(size);
        }

        @Override
        public String name() {
            return file.name();
        }

        @Override
        public void close() throws IOException {
            file.close();
        }
    }
}
