package dev.lacuna.engine;

import dev.lacuna.IndexSpec;
import dev.lacuna.index.IndexMaintainer;

/**
 * An index of an open table: its spec, its keyspace, and its maintainer.
 *
 * @param spec       the index's specification
 * @param keyspace   the keyspace holding its entries
 * @param maintainer what keeps it
 * @param readLock   what a query or scan of the index reads a page through, so that it sees each batch of
 *                   log records' index changes whole (see {@link TableIndexContext#apply})
 * @param stalls     what the index's lag has cost the table's writers ({@link IndexBackPressure})
 */
record LiveIndex(IndexSpec spec, int keyspace, IndexMaintainer maintainer, IndexReadLock readLock,
                 IndexWriteStalls stalls) {
    String checkpointName() {
        return checkpointName(keyspace);
    }

    static String checkpointName(int keyspace) {
        return "index-" + keyspace;
    }
}
