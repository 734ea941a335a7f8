package dev.lacuna;

import dev.lacuna.kv.KvStats;
import java.util.List;

/**
 * A snapshot of a database's shape and counters, as {@link Database#stats()} takes it: what an operator reads
 * ({@code lacuna stats}). Each part is read on its own, so the parts may be a moment apart.
 *
 * @param storage  the storage engine's files per level, bytes, deletions in tables (tombstones), memtables,
 *                 flushes, compactions, cache and log counters
 * @param logBytes bytes the write-ahead log takes on disk
 * @param tables   every table's description, with each index's status and lag
 */
public record DatabaseStats(KvStats storage, long logBytes, List<TableDescription> tables) {
    /** Copies the list. */
    public DatabaseStats {
        tables = List.copyOf(tables);
    }

    /** The most log records any index has still to apply; 0 if every index is caught up (or there is none). */
    public long maxIndexLagLsn() {
        long lag = 0;
        for (TableDescription t : tables) {
            for (IndexDescription i : t.indexes()) {
                lag = Math.max(lag, i.lagLsn());
            }
        }
        return lag;
    }

    /** How long writers were held, in total since the open, because an index was too far behind. */
    public long indexWriteStallMillis() {
        long millis = 0;
        for (TableDescription t : tables) {
            for (IndexDescription i : t.indexes()) {
                millis += i.writeStallMillis();
            }
        }
        return millis;
    }

    /** Writers held now because an index is too far behind. */
    public int writersHeldByIndexes() {
        int held = 0;
        for (TableDescription t : tables) {
            for (IndexDescription i : t.indexes()) {
                held += i.writersHeld();
            }
        }
        return held;
    }
}
