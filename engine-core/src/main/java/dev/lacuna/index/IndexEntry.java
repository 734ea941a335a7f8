package dev.lacuna.index;

/**
 * One entry of an index keyspace: its key (in the index's keyspace, see
 * {@link dev.lacuna.item.KeyEncoding#encodeIndexKey}) and its value (the projected item, in the item codec).
 */
public record IndexEntry(byte[] key, byte[] value) {
}
