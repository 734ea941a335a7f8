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
 * A {@link Vfs} that wraps another, counts every operation made through it and makes chosen operations
 * fail, to test how callers handle I/O errors: a single failed fsync ({@link #failNth}), a dead disk
 * ({@link #failFrom}), a full disk ({@link #diskFullAfter}), or the {@code n}-th operation of any kind
 * failing in one of the ways a disk fails ({@link #failOperation}: an error, a disk filling up in the
 * middle of a write, a torn write). Every file it opens is wrapped too, so rules reach the reads, writes
 * and forces made through those handles.
 *
 * <p>Every operation that can fail with an {@link IOException} is counted, by kind ({@link Op}) and
 * overall; only {@link Vfs#exists} (which cannot fail), {@link VfsFile#name()} and closing a file or a
 * lock are not. A fault-injection campaign counts the operations of a run once, then runs again with
 * each of them failing in turn.
 *
 * <p>An operation that fails by rule does not reach the delegate at all, except a write that fails part
 * way (the one crossing a {@link #diskFullAfter} limit, the one a {@link Fault#DISK_FULL} or
 * {@link Fault#TORN_WRITE} lands on): it first writes a prefix of its bytes, as a real disk does.
 *
 * <p>Thread-safe: rules and counters are guarded by one monitor, which is not held while the delegate
 * runs. Rules may be changed while other threads do I/O; an operation sees the rules in force when it
 * is counted.
 */
public final class FaultyVfs implements Vfs {
    /** The kinds of operation that are counted and can be made to fail. */
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
        DELETE,
        /** {@link Vfs#open(Path)} and {@link Vfs#openReadOnly(Path)}. */
        OPEN,
        /** {@link VfsFile#read} (and so each step of {@link VfsFile#readFully}). */
        READ,
        /** {@link Vfs#list(Path)}. */
        LIST,
        /** {@link Vfs#lock(Path)}. */
        LOCK,
        /** {@link Vfs#size(Path)} and {@link VfsFile#size()}. */
        SIZE,
        /** {@link VfsFile#truncate(long)}. */
        TRUNCATE,
        /** {@link Vfs#mkdirs(Path)}. */
        MKDIRS
    }

    /** How the operation chosen with {@link #failOperation} fails. */
    public enum Fault {
        /** It throws an {@link IOException} and has no effect, whatever its kind. */
        ERROR,
        /**
         * The disk fills up at it: from then on until {@link #heal()}, writes and file creations throw
         * {@code IOException("No space left on device")}. The first write to fail (the chosen operation if it
         * is a write, else the next write) first writes the first half of its bytes; later ones write none.
         * Other kinds of operation run normally.
         */
        DISK_FULL,
        /**
         * The first write at or after it is torn: the first half of its bytes land, then it throws an
         * {@link IOException}. Operations before that write run normally; so do later ones.
         */
        TORN_WRITE
    }

    private final Vfs delegate;
    private final Object monitor = new Object();
    private final Map<Op, Counter> counters = new EnumMap<>(Op.class); // guarded by monitor
    private long diskBytesLeft = Long.MAX_VALUE; // guarded by monitor; MAX_VALUE means no limit
    private long total;                          // guarded by monitor: operations of every kind
    private long chosen = Long.MAX_VALUE;        // guarded by monitor: absolute ordinal of failOperation's target
    private Fault chosenFault;                   // guarded by monitor
    private long chosenRelative;                 // guarded by monitor: its ordinal as failOperation was given it
    private boolean diskFull;                    // guarded by monitor: a DISK_FULL fault has struck
    private boolean halfNextWrite;               // guarded by monitor: the next write writes half, then fails
    private boolean tearNextWrite;               // guarded by monitor: the next write is torn (TORN_WRITE)
    private boolean forceFailureDropsWrites;     // guarded by monitor: see failedForceDropsWrites
    private long injected;                       // guarded by monitor: failures thrown by rule
    private String firstInjected;                // guarded by monitor

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
     * Makes the {@code n}-th operation of any kind, counted from this call, fail as {@code fault} says:
     * the way a fault-injection campaign walks through every operation of a run. Replaces an earlier
     * {@code failOperation} that has not struck yet. An {@link Fault#ERROR} throws
     * {@code IOException("injected failure: <op> (operation #<n>) on <file>")}.
     *
     * @param n 1 for the very next operation
     */
    public void failOperation(long n, Fault fault) {
        Objects.requireNonNull(fault, "fault");
        requirePositive(n);
        synchronized (monitor) {
            chosen = total + n;
            chosenRelative = n;
            chosenFault = fault;
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

    /**
     * Makes a {@link VfsFile#force()} that fails by rule also drop the file's writes since its last force
     * from what a power loss leaves, as Linux does when an fsync fails: it marks the dirty pages of the
     * failed writeback clean, so a later fsync that succeeds does not write them ("fsyncgate"). The process
     * still reads the bytes back. Takes effect on files of a {@link MemVfs} underneath (through
     * {@link ForwardingVfs} and {@code FaultyVfs} wrappers); other files keep their writes. Off by default
     * (a failed fsync then leaves the writes pending, so a later force makes them durable); {@link #heal()}
     * keeps it.
     */
    public void failedForceDropsWrites(boolean drops) {
        synchronized (monitor) {
            forceFailureDropsWrites = drops;
        }
    }

    /** Removes every rule: nothing fails any more, and a full disk has room again. Counts are kept. */
    public void heal() {
        synchronized (monitor) {
            for (Counter counter : counters.values()) {
                counter.oneShot.clear();
                counter.failFrom = Long.MAX_VALUE;
            }
            diskBytesLeft = Long.MAX_VALUE;
            chosen = Long.MAX_VALUE;
            chosenFault = null;
            diskFull = false;
            halfNextWrite = false;
            tearNextWrite = false;
        }
    }

    /** How many operations of kind {@code op} were attempted so far, including those that failed. */
    public long count(Op op) {
        Objects.requireNonNull(op, "op");
        synchronized (monitor) {
            return counters.get(op).seen;
        }
    }

    /** How many operations of every kind were attempted so far, including those that failed. */
    public long totalCount() {
        synchronized (monitor) {
            return total;
        }
    }

    /** How many operations failed by a rule so far (a write that wrote part of its bytes included). */
    public long injectedCount() {
        synchronized (monitor) {
            return injected;
        }
    }

    /** The message of the first failure injected by a rule, or null if none was: says what failed, and where. */
    public String firstInjected() {
        synchronized (monitor) {
            return firstInjected;
        }
    }

    @Override
    public VfsFile create(Path file) throws IOException {
        admit(Op.CREATE, file.toString());
        return new FaultyFile(delegate.create(file));
    }

    @Override
    public VfsFile open(Path file) throws IOException {
        admit(Op.OPEN, file.toString());
        return new FaultyFile(delegate.open(file));
    }

    @Override
    public VfsFile openReadOnly(Path file) throws IOException {
        admit(Op.OPEN, file.toString());
        return new FaultyFile(delegate.openReadOnly(file));
    }

    @Override
    public boolean exists(Path path) {
        return delegate.exists(path);
    }

    @Override
    public long size(Path file) throws IOException {
        admit(Op.SIZE, file.toString());
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
        admit(Op.LIST, dir.toString());
        return delegate.list(dir);
    }

    @Override
    public void mkdirs(Path dir) throws IOException {
        admit(Op.MKDIRS, dir.toString());
        delegate.mkdirs(dir);
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        admit(Op.SYNC_DIRECTORY, dir.toString());
        delegate.syncDirectory(dir);
    }

    @Override
    public VfsLock lock(Path lockFile) throws IOException {
        admit(Op.LOCK, lockFile.toString());
        return delegate.lock(lockFile);
    }

    /** Counts one operation other than a write and throws if a rule says it fails. */
    private void admit(Op op, String target) throws IOException {
        synchronized (monitor) {
            admitLocked(op, target);
        }
    }

    private void admitLocked(Op op, String target) throws IOException {
        Counter counter = counters.get(op);
        long ordinal = ++counter.seen;
        long overall = ++total;
        Long nth = counter.oneShot.remove(ordinal);
        if (nth != null) {
            throw injected(kindFailure(op, nth, target));
        }
        if (ordinal >= counter.failFrom) {
            throw injected(kindFailure(op, ordinal - counter.failFromBase, target));
        }
        if (overall == chosen) {
            Fault fault = chosenFault;
            chosen = Long.MAX_VALUE;
            chosenFault = null;
            switch (fault) {
                case ERROR -> throw injected(new IOException("injected failure: " + op + " (operation #"
                        + chosenRelative + ") on " + target));
                case DISK_FULL -> {
                    diskFull = true;
                    halfNextWrite = true;
                }
                case TORN_WRITE -> tearNextWrite = true;
            }
        }
        if (diskFull && op == Op.CREATE) {
            throw injected(diskFull());
        }
    }

    /** Records a failure thrown by rule (for {@link #injectedCount} and {@link #firstInjected}) and returns it. */
    private IOException injected(IOException e) {
        injected++;
        if (firstInjected == null) {
            firstInjected = e.getMessage();
        }
        return e;
    }

    /**
     * Counts one write of {@code length} bytes and charges it to the disk budget.
     *
     * @return how many of the bytes to write, and the failure to throw after writing them (null if none)
     */
    private Admitted admitWrite(String target, int length) throws IOException {
        synchronized (monitor) {
            admitLocked(Op.WRITE, target);
            if (tearNextWrite) {
                tearNextWrite = false;
                return new Admitted(length / 2, injected(new IOException("injected failure: torn write of " + length
                        + " bytes (operation #" + total + ") on " + target)));
            }
            if (diskFull) {
                int fits = halfNextWrite ? length / 2 : 0;
                halfNextWrite = false;
                return new Admitted(fits, injected(diskFull()));
            }
            if (length <= diskBytesLeft) {
                if (diskBytesLeft != Long.MAX_VALUE) {
                    diskBytesLeft -= length;
                }
                return new Admitted(length, null);
            }
            int fits = (int) diskBytesLeft;
            diskBytesLeft = 0;
            return new Admitted(fits, injected(diskFull()));
        }
    }

    /** What a write may do: write {@code bytes} of its bytes, then throw {@code failure} unless it is null. */
    private record Admitted(int bytes, IOException failure) {
    }

    private static IOException kindFailure(Op op, long n, String target) {
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

    /** A file whose operations go through the rules. */
    final class FaultyFile implements VfsFile {
        /** The delegate's file (read by {@link MemVfs#dropUnsynced(VfsFile)}). */
        final VfsFile file;

        FaultyFile(VfsFile file) {
            this.file = file;
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            admit(Op.READ, file.name());
            return file.read(dst, position);
        }

        @Override
        public void write(ByteBuffer src, long position) throws IOException {
            Admitted admitted = admitWrite(file.name(), src.remaining());
            if (admitted.failure() == null) {
                file.write(src, position);
                return;
            }
            if (admitted.bytes() > 0) {
                file.write(prefix(src, admitted.bytes()), position);
            }
            throw admitted.failure();
        }

        @Override
        public long append(ByteBuffer src) throws IOException {
            Admitted admitted = admitWrite(file.name(), src.remaining());
            if (admitted.failure() == null) {
                return file.append(src);
            }
            if (admitted.bytes() > 0) {
                file.append(prefix(src, admitted.bytes()));
            }
            throw admitted.failure();
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
            try {
                admit(Op.FORCE, file.name());
            } catch (IOException e) {
                boolean drops;
                synchronized (monitor) {
                    drops = forceFailureDropsWrites;
                }
                if (drops) {
                    MemVfs.dropUnsynced(file);
                }
                throw e;
            }
            file.force();
        }

        @Override
        public long size() throws IOException {
            admit(Op.SIZE, file.name());
            return file.size();
        }

        @Override
        public void truncate(long size) throws IOException {
            admit(Op.TRUNCATE, file.name());
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
