/**
 * The foundation under {@code dev.lacuna.lsm} and {@code dev.lacuna.sstable}, as Pebble's
 * {@code internal/base}: the types both need, kept here so that the table format never imports the engine.
 * {@link InternalKey} is LevelDB's internal key (a user key, then {@code sequence << 8 | kind}, the newest
 * version first; kinds put, delete and single delete) with its comparator. {@link InternalIterator} is the
 * one iterator that block, table, level, memtable and merging iterators implement and compose; it hides
 * nothing. {@link Varints} writes unsigned LEB128 varints and length-prefixed strings (today only the
 * manifest uses it; the other formats still carry their own coders).
 *
 * <p>Internal: not exported. It depends on nothing else of Lacuna and must stay that way, so that every layer
 * can build on it; it knows nothing of memtables, files, partitions or items.
 */
package dev.lacuna.base;
