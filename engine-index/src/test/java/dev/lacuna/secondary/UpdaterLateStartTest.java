package dev.lacuna.secondary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.AttributeValue;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.index.ChangeLog;
import dev.lacuna.index.ChangeRecord;
import dev.lacuna.index.IndexEntry;
import dev.lacuna.index.ItemChange;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.StorageIOException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * An entry a batch of log records both creates and deletes is left out of the batch only when no earlier attempt
 * can have applied any of those records. Which records may have been applied is fixed when the updater is started
 * (the log's end then: what a previous run may have applied ahead of its checkpoint) and raised by each batch this
 * updater hands over, not read when its thread gets round to following the log.
 *
 * <p>Found by CI: the helpdesk queue read ({@link QueueReadCostTest}) stepped over 584 dead entries after 1,000
 * closed tickets where it measures 0 to 54. On a loaded machine the updater's thread began following the log after
 * hundreds of tickets had been opened and closed; every record up to the log's end at that moment was taken as
 * possibly applied, so each closed ticket's entry was written as a deletion of a put the index never held: a
 * tombstone that nothing purges and every queue read steps over until compaction.
 */
class UpdaterLateStartTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void shouldWriteNoTombstoneForAnEntryCreatedAndDeletedBeforeItsThreadBegan() throws InterruptedException {
        ScriptedLog log = new ScriptedLog();
        GlobalIndexUpdater updater = new GlobalIndexUpdater(log, new IndexEntries(log));
        updater.start(null);
        try {
            // Logged after the start, before the thread reads anything: no one can have applied them.
            log.append(new ItemChange(key("A"), null, ticket("A", true)));
            log.append(new ItemChange(key("A"), ticket("A", true), ticket("A", false)));
            log.go.countDown();
            assertThat(updater.awaitApplied(2, WAIT)).isTrue();

            assertThat(log.deletions).as("deletions written to the index").isEmpty();
            assertThat(log.index).isEmpty();
        } finally {
            updater.close();
        }
    }

    /**
     * A batch whose apply failed may still have gone in (the failure came after its inserts): when the records are
     * read again after the error, an entry they created and deleted must be deleted, not left out, or the put of the
     * failed attempt would stay in the index for good.
     */
    @Test
    void shouldDeleteAnEntryAFailedAttemptMayHaveWritten() throws InterruptedException {
        ScriptedLog log = new ScriptedLog();
        log.failFirstApply = true;
        GlobalIndexUpdater updater = new GlobalIndexUpdater(log, new IndexEntries(log));
        log.go.countDown();
        updater.start(null);
        try {
            log.append(new ItemChange(key("A"), null, ticket("A", true)));
            assertThat(updater.awaitApplied(2, WAIT)).isTrue(); // the ticket is closed in the failing apply

            assertThat(log.applies.get()).as("applies (the first failed)").isGreaterThanOrEqualTo(2);
            assertThat(log.index).as("entries left in the index").isEmpty();
        } finally {
            updater.close();
        }
    }

    private static byte[] key(String id) {
        return id.getBytes(StandardCharsets.UTF_8);
    }

    private static Item ticket(String id, boolean open) {
        Item.Builder b = Item.builder().s("pk", id).s("status", open ? "OPEN" : "CLOSED");
        return open ? b.s("GSI1PK", "QUEUE#open").build() : b.build();
    }

    /** A table's log written by the test, and an index held in a set; its thread waits for {@link #go}. */
    private static final class ScriptedLog extends TicketsIndexContext {
        final CountDownLatch go = new CountDownLatch(1);
        final Set<String> index = ConcurrentHashMap.newKeySet();
        final List<String> deletions = new ArrayList<>(); // under this
        final AtomicInteger applies = new AtomicInteger();
        volatile boolean failFirstApply;
        private final List<ChangeRecord> records = new ArrayList<>(); // under this

        synchronized void append(ItemChange change) {
            records.add(new ChangeRecord(records.size() + 1, List.of(change)));
            notifyAll();
        }

        @Override
        public synchronized long lastLsn() {
            return records.size();
        }

        @Override
        public ChangeLog readChanges(long afterLsn) {
            return new ChangeLog() {
                private long next = afterLsn + 1;

                @Override
                public ChangeRecord next(Duration timeout) throws InterruptedException {
                    synchronized (ScriptedLog.this) {
                        if (next > records.size() && !timeout.isZero()) {
                            ScriptedLog.this.wait(timeout.toMillis()); // a poll: an append wakes it
                        }
                        return next > records.size() ? null : records.get((int) next++ - 1);
                    }
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public IndexEntry entry(AttributeValue pk, AttributeValue sk, Key baseKey, Item projected) {
            return new IndexEntry((pk + "|" + baseKey).getBytes(StandardCharsets.UTF_8), new byte[0]);
        }

        @Override
        public void apply(WriteBatch batch, long lsn) {
            applies.incrementAndGet();
            for (WriteBatch.Op op : batch.ops()) {
                String key = new String(op.key(), StandardCharsets.UTF_8);
                if (op.kind() == WriteBatch.KIND_PUT) {
                    index.add(key);
                } else {
                    index.remove(key);
                    synchronized (this) {
                        deletions.add(key);
                    }
                }
            }
            if (failFirstApply) {
                failFirstApply = false;
                // The writes went in and then the apply failed; meanwhile the ticket was closed.
                append(new ItemChange(key("A"), ticket("A", true), ticket("A", false)));
                throw new StorageIOException("injected: failed after its inserts", new IOException("injected"));
            }
        }

        @Override
        public void checkpoint(long lsn) {
        }


        @Override
        public Thread newThread(Runnable body, String name) {
            Thread t = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                body.run();
            }, name);
            t.setDaemon(true);
            return t;
        }
    }
}
