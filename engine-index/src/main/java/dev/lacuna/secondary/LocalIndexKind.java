package dev.lacuna.secondary;

import dev.lacuna.IndexSpec;
import dev.lacuna.IndexStatus;
import dev.lacuna.index.BackfillProgress;
import dev.lacuna.Item;
import dev.lacuna.index.IndexContext;
import dev.lacuna.index.IndexEntry;
import dev.lacuna.index.IndexKind;
import dev.lacuna.index.IndexMaintainer;
import dev.lacuna.kv.KvSnapshot;
import java.time.Duration;
import java.util.List;

/**
 * Local secondary indexes: the table's partition key with another sort key, written in the same log
 * record as the item itself, so they are strongly consistent and never lag.
 */
public final class LocalIndexKind implements IndexKind {
    @Override
    public IndexSpec.Kind kind() {
        return IndexSpec.Kind.LOCAL;
    }

    @Override
    public IndexMaintainer open(IndexContext context) {
        IndexEntries entries = new IndexEntries(context);
        return new IndexMaintainer() {
            @Override
            public boolean synchronous() {
                return true;
            }

            @Override
            public List<IndexEntry> entries(Item item) {
                return entries.of(item);
            }

            @Override
            public void start(KvSnapshot backfillFrom) {
                if (backfillFrom != null) {
                    backfillFrom.close();
                    throw new IllegalStateException("a local index is created with its table, never backfilled");
                }
            }

            @Override
            public long appliedLsn() {
                return context.lastLsn();
            }

            @Override
            public boolean awaitApplied(long lsn, Duration timeout) {
                return true;
            }

            @Override
            public IndexStatus status() {
                return IndexStatus.ACTIVE;
            }

            @Override
            public BackfillProgress backfillProgress() {
                return BackfillProgress.NONE;
            }

            @Override
            public void close() {
            }
        };
    }
}
