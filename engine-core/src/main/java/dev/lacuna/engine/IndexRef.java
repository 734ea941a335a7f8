package dev.lacuna.engine;

/**
 * Where a table's index lives, as its descriptor records it.
 *
 * @param name     the index's name
 * @param keyspace the keyspace holding its entries
 * @param creating whether its backfill had not finished when the descriptor was written
 */
record IndexRef(String name, int keyspace, boolean creating) {
}
