package dev.lacuna.secondary;

import dev.lacuna.IndexSpec;
import dev.lacuna.index.IndexContext;
import dev.lacuna.index.IndexKind;
import dev.lacuna.index.IndexMaintainer;

/**
 * Global secondary indexes: their own partition key, their own partitioned keyspace, kept from the log by
 * one background updater per index ({@link GlobalIndexUpdater}), eventually consistent.
 */
public final class GlobalIndexKind implements IndexKind {
    @Override
    public IndexSpec.Kind kind() {
        return IndexSpec.Kind.GLOBAL;
    }

    @Override
    public IndexMaintainer open(IndexContext context) {
        return new GlobalIndexUpdater(context, new IndexEntries(context));
    }
}
