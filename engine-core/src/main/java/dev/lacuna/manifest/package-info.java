/**
 * The manifest: the durable log of the LSM engine's state. {@link Manifest} appends {@link VersionEdit}s to
 * {@code MANIFEST-NNNNNN}, fsyncing each before the engine acts on it, and starts a new manifest (a snapshot
 * edit first) that becomes current through {@code CURRENT}, replaced by write-temp → fsync → rename →
 * fsync(directory). An edit records files added to and removed from each tree and level ({@link FileMeta}),
 * counters (next file number, last sequence, log start), each tree's flushed LSN, log consumers' checkpoints,
 * since format version 2, keyspaces, and since version 3, how far the log was durable. The byte layout is in
 * FORMAT.md beside these classes.
 *
 * <p>Internal: not exported; only {@code dev.lacuna.lsm} uses it. It encodes, frames and checksums edits and
 * no more: applying them, checking them against the state and deciding which files are obsolete belong to the
 * engine's {@code VersionSet}. It must not know SSTables or the engine; it depends only on
 * {@code dev.lacuna.vfs}, {@code dev.lacuna.storage} and the varints of {@code dev.lacuna.base}.
 */
package dev.lacuna.manifest;
