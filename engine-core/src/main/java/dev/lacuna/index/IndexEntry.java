package dev.lacuna.index;

/**
 * One entry of an index: its key (made by {@link IndexContext#entry}) and its value (the projected item,
 * encoded).
 *
 * @param key   the entry's key in the index's keyspace
 * @param value the encoded projected item
 */
public record IndexEntry(byte[] key, byte[] value) {
}
