/**
 * The file system as Lacuna uses it: {@link Vfs}, {@link VfsFile} and {@link VfsLock}, with the POSIX
 * durability contract (bytes survive a power loss only after {@link VfsFile#force()}, directory entries only
 * after {@link Vfs#syncDirectory}). Every component takes a {@code Vfs} instead of touching
 * {@code java.nio.file}, so crash and fault tests run the production code paths (Pebble's {@code vfs} is the
 * model).
 *
 * <p>Three implementations: {@link NioVfs}, real files through {@code FileChannel}; {@link MemVfs}, in
 * memory, which tracks what is durable so that {@link MemVfs#crashClone()} gives the state a power loss would
 * leave; and {@link FaultyVfs}, which wraps another and fails chosen writes, fsyncs, directory syncs and
 * renames, or fills the disk. All are thread-safe.
 *
 * <p>Public API, exported by module {@code dev.lacuna.wal}: users choose the file system in their options.
 * The package depends on nothing else of Lacuna (failures are {@code IOException}s; callers turn them into
 * Lacuna's exceptions) and knows nothing of logs, tables or items.
 */
package dev.lacuna.vfs;
