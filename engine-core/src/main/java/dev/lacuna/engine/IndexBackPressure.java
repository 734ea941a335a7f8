package dev.lacuna.engine;

import dev.lacuna.IndexStatus;
import dev.lacuna.index.IndexMaintainer;
import dev.lacuna.lsm.LsmStore;
import dev.lacuna.storage.DatabaseClosedException;
import dev.lacuna.storage.LacunaException;
import dev.lacuna.storage.StorageIOException;
import java.time.Duration;
import java.util.Locale;

/**
 * Holds back writers to a table while one of its global indexes is too far behind the log, as the store
 * stalls writers while flushes or compactions are behind ({@code WritePath.awaitRoom}), and as DynamoDB
 * throttles writes to a table whose GSI cannot keep up. Without it an updater slower than the writers falls
 * behind without limit: every read-your-writes query waits for the backlog, and the log its checkpoint holds
 * grows without bound.
 *
 * <p>Past half the limit (in log records) each write is slowed: it waits for the updater's next batch, at most
 * a delay growing from 0 to {@link #MAX_DELAY} as the lag nears the limit. At the limit it stalls until the lag
 * is back under it, so a writer never takes the lag past the limit; concurrent writers past the check
 * together at most by their number. An index that is being backfilled, has failed, or is closing holds no
 * one. The time writers were held and why are in the index's {@link dev.lacuna.IndexDescription}.
 */
final class IndexBackPressure {
    /** The longest a write is slowed (not stalled) by an index past half its limit. */
    static final Duration MAX_DELAY = Duration.ofMillis(1);
    /** How often a stalled writer checks again (for a closing database) besides on each applied batch. */
    private static final Duration RECHECK = Duration.ofMillis(100);
    private static final System.Logger LOG = System.getLogger(IndexBackPressure.class.getName());

    private final LsmStore kv;
    private final Catalog catalog;
    private final long limit;
    private volatile boolean closing;

    /** @param limit log records an index may lag before writers stall; 0 for no limit */
    IndexBackPressure(LsmStore kv, Catalog catalog, long limit) {
        this.kv = kv;
        this.catalog = catalog;
        this.limit = limit;
    }

    /** Stalled writers give up (with {@link DatabaseClosedException}) from now on: the database is closing. */
    void close() {
        closing = true;
    }

    /** Waits while an index of {@code table} is further behind than its writers may run ahead of it. */
    void await(TableSchema table) {
        if (limit <= 0) {
            return;
        }
        for (LiveIndex index : table.live()) {
            IndexMaintainer m = index.maintainer();
            if (m.synchronous() || m.status() != IndexStatus.ACTIVE) {
                continue;
            }
            long lag = kv.lastSequence() - m.appliedLsn();
            if (lag > limit / 2) {
                hold(table.name(), index, lag);
            }
        }
    }

    private void hold(String table, LiveIndex index, long lag) {
        IndexMaintainer m = index.maintainer();
        boolean stall = lag >= limit;
        String cause = String.format(Locale.ROOT, "index %s of table %s is %,d log records behind (limit %,d): writes %s",
                index.spec().name(), table, lag, limit, stall ? "stalled" : "slowed");
        IndexWriteStalls stalls = index.stalls();
        if (stall && stalls.held() == 0) {
            LOG.log(System.Logger.Level.DEBUG, cause);
        }
        long start = System.nanoTime();
        stalls.started(cause);
        try {
            if (!stall) {
                long slowdown = limit / 2;
                long delay = MAX_DELAY.toNanos() * (lag - slowdown) / Math.max(1, limit - slowdown);
                m.awaitApplied(m.appliedLsn() + 1, Duration.ofNanos(delay));
                return;
            }
            while (true) {
                if (closing) {
                    throw new DatabaseClosedException("database (a write stalled on " + cause + ")");
                }
                long last = kv.lastSequence();
                if (last - m.appliedLsn() < limit || m.status() != IndexStatus.ACTIVE || !current(table, index)) {
                    return;
                }
                m.awaitApplied(last - limit + 1, RECHECK);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageIOException("interrupted while " + cause, e);
        } catch (DatabaseClosedException e) {
            throw e;
        } catch (LacunaException e) {
            // The index failed while the writer waited: a failed index no longer holds anyone.
        } finally {
            stalls.ended(System.nanoTime() - start);
        }
    }

    /** Whether {@code index} is still the table's (not deleted, nor the table with it). */
    private boolean current(String table, LiveIndex index) {
        try {
            return catalog.get(table).liveIndex(index.spec().name()) == index;
        } catch (RuntimeException e) {
            return false; // the table is gone: the write fails on its own
        }
    }
}
