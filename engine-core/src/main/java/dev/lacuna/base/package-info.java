/**
 * The foundation under {@code dev.lacuna.lsm} and {@code dev.lacuna.sstable}, as Pebble's
 * {@code internal/base}: the types both need, kept here so that the table format never imports the engine.
 * {@link InternalKey} is LevelDB's internal key (a user key, then {@code sequence << 8 | kind}, the newest
 * version first; kinds put, delete and single delete) with its comparator. {@link InternalIterator} is the
 * one iterator that block, table, level, memtable and merging iterators implement and compose; it hides
 * nothing. {@link Varints} encodes and decodes the unsigned LEB128 varints of every format, in one place
 * (LevelDB's {@code util/coding.h}); {@link ByteBuilder} appends them, with bytes and length-prefixed byte
 * strings, and {@link BoundedReader} reads them back, every read checked against the end, each format
 * saying how a malformed field is reported.
 *
 * <p>Internal: not exported. It depends on nothing else of Lacuna and must stay that way, so that every layer
 * can build on it; it knows nothing of memtables, files, partitions or items.
 */
package dev.lacuna.base;
