package dev.lacuna.vfs;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.Map;

/**
 * The OS file locks {@link NioVfs#lock} takes, and the one piece of process-wide state Lacuna keeps.
 *
 * <p>Why a static: a POSIX record lock ({@code fcntl}, what {@code FileChannel.tryLock} takes) belongs to the
 * process, and closing <em>any</em> descriptor of the file releases all of the process's locks on it. A second
 * lock of a held file in the same JVM (a second {@code Database.open} of the directory, with its own
 * {@code NioVfs}) must therefore be refused without closing a descriptor of the file while the first is held:
 * it used to open a channel, get {@code OverlappingFileLockException} and close the channel, which silently gave
 * the directory to any other process. The state to consult is as wide as the OS lock, the process, and no
 * instance is shared by every open of a directory, so it is a static map here, private to this class and
 * touched only under its own monitor: which files (by file key, so another path to the same file counts) this
 * class holds locked, each with the one channel it keeps on it.
 *
 * <p>A file locked in this JVM by something else (another class loader's copy of Lacuna, the embedder) gives
 * {@code OverlappingFileLockException} from the JVM's own lock table: the channel that got it is kept in the map
 * too, unlocked, since closing it would release that holder's lock; a later attempt tries again on it instead
 * of opening another, so there is at most one such channel per file. A channel whose {@code tryLock} found the
 * file free or locked by another process is closed at once: then no channel of this JVM holds a lock on it.
 *
 * <p>An interrupt cannot release a lock: closing the channel would (and an interrupt closes a
 * {@code FileChannel} during a blocking operation), but the channel is used for {@code tryLock} and
 * {@code release} only, neither of which is interruptible.
 */
final class NioLocks {
    /** Guarded by itself: file key to the channel kept on that lock file. */
    private static final Map<Object, Kept> FILES = new HashMap<>();

    private NioLocks() {
    }

    /** A channel kept open on a lock file; {@code held} while a {@link NioLock} holds the lock through it. */
    private static final class Kept {
        final FileChannel channel;
        boolean held;

        Kept(FileChannel channel) {
            this.channel = channel;
        }
    }

    static VfsLock lock(Path lockFile) throws IOException {
        synchronized (FILES) {
            createIfMissing(lockFile);
            Object key = keyOf(lockFile);
            Kept kept = FILES.get(key);
            if (kept != null && kept.held) {
                throw lockedException(lockFile); // held through this class: nothing opened, nothing to close
            }
            boolean fresh = kept == null;
            if (fresh) {
                kept = new Kept(FileChannel.open(lockFile, StandardOpenOption.READ, StandardOpenOption.WRITE));
            }
            FileLock fileLock;
            try {
                fileLock = kept.channel.tryLock();
            } catch (OverlappingFileLockException e) {
                FILES.put(key, kept); // locked elsewhere in this JVM: closing the channel would release that lock
                throw lockedException(lockFile);
            } catch (IOException | RuntimeException | Error e) {
                forget(key, kept);
                throw e;
            }
            if (fileLock == null) {
                forget(key, kept); // another process holds it, none of this one: closing releases nothing
                throw lockedException(lockFile);
            }
            kept.held = true;
            FILES.put(key, kept);
            return new NioLock(key, kept, fileLock);
        }
    }

    /**
     * Creates the lock file without leaving a descriptor of an existing file to close: {@code CREATE_NEW} fails
     * without opening one if the file exists, and a file it creates is new, so no lock of this process is on it.
     */
    private static void createIfMissing(Path lockFile) throws IOException {
        try {
            Files.createFile(lockFile);
        } catch (FileAlreadyExistsException e) {
            // the usual case: the directory was opened before
        }
    }

    /** The file's identity (device and inode on POSIX), found without opening it; its real path where none. */
    private static Object keyOf(Path lockFile) throws IOException {
        Object key = Files.readAttributes(lockFile, BasicFileAttributes.class).fileKey();
        return key != null ? key : lockFile.toRealPath();
    }

    /** Closes a channel that holds no lock and leaves no lock of this JVM to lose, and drops it from the map. */
    private static void forget(Object key, Kept kept) throws IOException {
        FILES.remove(key, kept);
        kept.channel.close();
    }

    private static IOException lockedException(Path lockFile) {
        return new IOException(lockFile + " is locked by another process or another open database");
    }

    /** A held OS lock; closing releases the lock and closes the channel, once. */
    private static final class NioLock implements VfsLock {
        private final Object key;
        private final Kept kept;
        private final FileLock fileLock;
        private boolean closed; // guarded by FILES

        NioLock(Object key, Kept kept, FileLock fileLock) {
            this.key = key;
            this.kept = kept;
            this.fileLock = fileLock;
        }

        @Override
        public void close() throws IOException {
            synchronized (FILES) {
                if (closed) {
                    return;
                }
                closed = true;
                kept.held = false;
                try {
                    fileLock.release();
                } finally {
                    forget(key, kept); // the lock this JVM held on the file was this one, now released
                }
            }
        }
    }
}
