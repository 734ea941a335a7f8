package dev.lacuna.vfs.testing;

import dev.lacuna.vfs.FaultyVfs;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A file system ({@link MemVfs}, for power loss; or any, for the breakages that act in the process) broken on
 * purpose, so that a crash suite can show it fails on an engine that loses data
 * (issue 14): each {@link Breakage} makes the engine behave as one with a durability bug would, through the
 * injected file system only. Take crash images with {@link #crashClone(Random)}, not from the
 * {@code MemVfs}: several breakages act at the crash (they undo, cut or move what a force made durable).
 *
 * <p>For crash tests of code built on Lacuna, to show that they are not vacuous: a crash test that passes on the
 * honest file system ({@link #honest}) must fail on each breakage that concerns it ({@link BreakageRuns}). One copy
 * for every crash test: Lacuna's engine suites and the product's {@code lacuna crashtest} use it. Not in
 * {@code dev.lacuna.vfs}: a database has no use for a file system that lies on purpose, and the breakages know the
 * engine's file names (its log segments end in {@code .wal}).
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
        LAST_SYNCED_WRITE_LOST("the last fsynced write is lost", true),
        /** Writes to log segments ({@code *.wal}) fail after a number of them: the put path throws. */
        LOG_WRITES_FAIL("log writes fail after N"),
        /**
         * A force makes durable every write since the file's last force but the oldest, as a disk cache that
         * reorders writes and acknowledges the flush before the first one reached the medium: a lost write in
         * the middle of the file, with later bytes intact. Only forces covering two writes or more lose one (a
         * single lost write is {@link #FORCE_DOES_NOTHING}); the newest lost write of each file is undone at
         * the crash, unless a later write overwrote its bytes. An engine that relies on an acknowledged fsync
         * loses the records in the hole, or finds a checksum error before later valid ones.
         */
        FORCE_LOSES_OLDEST_WRITE("a force loses the oldest of its writes", true),
        /**
         * A force makes the file's bytes durable but not its new length, as an {@code fdatasync} that skips the
         * inode's size update it needs: the size reaches the disk with the file's next force only. At the crash
         * every file is cut to the length it had at its previous force (or when first opened): what the newest
         * force of each file appended is gone, and a file forced once is empty.
         */
        FORCE_LOSES_NEW_LENGTH("a force does not persist the file's new length", true),
        /**
         * A rename over an existing file is not atomic: the file system unlinks the target, then links the
         * source under its name, and the crash falls between the two (the newest such rename is shown half
         * done at the crash: the target gone, the new file still under its old name). The engine replaces
         * {@code CURRENT} this way; the log never renames.
         */
        RENAME_NOT_ATOMIC("a replacing rename is not atomic", true),
        /**
         * One force in {@value BrokenVfs#SWALLOWED_EVERY} fails its writeback and the error is lost ("fsyncgate"
         * where the error is reported to no one): the dirty pages are marked clean, so the writes since the file's last
         * force never reach the disk, and the force returns as if it succeeded. Unlike
         * {@link #FORCE_DOES_NOTHING}, the loss is intermittent and a later successful force does not repair it.
         */
        FORCE_ERROR_SWALLOWED("one force in " + SWALLOWED_EVERY + " drops its writes and reports success", true),
        /**
         * The newest write a force made durable lands one sector ({@value BrokenVfs#SECTOR} bytes) away from its
         * offset (before it if it can): a misdirected write, known from disk firmware and controller bugs. Its own
         * place keeps the old bytes, and the bytes it lands on are overwritten; only checksums notice.
         */
        MISDIRECTED_WRITE("the last fsynced write lands a sector away", true),
        /**
         * The newest writes to a log segment ({@code *.wal}; eight of them) stay in the process
         * until later writes push them out (or a read of the file, or its close), and {@link VfsFile#force()} does
         * not hand them over: the newest {@code SYNC} writes are acknowledged while their bytes are still in the
         * process's memory, as with a user-space buffer flushed too late. The one breakage a {@code kill -9} shows
         * (the kernel keeps what a killed process had written, so a force that does nothing survives a kill);
         * a power loss shows it too.
         */
        LOG_WRITES_HELD("log writes held in the process past their fsync", false);

        private final String description;
        private final boolean atTheCrash;

        Breakage(String description) {
            this(description, false);
        }

        Breakage(String description, boolean atTheCrash) {
            this.description = description;
            this.atTheCrash = atTheCrash;
        }

        /**
         * Whether it acts on a power loss's crash image ({@link BrokenVfs#crashClone}), and so needs a
         * {@link MemVfs} underneath; the others act in the process alone and break any file system (a real disk
         * under a {@code kill -9} test, say).
         */
        public boolean atTheCrash() {
            return atTheCrash;
        }

        @Override
        public String toString() {
            return description;
        }
    }

    /** {@link Breakage#FORCE_ERROR_SWALLOWED}: one force in this many loses its writes. */
    public static final int SWALLOWED_EVERY = 4;
    /** {@link Breakage#MISDIRECTED_WRITE}: how far a misdirected write lands from its offset. */
    public static final int SECTOR = 512;

    /** The file system underneath if it is in memory (power loss), else null. */
    private final MemVfs base;
    private final Breakage breakage;
    private final int failAfter;
    /** The fault injector under {@link Breakage#FORCE_ERROR_SWALLOWED}, else null. */
    private final FaultyVfs faulty;
    private final AtomicInteger logWrites = new AtomicInteger();
    /** A file's current name, shared by its handles and followed through renames. */
    private final Map<Path, Name> names = new ConcurrentHashMap<>();
    /** The newest write made durable by a force (LAST_SYNCED_WRITE_LOST, MISDIRECTED_WRITE), or null. */
    private volatile Undo lastSynced;
    /** Per file, the newest write a force left out (FORCE_LOSES_OLDEST_WRITE). */
    private final Map<Name, Undo> skipped = new ConcurrentHashMap<>();
    /** Per file, its length at its previous force and at its latest (FORCE_LOSES_NEW_LENGTH). */
    private final Map<Name, long[]> lengths = new ConcurrentHashMap<>();
    /** The newest rename that replaced a file (RENAME_NOT_ATOMIC): {source, target}, or null. */
    private volatile Path[] lastReplace;

    /**
     * {@code base} broken by {@code breakage}; {@code failAfter} is N for {@link Breakage#LOG_WRITES_FAIL}. A
     * breakage that acts {@link Breakage#atTheCrash() at the crash} needs a {@link MemVfs}; the others take any file
     * system (a {@link #crashClone} needs a {@code MemVfs} whatever the breakage).
     *
     * @throws IllegalArgumentException if the breakage acts at the crash and {@code base} is no {@code MemVfs}
     */
    public BrokenVfs(Vfs base, Breakage breakage, int failAfter) {
        this(base, breakage, failAfter, breakage == Breakage.FORCE_ERROR_SWALLOWED ? new FaultyVfs(base) : null);
    }

    private BrokenVfs(Vfs base, Breakage breakage, int failAfter, FaultyVfs faulty) {
        super(faulty == null ? base : faulty);
        if (breakage.atTheCrash() && !(base instanceof MemVfs)) {
            throw new IllegalArgumentException("'" + breakage + "' acts at a power loss's crash image and needs a"
                    + " MemVfs underneath, not " + base.getClass().getSimpleName());
        }
        this.base = base instanceof MemVfs m ? m : null;
        this.breakage = breakage;
        this.failAfter = failAfter;
        this.faulty = faulty;
        if (faulty != null) {
            faulty.failedForceDropsWrites(true);
            faulty.failNth(FaultyVfs.Op.FORCE, SWALLOWED_EVERY);
        }
    }

    /** The honest file system {@code base}, wrapped so that suites take every crash image the same way. */
    public static BrokenVfs honest(MemVfs base) {
        return new BrokenVfs(base, Breakage.NONE, 0);
    }

    /**
     * The file system underneath, in memory.
     *
     * @throws IllegalStateException if it is not a {@link MemVfs}
     */
    public MemVfs base() {
        if (base == null) {
            throw new IllegalStateException("not in memory: no crash image to take");
        }
        return base;
    }

    /**
     * The file system a power loss now would leave: {@link MemVfs#crashClone()} if {@code random} is null,
     * else {@link MemVfs#crashClone(Random)}; under {@link Breakage#LAST_SYNCED_WRITE_LOST} the newest
     * durable write is then undone in the clone.
     */
    public MemVfs crashClone(Random random) throws IOException {
        Undo undo = lastSynced;
        List<Undo> holes = List.copyOf(skipped.values());
        Map<Name, long[]> sizes = Map.copyOf(lengths);
        Path[] replace = lastReplace;
        MemVfs clone = random == null ? base().crashClone() : base().crashClone(random);
        if (undo != null) {
            undo.applyTo(clone);
            if (breakage == Breakage.MISDIRECTED_WRITE) {
                undo.misdirect(clone);
            }
        }
        for (Undo hole : holes) {
            hole.applyTo(clone);
        }
        for (Map.Entry<Name, long[]> e : sizes.entrySet()) {
            cut(clone, e.getKey().path, e.getValue()[0]);
        }
        if (replace != null && clone.exists(replace[1])) {
            // Half done: the target unlinked, the source not yet linked under its name.
            if (clone.exists(replace[0])) {
                clone.delete(replace[1]);
            } else {
                clone.rename(replace[1], replace[0]);
            }
            clone.syncDirectory(replace[1].getParent());
        }
        return clone;
    }

    /** Cuts {@code path} in {@code clone} to {@code length} bytes if it is longer (FORCE_LOSES_NEW_LENGTH). */
    private static void cut(MemVfs clone, Path path, long length) throws IOException {
        if (!clone.exists(path)) {
            return;
        }
        try (VfsFile file = clone.open(path)) {
            if (file.size() > length) {
                file.truncate(length);
                file.force();
            }
        }
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
        return broken(super.create(file), file);
    }

    @Override
    public VfsFile open(Path file) throws IOException {
        return broken(super.open(file), file);
    }

    private VfsFile broken(VfsFile file, Path path) throws IOException {
        if (breakage == Breakage.LOG_WRITES_HELD && isLog(path)) {
            return new HeldWrites(file);
        }
        return new BrokenFile(file, name(path));
    }

    private static boolean isLog(Path path) {
        return path.getFileName() != null && path.getFileName().toString().endsWith(".wal");
    }

    @Override
    public void rename(Path from, Path to) throws IOException {
        boolean replaces = breakage == Breakage.RENAME_NOT_ATOMIC && super.exists(to);
        super.rename(from, to);
        Path source = from.toAbsolutePath().normalize();
        Path target = to.toAbsolutePath().normalize();
        if (replaces) {
            lastReplace = new Path[] {source, target};
        }
        Name name = names.remove(source);
        if (name != null) {
            name.path = target;
            forget(names.put(target, name));
        } else {
            forget(names.remove(target));
        }
    }

    @Override
    public void delete(Path file) throws IOException {
        super.delete(file);
        forget(names.remove(file.toAbsolutePath().normalize()));
    }

    /** A file gone from the namespace: nothing of it to undo or cut at the crash, whatever name comes next. */
    private void forget(Name gone) {
        if (gone != null) {
            skipped.remove(gone);
            lengths.remove(gone);
        }
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

    /**
     * How to undo one write in a crash image: the bytes it overwrote and the size the file had before it; and
     * the bytes it wrote, to misdirect them.
     */
    private record Undo(Name name, long position, byte[] before, long sizeBefore, byte[] data) {
        boolean overlaps(Name other, long from, int length) {
            return other == name && from < position + before.length && position < from + length;
        }

        /** Writes the bytes one sector off their place (MISDIRECTED_WRITE); call after {@link #applyTo}. */
        void misdirect(MemVfs clone) throws IOException {
            if (!clone.exists(name.path)) {
                return;
            }
            try (VfsFile file = clone.open(name.path)) {
                long at = position >= SECTOR ? position - SECTOR : position + SECTOR;
                file.write(ByteBuffer.wrap(data), at);
                file.force();
            }
        }

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
        /** The oldest write through this handle since its last force (FORCE_LOSES_OLDEST_WRITE), or null. */
        private Undo oldest;
        /** Writes through this handle since its last force (FORCE_LOSES_OLDEST_WRITE). */
        private int writes;

        BrokenFile(VfsFile file, Name name) throws IOException {
            super(file);
            this.file = file;
            this.name = name;
            if (breakage == Breakage.FORCE_LOSES_NEW_LENGTH) {
                long size = file.size();
                lengths.putIfAbsent(name, new long[] {size, size});
            }
        }

        @Override
        public void write(ByteBuffer src, long position) throws IOException {
            failIfLog();
            remember(position, src);
            super.write(src, position);
        }

        @Override
        public long append(ByteBuffer src) throws IOException {
            failIfLog();
            synchronized (this) {
                remember(file.size(), src);
                return super.append(src);
            }
        }

        @Override
        public void force() throws IOException {
            if (breakage == Breakage.FORCE_DOES_NOTHING) {
                return;
            }
            try {
                super.force();
            } catch (IOException e) {
                if (faulty == null || !String.valueOf(e.getMessage()).startsWith("injected failure")) {
                    throw e;
                }
                // The writeback failed and dropped the writes (FaultyVfs did); the error reaches no one.
                faulty.failNth(FaultyVfs.Op.FORCE, SWALLOWED_EVERY);
                return;
            }
            synchronized (this) {
                if (pending != null) {
                    lastSynced = pending;
                    pending = null;
                }
                if (writes >= 2) {
                    skipped.put(name, oldest);
                }
                oldest = null;
                writes = 0;
                if (breakage == Breakage.FORCE_LOSES_NEW_LENGTH) {
                    long size = file.size();
                    lengths.compute(name, (n, was) -> new long[] {was == null ? size : was[1], size});
                }
            }
        }

        private void failIfLog() throws IOException {
            if (breakage == Breakage.LOG_WRITES_FAIL && isLog(name.path)
                    && logWrites.incrementAndGet() > failAfter) {
                throw new IOException("injected: log write " + logWrites.get() + " to " + name.path
                        + " fails (" + breakage + ", N = " + failAfter + ")");
            }
        }

        /** Before {@code src} is written at {@code position}: what undoing it needs, for the breakages that do. */
        private synchronized void remember(long position, ByteBuffer src) throws IOException {
            int length = src.remaining();
            boolean last = breakage == Breakage.LAST_SYNCED_WRITE_LOST || breakage == Breakage.MISDIRECTED_WRITE;
            boolean reorder = breakage == Breakage.FORCE_LOSES_OLDEST_WRITE;
            if (!(last || reorder) || length == 0) {
                return;
            }
            if (reorder) {
                Undo hole = skipped.get(name);
                if (hole != null && hole.overlaps(name, position, length)) {
                    skipped.remove(name, hole); // rewritten since: the newer bytes are what a crash keeps
                }
                if (writes++ > 0) {
                    return; // only the oldest write since the force can be left out
                }
            }
            long size = file.size();
            byte[] before = new byte[length];
            if (position < size) {
                int n = (int) Math.min(length, size - position);
                file.readFully(position, before, 0, n);
            }
            byte[] data = null;
            if (breakage == Breakage.MISDIRECTED_WRITE) {
                data = new byte[length];
                src.duplicate().get(data);
            }
            Undo undo = new Undo(name, position, before, size, data);
            if (reorder) {
                oldest = undo;
            } else {
                pending = undo;
            }
        }
    }
}
