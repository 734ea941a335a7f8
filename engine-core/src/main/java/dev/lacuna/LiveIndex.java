package dev.lacuna;

import dev.lacuna.index.IndexMaintainer;

/**
 * An index of an open table: its spec, its keyspace, and its maintainer.
 *
 * @param spec       the index's specification
 * @param keyspace   the keyspace holding its entries
 * @param maintainer what keeps it
 */
record LiveIndex(IndexSpec spec, int keyspace, IndexMaintainer maintainer) {
    String checkpointName() {
        return checkpointName(keyspace);
    }

    static String checkpointName(int keyspace) {
        return "index-" + keyspace;
    }
}
