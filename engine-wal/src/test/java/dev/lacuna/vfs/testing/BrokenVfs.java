package dev.lacuna.vfs.testing;

import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link MemVfs} broken on purpose, so that a crash suite can show it fails on an engine that loses data
 * (issue 14): each {@link Breakage} makes the engine behave as one with a durability bug would, through the
 * injected file system only. Take crash images with {@link #crashClone(Random)}, not from the
 * {@code MemVfs}: one breakage acts at the crash.
 *
 * <p>One copy for every crash suite: engine-wal's test tree holds it, in a package of its own that no module
 * owns, and engine-wal builds a test-jar that engine-core's and engine-index's tests depend on (tests run on the
 * class path; a package of a named module, such as {@code dev.lacuna.wal}, would be hidden there). Not in
 * {@code dev.lacuna.vfs}: users have no use for a file system that lies on purpose, and the breakages know the
 * engine's file names.
 */
public final class BrokenVfs extends ForwardingVfs {
    /** The breakages; {@link #NONE} is the honest file system, for the suites' ordinary runs. */
    public enum Breakage {
        NONE("none"),
        /** {@link VfsFile#force()} returns at once: nothing written reaches the disk until the crash's random part. */
        FORCE_DOES_NOTHING("force does nothing"),
        /** {@code syncDirectory} returns at once: files created, renamed or deleted may be undone by a crash. */
        DIRECTORY_SYNC_DOES_NOTHING("directory sync does nothing"),
        /**
         * The newest write that a force made durable is undone at the crash, as by a disk cache that
         * acknowledges a flush and loses the last write. (An unforced write is lost by every crash image
         * already: {@link MemVfs#crashClone()} drops all of them, {@link MemVfs#crashClone(Random)} a random
         * suffix of each file's; losing one is no breakage.)
         */
        LAST_SYNCED_WRITE_LOST("the last fsynced write is lost"),
        /** Writes to log segments ({@code *.wal}) fail after a number of them: the put path throws. */
        LOG_WRITES_FAIL("log writes fail after N");

        private final String description;

        Breakage(String description) {
            this.description = description;
        }

        @Override
        public String toString() {
            return description;
        }
    }

    private final MemVfs base;
    private final Breakage breakage;
    private final int failAfter;
    private final AtomicInteger logWrites = new AtomicInteger();
    /** A file's current name, shared by its handles and followed through renames. */
    private final Map<Path, Name> names = new ConcurrentHashMap<>();
    /** The newest write made durable by a force (LAST_SYNCED_WRITE_LOST), or null. */
    private volatile Undo lastSynced;

    /** {@code base} broken by {@code breakage}; {@code failAfter} is N for {@link Breakage#LOG_WRITES_FAIL}. */
    public BrokenVfs(MemVfs base, Breakage breakage, int failAfter) {
        super(base);
        this.base = base;
        this.breakage = breakage;
        this.failAfter = failAfter;
    }

    /** The honest file system {@code base}, wrapped so that suites take every crash image the same way. */
    public static BrokenVfs honest(MemVfs base) {
        return new BrokenVfs(base, Breakage.NONE, 0);
    }

    /** The file system underneath. */
    public MemVfs base() {
        return base;
    }

    /**
     * The file system a power loss now would leave: {@link MemVfs#crashClone()} if {@code random} is null,
     * else {@link MemVfs#crashClone(Random)}; under {@link Breakage#LAST_SYNCED_WRITE_LOST} the newest
     * durable write is then undone in the clone.
     */
    public MemVfs crashClone(Random random) throws IOException {
        Undo undo = lastSynced;
        MemVfs clone = random == null ? base.crashClone() : base.crashClone(random);
        if (undo != null) {
            undo.applyTo(clone);
        }
        return clone;
    }

    /** A failure in one line: its class and first line, and its root cause's, to say what caught a breakage. */
    public static String describe(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = String.valueOf(t.getMessage()).lines().findFirst().orElse("");
        String cause = root == t ? "" : " <- " + root.getClass().getSimpleName() + ": "
                + String.valueOf(root.getMessage()).lines().findFirst().orElse("");
        String line = t.getClass().getSimpleName() + ": " + message + cause;
        return line.length() > 240 ? line.substring(0, 240) + "…" : line;
    }

    @Override
    public VfsFile create(Path file) throws IOException {
        return new BrokenFile(super.create(file), name(file));
    }

    @Override
    public VfsFile open(Path file) throws IOException {
        return new BrokenFile(super.open(file), name(file));
    }

    @Override
    public void rename(Path from, Path to) throws IOException {
        super.rename(from, to);
        Path source = from.toAbsolutePath().normalize();
        Path target = to.toAbsolutePath().normalize();
        Name name = names.remove(source);
        if (name != null) {
            name.path = target;
            names.put(target, name);
        }
    }

    @Override
    public void delete(Path file) throws IOException {
        super.delete(file);
        names.remove(file.toAbsolutePath().normalize());
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        if (breakage != Breakage.DIRECTORY_SYNC_DOES_NOTHING) {
            super.syncDirectory(dir);
        }
    }

    private Name name(Path file) {
        Path path = file.toAbsolutePath().normalize();
        return names.computeIfAbsent(path, Name::new);
    }

    /** A file's current path; handles opened under an old name follow its renames. */
    private static final class Name {
        volatile Path path;

        Name(Path path) {
            this.path = path;
        }
    }

    /** How to undo one write in a crash image: the bytes it overwrote and the size the file had before it. */
    private record Undo(Name name, long position, byte[] before, long sizeBefore) {
        void applyTo(MemVfs clone) throws IOException {
            VfsFile file;
            try {
                file = clone.open(name.path);
            } catch (NoSuchFileException gone) {
                return; // the file's name did not survive the crash: nothing of it to undo
            }
            try (file) {
                long size = file.size();
                long end = position + before.length;
                if (position < size) {
                    // The old bytes where the file had them, zeros past its old end (a later write may be kept there).
                    file.write(ByteBuffer.wrap(before, 0, (int) (Math.min(end, size) - position)), position);
                }
                if (end > sizeBefore && size <= end) {
                    file.truncate(sizeBefore); // the write made the file longer, and nothing later lies beyond it
                }
                file.force();
            }
        }
    }

    /** A handle that applies the breakage. */
    private final class BrokenFile extends ForwardingVfs.File {
        private final VfsFile file;
        private final Name name;
        /** The newest write through this handle since its last force (LAST_SYNCED_WRITE_LOST), or null. */
        private Undo pending;

        BrokenFile(VfsFile file, Name name) {
            super(file);
            this.file = file;
            this.name = name;
        }

        @Override
        public void write(ByteBuffer src, long position) throws IOException {
            failIfLog();
            remember(position, src.remaining());
            super.write(src, position);
        }

        @Override
        public long append(ByteBuffer src) throws IOException {
            failIfLog();
            synchronized (this) {
                remember(file.size(), src.remaining());
                return super.append(src);
            }
        }

        @Override
        public void force() throws IOException {
            if (breakage == Breakage.FORCE_DOES_NOTHING) {
                return;
            }
            super.force();
            synchronized (this) {
                if (pending != null) {
                    lastSynced = pending;
                    pending = null;
                }
            }
        }

        private void failIfLog() throws IOException {
            if (breakage == Breakage.LOG_WRITES_FAIL && name.path.getFileName().toString().endsWith(".wal")
                    && logWrites.incrementAndGet() > failAfter) {
                throw new IOException("injected: log write " + logWrites.get() + " to " + name.path
                        + " fails (" + breakage + ", N = " + failAfter + ")");
            }
        }

        private synchronized void remember(long position, int length) throws IOException {
            if (breakage != Breakage.LAST_SYNCED_WRITE_LOST || length == 0) {
                return;
            }
            long size = file.size();
            byte[] before = new byte[length];
            if (position < size) {
                int n = (int) Math.min(length, size - position);
                file.readFully(position, before, 0, n);
            }
            pending = new Undo(name, position, before, size);
        }
    }
}
