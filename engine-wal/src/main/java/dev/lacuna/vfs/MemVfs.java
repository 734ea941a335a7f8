package dev.lacuna.vfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * An in-memory {@link Vfs} that remembers what has been made durable, so that tests can simulate a power
 * loss at any instant with {@link #crashClone()} or {@link #crashClone(Random)} and reopen the clone.
 *
 * <p>The model follows POSIX inodes. A file is an inode holding its current content, its durable content
 * and the ordered list of writes and truncations made since its last {@link VfsFile#force()}; forcing
 * replays that list onto the durable content (cost proportional to the bytes written, not to the file
 * size). A directory holds its current entries (name to inode), its durable entries and the ordered list
 * of namespace operations (link, unlink, rename within the directory) since its last
 * {@link #syncDirectory(Path)}. Open handles refer to the inode, so they keep working after the name is
 * deleted or renamed.
 *
 * <p>Simplifications of a real file system:
 * <ul>
 *   <li>Directories are created durably at once by {@link #mkdirs(Path)}, and cannot be deleted or
 *       renamed. Lacuna creates its directories up front and never removes them.</li>
 *   <li>In {@link #crashClone(Random)}, the pending writes of a file reach the disk in the order they were
 *       made (a prefix survives, the first lost one possibly torn at any byte). Real disks may reorder
 *       writes between flushes; this model does not explore those states.</li>
 *   <li>Each file and each directory loses its pending operations independently, so a file's data may
 *       survive while its name does not, and vice versa.</li>
 *   <li>A rename across directories is an unlink in the source and a link in the target, each pending in
 *       its own directory: a crash may leave the file under both names or under neither. (Journaling file
 *       systems make such a rename atomic; Lacuna renames only within a directory.)</li>
 *   <li>Files are limited to {@code Integer.MAX_VALUE - 8} bytes.</li>
 * </ul>
 *
 * <p>Thread-safe: one monitor guards the whole file system, including every open handle, so each
 * operation (and each crash clone) is atomic with respect to all others. Operations are short, so the
 * single lock costs little in tests.
 */
public final class MemVfs implements Vfs {
    private static final int MAX_FILE_SIZE = Integer.MAX_VALUE - 8;

    private final Object monitor = new Object();
    /** Every directory by normalized absolute path; sorted so that crash clones draw randomness in a fixed order. */
    private final TreeMap<Path, Dir> dirs = new TreeMap<>();
    /** Normalized paths of the lock files currently locked. */
    private final Set<Path> locked = new HashSet<>();

    /** Creates an empty file system; only the root directory exists until {@link #mkdirs(Path)}. */
    public MemVfs() {
    }

    @Override
    public VfsFile create(Path file) throws IOException {
        Path path = normalize(file);
        synchronized (monitor) {
            return new MemFile(createLocked(path, file), file.toString(), false);
        }
    }

    @Override
    public VfsFile open(Path file) throws IOException {
        Path path = normalize(file);
        synchronized (monitor) {
            return new MemFile(inodeLocked(path, file), file.toString(), false);
        }
    }

    @Override
    public VfsFile openReadOnly(Path file) throws IOException {
        Path path = normalize(file);
        synchronized (monitor) {
            return new MemFile(inodeLocked(path, file), file.toString(), true);
        }
    }

    @Override
    public boolean exists(Path path) {
        Path normalized = normalize(path);
        synchronized (monitor) {
            return dirLocked(normalized) != null || fileLocked(normalized) != null;
        }
    }

    @Override
    public long size(Path file) throws IOException {
        Path path = normalize(file);
        synchronized (monitor) {
            return inodeLocked(path, file).current.length;
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Within one directory this is a single pending namespace operation; across directories it is an
     * unlink pending in the source and a link pending in the target (see the class comment).
     *
     * @throws NoSuchFileException if {@code from} or the directory of {@code to} does not exist
     * @throws FileSystemException if either path names a directory (directories cannot be renamed)
     */
    @Override
    public void rename(Path from, Path to) throws IOException {
        Path source = normalize(from);
        Path target = normalize(to);
        synchronized (monitor) {
            Inode inode = inodeLocked(source, from);
            Dir sourceDir = parentLocked(source, from);
            Dir targetDir = parentLocked(target, to);
            String sourceName = source.getFileName().toString();
            String targetName = target.getFileName().toString();
            if (targetDir.subdirs.contains(targetName)) {
                throw new FileSystemException(to.toString(), null, "Is a directory");
            }
            if (source.equals(target)) {
                return; // POSIX: renaming a file onto itself does nothing.
            }
            if (sourceDir == targetDir) {
                sourceDir.entries.remove(sourceName);
                sourceDir.entries.put(targetName, inode);
                sourceDir.pending.add(new Rename(sourceName, targetName, inode));
            } else {
                sourceDir.entries.remove(sourceName);
                sourceDir.pending.add(new Unlink(sourceName));
                targetDir.entries.put(targetName, inode);
                targetDir.pending.add(new Link(targetName, inode));
            }
        }
    }

    /**
     * {@inheritDoc}
     *
     * @throws FileSystemException if {@code file} is a directory (directories cannot be deleted)
     */
    @Override
    public void delete(Path file) throws IOException {
        Path path = normalize(file);
        synchronized (monitor) {
            inodeLocked(path, file);
            Dir dir = parentLocked(path, file);
            String name = path.getFileName().toString();
            dir.entries.remove(name);
            dir.pending.add(new Unlink(name));
        }
    }

    /**
     * {@inheritDoc}
     *
     * @throws NoSuchFileException   if {@code dir} does not exist
     * @throws NotDirectoryException if {@code dir} is a file
     */
    @Override
    public List<String> list(Path dir) throws IOException {
        Path path = normalize(dir);
        synchronized (monitor) {
            Dir directory = existingDirLocked(path, dir);
            TreeSet<String> names = new TreeSet<>(directory.entries.keySet());
            names.addAll(directory.subdirs);
            return new ArrayList<>(names);
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>The new directories are durable at once (a simplification: see the class comment).
     *
     * @throws FileAlreadyExistsException if a component of {@code dir} is a file
     */
    @Override
    public void mkdirs(Path dir) throws IOException {
        Path path = normalize(dir);
        synchronized (monitor) {
            Path at = path.getRoot();
            Dir current = dirLocked(at);
            for (int i = 0; i < path.getNameCount(); i++) {
                String name = path.getName(i).toString();
                at = at.resolve(name);
                Dir child = dirs.get(at);
                if (child == null) {
                    if (current.entries.containsKey(name)) {
                        throw new FileAlreadyExistsException(at.toString());
                    }
                    child = new Dir();
                    current.subdirs.add(name);
                    dirs.put(at, child);
                }
                current = child;
            }
        }
    }

    /**
     * {@inheritDoc}
     *
     * @throws NoSuchFileException   if {@code dir} does not exist
     * @throws NotDirectoryException if {@code dir} is a file
     */
    @Override
    public void syncDirectory(Path dir) throws IOException {
        Path path = normalize(dir);
        synchronized (monitor) {
            Dir directory = existingDirLocked(path, dir);
            for (NameOp op : directory.pending) {
                op.applyTo(directory.durable);
            }
            directory.pending.clear();
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Locks live in this instance only; a crash clone starts with none, as a crashed process holds
     * none. Creating a missing lock file is an ordinary (not yet durable) file creation.
     */
    @Override
    public VfsLock lock(Path lockFile) throws IOException {
        Path path = normalize(lockFile);
        synchronized (monitor) {
            if (locked.contains(path)) {
                throw new IOException(lockFile + " is locked by another process or another open database");
            }
            if (fileLocked(path) == null) {
                createLocked(path, lockFile);
            }
            locked.add(path);
            return new MemLock(path);
        }
    }

    /**
     * The current (not necessarily durable) content of {@code file}, as a fresh array.
     *
     * @throws NoSuchFileException if {@code file} does not exist
     */
    public byte[] readAll(Path file) throws IOException {
        Path path = normalize(file);
        synchronized (monitor) {
            Content content = inodeLocked(path, file).current;
            return Arrays.copyOf(content.bytes, content.length);
        }
    }

    /**
     * A new, independent file system as a strict power loss would leave this one now: every directory
     * holds its durable entries and every file its durable content; whatever was not synced is gone. No
     * handles or locks carry over. This file system is unaffected and keeps working.
     */
    public MemVfs crashClone() {
        synchronized (monitor) {
            return cloneLocked(null);
        }
    }

    /**
     * A new, independent file system as a power loss at this instant might leave this one. Each directory
     * keeps its durable entries plus a random-length prefix (possibly empty, possibly all) of its pending
     * namespace operations; each file keeps its durable content plus a random-length prefix of its pending
     * writes and truncations, and the first write not kept may survive torn (half the time, a random
     * non-empty proper prefix of its bytes). A file reachable under several names stays one file. No handles or locks carry over. This
     * file system is unaffected and keeps working.
     *
     * <p>The outcome depends only on this file system's state and on {@code random}, so a seeded
     * {@link Random} reproduces it.
     */
    public MemVfs crashClone(Random random) {
        Objects.requireNonNull(random, "random");
        synchronized (monitor) {
            return cloneLocked(random);
        }
    }

    /** Builds a crash clone; {@code random} null means the strict (durable-only) outcome. */
    private MemVfs cloneLocked(Random random) {
        MemVfs clone = new MemVfs();
        // Old inode to its clone, so that a file under several names stays shared in the clone.
        Map<Inode, Inode> inodes = new IdentityHashMap<>();
        for (Map.Entry<Path, Dir> entry : dirs.entrySet()) {
            Dir dir = entry.getValue();
            TreeMap<String, Inode> names = new TreeMap<>(dir.durable);
            int kept = random == null ? 0 : random.nextInt(dir.pending.size() + 1);
            for (int i = 0; i < kept; i++) {
                dir.pending.get(i).applyTo(names);
            }
            Dir copy = new Dir();
            copy.subdirs.addAll(dir.subdirs);
            for (Map.Entry<String, Inode> name : names.entrySet()) {
                Inode inode = inodes.get(name.getValue());
                if (inode == null) {
                    inode = name.getValue().crashCopy(random);
                    inodes.put(name.getValue(), inode);
                }
                copy.entries.put(name.getKey(), inode);
                copy.durable.put(name.getKey(), inode);
            }
            clone.dirs.put(entry.getKey(), copy);
        }
        return clone;
    }

    private static Path normalize(Path path) {
        return path.toAbsolutePath().normalize();
    }

    /** The directory at {@code path}, or null; a root directory always exists. */
    private Dir dirLocked(Path path) {
        Dir dir = dirs.get(path);
        if (dir == null && path.getParent() == null) {
            dir = new Dir();
            dirs.put(path, dir);
        }
        return dir;
    }

    private Dir existingDirLocked(Path path, Path original) throws IOException {
        Dir dir = dirLocked(path);
        if (dir == null) {
            if (fileLocked(path) != null) {
                throw new NotDirectoryException(original.toString());
            }
            throw new NoSuchFileException(original.toString());
        }
        return dir;
    }

    /** The file at {@code path}, or null. */
    private Inode fileLocked(Path path) {
        Path parent = path.getParent();
        if (parent == null) {
            return null;
        }
        Dir dir = dirs.get(parent);
        return dir == null ? null : dir.entries.get(path.getFileName().toString());
    }

    /** The file at {@code path}, or the exception {@code java.nio} would throw for it. */
    private Inode inodeLocked(Path path, Path original) throws IOException {
        Inode inode = fileLocked(path);
        if (inode == null) {
            if (dirLocked(path) != null) {
                throw new FileSystemException(original.toString(), null, "Is a directory");
            }
            throw new NoSuchFileException(original.toString());
        }
        return inode;
    }

    /** The directory that holds (or would hold) {@code path}; {@code java.nio} names the file, not the directory. */
    private Dir parentLocked(Path path, Path original) throws IOException {
        Path parent = path.getParent();
        if (parent == null) {
            throw new FileSystemException(original.toString(), null, "Is a directory");
        }
        Dir dir = dirLocked(parent);
        if (dir == null) {
            if (fileLocked(parent) != null) {
                throw new FileSystemException(original.toString(), null, "Not a directory");
            }
            throw new NoSuchFileException(original.toString());
        }
        return dir;
    }

    private Inode createLocked(Path path, Path original) throws IOException {
        Dir dir = parentLocked(path, original);
        String name = path.getFileName().toString();
        if (dir.entries.containsKey(name) || dir.subdirs.contains(name)) {
            throw new FileAlreadyExistsException(original.toString());
        }
        Inode inode = new Inode(new Content(), new Content());
        dir.entries.put(name, inode);
        dir.pending.add(new Link(name, inode));
        return inode;
    }

    /**
     * Forgets the writes made through {@code file} since its last force, as far as a power loss is concerned:
     * what Linux does when an fsync fails (the dirty pages of the failed writeback are marked clean, so a
     * later fsync that succeeds does not write them). The process still reads the bytes back; only the
     * durable image loses them, and a later force makes durable only what is written after this call.
     * Pending truncations are kept: they are metadata, not pages. Reaches the file through
     * {@link ForwardingVfs.File} and {@link FaultyVfs} wrappers.
     *
     * @return false if {@code file} is not a file of a {@code MemVfs}: nothing to drop
     */
    static boolean dropUnsynced(VfsFile file) {
        VfsFile at = file;
        while (true) {
            if (at instanceof MemFile mem) {
                mem.dropUnsynced();
                return true;
            } else if (at instanceof ForwardingVfs.File forwarding) {
                at = forwarding.forwardee();
            } else if (at instanceof FaultyVfs.FaultyFile faulty) {
                at = faulty.file;
            } else {
                return false;
            }
        }
    }

    /** A growable byte array; bytes past {@link #length} are always zero, so extending a file zero-fills it. */
    private static final class Content {
        private byte[] bytes;
        private int length;

        Content() {
            this(new byte[0], 0);
        }

        private Content(byte[] bytes, int length) {
            this.bytes = bytes;
            this.length = length;
        }

        void write(int position, byte[] src, int offset, int count) {
            if (count == 0) {
                return; // An empty write does not extend the file, as with pwrite.
            }
            int end = position + count;
            if (end > bytes.length) {
                // Doubling keeps a long run of appends linear; the new tail is zero, as the invariant needs.
                int capacity = (int) Math.min(MAX_FILE_SIZE, Math.max(end, 2L * bytes.length));
                bytes = Arrays.copyOf(bytes, Math.max(capacity, 64));
            }
            System.arraycopy(src, offset, bytes, position, count);
            length = Math.max(length, end);
        }

        void truncate(int size) {
            if (size < length) {
                Arrays.fill(bytes, size, length, (byte) 0);
                length = size;
            }
        }

        Content copy() {
            return new Content(Arrays.copyOf(bytes, length), length);
        }
    }

    /** A file: current content, durable content, and what happened to it since its last force. */
    private static final class Inode {
        private final Content current;
        private final Content durable;
        private final List<DataOp> pending = new ArrayList<>();

        Inode(Content current, Content durable) {
            this.current = current;
            this.durable = durable;
        }

        /** The inode a power loss might leave; see {@link MemVfs#crashClone(Random)}. */
        Inode crashCopy(Random random) {
            Content content = durable.copy();
            if (random != null && !pending.isEmpty()) {
                int kept = random.nextInt(pending.size() + 1);
                for (int i = 0; i < kept; i++) {
                    pending.get(i).applyTo(content);
                }
                // Half the time the first lost write is torn; otherwise the crash falls on an operation
                // boundary, which keeps clean cut-offs as likely as torn ones in long crash runs.
                if (kept < pending.size() && pending.get(kept) instanceof Write torn
                        && torn.data().length > 1 && random.nextBoolean()) {
                    content.write(torn.position(), torn.data(), 0, 1 + random.nextInt(torn.data().length - 1));
                }
            }
            return new Inode(content, content.copy());
        }
    }

    /** A write or truncation not yet forced. */
    private sealed interface DataOp permits Write, Truncate {
        void applyTo(Content content);
    }

    /** {@code data} written at {@code position}; {@code data} is a private copy. */
    private record Write(int position, byte[] data) implements DataOp {
        @Override
        public void applyTo(Content content) {
            content.write(position, data, 0, data.length);
        }
    }

    /** The file cut to {@code size} bytes. */
    private record Truncate(int size) implements DataOp {
        @Override
        public void applyTo(Content content) {
            content.truncate(size);
        }
    }

    /** A directory: current entries, durable entries, and namespace operations since its last sync. */
    private static final class Dir {
        private final TreeMap<String, Inode> entries = new TreeMap<>();
        private final TreeMap<String, Inode> durable = new TreeMap<>();
        /** Subdirectory names; durable from creation, so they need no pending list. */
        private final TreeSet<String> subdirs = new TreeSet<>();
        private final List<NameOp> pending = new ArrayList<>();
    }

    /** A namespace operation not yet synced. */
    private sealed interface NameOp permits Link, Unlink, Rename {
        void applyTo(Map<String, Inode> entries);
    }

    /** {@code name} made to refer to {@code inode} (creation, or the target side of a cross-directory rename). */
    private record Link(String name, Inode inode) implements NameOp {
        @Override
        public void applyTo(Map<String, Inode> entries) {
            entries.put(name, inode);
        }
    }

    /** {@code name} removed (deletion, or the source side of a cross-directory rename). */
    private record Unlink(String name) implements NameOp {
        @Override
        public void applyTo(Map<String, Inode> entries) {
            entries.remove(name);
        }
    }

    /** A rename within one directory: atomic, as in the real thing. */
    private record Rename(String from, String to, Inode inode) implements NameOp {
        @Override
        public void applyTo(Map<String, Inode> entries) {
            entries.remove(from);
            entries.put(to, inode);
        }
    }

    /** A held lock; closing releases it once, so a stale close cannot release a later holder's lock. */
    private final class MemLock implements VfsLock {
        private final Path path;
        private boolean released; // guarded by monitor

        MemLock(Path path) {
            this.path = path;
        }

        @Override
        public void close() {
            synchronized (monitor) {
                if (!released) {
                    released = true;
                    locked.remove(path);
                }
            }
        }
    }

    /** An open handle on an inode; every operation takes the file system's monitor. */
    private final class MemFile implements VfsFile {
        private final Inode inode;
        private final String name;
        private final boolean readOnly;
        private boolean closed; // guarded by monitor

        MemFile(Inode inode, String name, boolean readOnly) {
            this.inode = inode;
            this.name = name;
            this.readOnly = readOnly;
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            checkPosition(position);
            synchronized (monitor) {
                checkOpen();
                // Like FileChannel: nothing to read into is 0, even at the end.
                if (!dst.hasRemaining()) {
                    return 0;
                }
                Content content = inode.current;
                if (position >= content.length) {
                    return -1;
                }
                int count = (int) Math.min(dst.remaining(), content.length - position);
                dst.put(content.bytes, (int) position, count);
                return count;
            }
        }

        @Override
        public void write(ByteBuffer src, long position) throws IOException {
            checkPosition(position);
            synchronized (monitor) {
                checkWritable();
                writeLocked(src, position);
            }
        }

        @Override
        public long append(ByteBuffer src) throws IOException {
            synchronized (monitor) {
                checkWritable();
                long position = inode.current.length;
                writeLocked(src, position);
                return position;
            }
        }

        private void writeLocked(ByteBuffer src, long position) throws IOException {
            int count = src.remaining();
            if (count == 0) {
                return;
            }
            if (position + count > MAX_FILE_SIZE) {
                throw new IOException(name + ": MemVfs files are limited to " + MAX_FILE_SIZE + " bytes");
            }
            // The pending op needs its own copy: the current content may be overwritten before a force.
            byte[] data = new byte[count];
            src.get(data);
            inode.current.write((int) position, data, 0, count);
            inode.pending.add(new Write((int) position, data));
        }

        @Override
        public void force() throws IOException {
            synchronized (monitor) {
                checkOpen();
                for (DataOp op : inode.pending) {
                    op.applyTo(inode.durable);
                }
                inode.pending.clear();
            }
        }

        /** See {@link MemVfs#dropUnsynced(VfsFile)}: the writes since the last force never reach the disk. */
        void dropUnsynced() {
            synchronized (monitor) {
                inode.pending.removeIf(op -> op instanceof Write);
            }
        }

        @Override
        public long size() throws IOException {
            synchronized (monitor) {
                checkOpen();
                return inode.current.length;
            }
        }

        @Override
        public void truncate(long size) throws IOException {
            if (size < 0) {
                throw new IllegalArgumentException("negative size " + size);
            }
            synchronized (monitor) {
                checkWritable();
                if (size < inode.current.length) {
                    inode.current.truncate((int) size);
                    inode.pending.add(new Truncate((int) size));
                }
            }
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public void close() {
            synchronized (monitor) {
                closed = true;
            }
        }

        private void checkPosition(long position) {
            if (position < 0) {
                throw new IllegalArgumentException("negative position " + position);
            }
        }

        private void checkOpen() throws IOException {
            if (closed) {
                throw new ClosedChannelException();
            }
        }

        private void checkWritable() throws IOException {
            checkOpen();
            if (readOnly) {
                throw new IOException(name + " is open read-only");
            }
        }
    }
}
