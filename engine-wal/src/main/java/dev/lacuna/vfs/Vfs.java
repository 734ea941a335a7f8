package dev.lacuna.vfs;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The file system as Lacuna uses it. Every component takes a {@code Vfs} instead of touching
 * {@code java.nio.file} directly, so that tests can run on {@link MemVfs} (which simulates power loss)
 * or {@link FaultyVfs} (which injects I/O errors) with the same code paths as production.
 *
 * <p>Durability contract, as on POSIX: bytes written to a file survive a power loss only after
 * {@link VfsFile#force()}; a file's directory entry (creation, rename, deletion) survives only after
 * {@link #syncDirectory(Path)} on its directory. Implementations are thread-safe.
 *
 * <p>Interrupts: a thread interrupted before or during a call may see that call fail, but every open file
 * and every lock must stay usable by other calls (embedders cancel work by interrupting threads).
 */
public interface Vfs {
    /**
     * Creates a new, empty file open for reading and writing.
     *
     * @throws java.nio.file.FileAlreadyExistsException if {@code file} exists
     */
    VfsFile create(Path file) throws IOException;

    /**
     * Opens an existing file for reading and writing.
     *
     * @throws java.nio.file.NoSuchFileException if {@code file} does not exist
     */
    VfsFile open(Path file) throws IOException;

    /**
     * Opens an existing file for reading only; writes through the handle fail.
     *
     * @throws java.nio.file.NoSuchFileException if {@code file} does not exist
     */
    VfsFile openReadOnly(Path file) throws IOException;

    /** Whether a file or directory exists at {@code path}. */
    boolean exists(Path path);

    /**
     * The size of {@code file} in bytes.
     *
     * @throws java.nio.file.NoSuchFileException if {@code file} does not exist
     */
    long size(Path file) throws IOException;

    /**
     * Atomically renames {@code from} to {@code to}, replacing {@code to} if it exists. Durable only after
     * the directories involved are synced.
     */
    void rename(Path from, Path to) throws IOException;

    /**
     * Deletes a file. Handles already open on it keep working (POSIX unlink semantics).
     *
     * @throws java.nio.file.NoSuchFileException if {@code file} does not exist
     */
    void delete(Path file) throws IOException;

    /** The names of the entries in {@code dir}, sorted; empty if it has none. */
    List<String> list(Path dir) throws IOException;

    /** Creates {@code dir} and any missing parents; does nothing if it exists. */
    void mkdirs(Path dir) throws IOException;

    /** Makes the entries of {@code dir} (creations, renames, deletions) durable, like fsync on a directory. */
    void syncDirectory(Path dir) throws IOException;

    /**
     * Takes an exclusive lock on {@code lockFile} (creating it if needed) so that a second process, or a
     * second open in this one, is refused while the lock is held.
     *
     * @throws IOException with a message naming the file if the lock is held elsewhere
     */
    VfsLock lock(Path lockFile) throws IOException;

    /**
     * Makes {@code to}, which must not exist, a file with the content of {@code from}: a hard link where the
     * file system allows, else a copy. For immutable files only (a table, a sealed log segment): a later write
     * to {@code from} may or may not show in {@code to}. As with a new file, {@code to}'s content is durable
     * only after {@link VfsFile#force()} on it and its name only after {@link #syncDirectory} on its directory.
     *
     * <p>Why it is here: a checkpoint (a backup of an open store) links the store's immutable files instead of
     * copying them, which costs no space and no time, and only the file system knows whether it can. This
     * default copies, through {@link #create} and {@link #openReadOnly}, so that every implementation has it.
     *
     * @throws java.nio.file.FileAlreadyExistsException if {@code to} exists
     * @throws java.nio.file.NoSuchFileException        if {@code from} does not exist
     */
    default void link(Path from, Path to) throws IOException {
        VfsCopy.copy(this, from, to);
    }
}
