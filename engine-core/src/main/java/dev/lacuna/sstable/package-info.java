/**
 * The SSTable: an immutable, sorted file of internal keys and values, LevelDB's table format with a CRC32C
 * and optional LZ4 compression per block. {@link SstableWriter} writes one from sorted entries
 * (prefix-compressed {@link BlockBuilder} blocks with restart points, a {@link BloomFilter} over whole user
 * keys and key prefixes, a properties block, an index block and a footer); {@link SstableReader} opens and
 * verifies one and serves point lookups and {@link SstableIterator}s (index block → data block, LevelDB's
 * two-level iterator), with verified, decompressed data blocks shared through the {@link BlockCache}.
 * {@link SstableProperties} is what a table records about itself so that compactions can be picked without
 * reading data. The byte layout is in {@link SstableFormat} and FORMAT.md beside it.
 *
 * <p>Internal: not exported. It builds on {@code dev.lacuna.base} (keys, iterator), takes its settings as
 * {@code SstableOptions} and {@code KeyPrefix} from {@code dev.lacuna.kv}, reads and writes a
 * {@code VfsFile}, and never imports {@code dev.lacuna.lsm}: file numbers, levels, reference counts and the
 * deletion of tables belong to the engine.
 */
package dev.lacuna.sstable;
