package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvStoreTest.b;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvCursor;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * A queue kept as an index's entries are (written unlogged, at the LSN of a logged write to another keyspace) whose
 * open entries were pushed into a file once (here by an explicit flush; in IndexLagBenchmark by a dead-pair freeze
 * while purges were held back) must settle again: as each of those entries is deleted, its
 * tombstone lies over a put in a file, the reads of the head step over them, and a scan-triggered flush follows.
 * Frozen whole, that memtable pushed the queue's entries open at that moment into a file in their turn, so that
 * the next scans met as many dead entries again and froze the next memtable, without end (IndexLagBenchmark: a
 * scan-triggered flush every ~0.3 s for the rest of the run, ~500 dead entries per read of the head). A freeze for
 * dead entries now carries the live keys into the next memtable and flushes the rest. Only a memtable without logged
 * writes carries keys (see {@code Memtable#carryLive}): a queue in a logged keyspace still freezes whole.
 */
class DeadEntryFlushLoopTest {
    private static final int TRIGGER = 64;
    /** Entries open in the queue at any moment: each put is deleted {@value} writes later. */
    private static final int OPEN = 400;
    private static final int READ_EVERY = 20;
    private static final int HEAD = 10;

    private static byte[] key(int n) {
        return IndexLikeStore.key(String.format(Locale.ROOT, "q%09d", n));
    }

    private static LsmStore open(MemVfs vfs) {
        return IndexLikeStore.open(KvOptions.builder().vfs(vfs).durability(Durability.NONE).deadEntryTrigger(TRIGGER));
    }

    /** Write {@code n}: a logged write of the table, then the queue's new entry and the deletion of its head's. */
    private static void move(LsmStore kv, int n) {
        WriteBatch entries = new WriteBatch().put(key(n), b("ticket"));
        if (n >= OPEN) {
            entries.delete(key(n - OPEN));
        }
        IndexLikeStore.apply(kv, entries);
    }

    /** Reads the queue's head after write {@code n}; returns the dead entries stepped over. */
    private static long readHead(LsmStore kv, int n) {
        try (KvCursor c = kv.scan(IndexLikeStore.key("q"), IndexLikeStore.key("r"), false, null)) {
            for (int i = 0; i < HEAD; i++) {
                assertThat(c.valid()).isTrue();
                assertThat(c.key()).as("head entry %d after write %d", i, n).isEqualTo(key(n - OPEN + 1 + i));
                c.next();
            }
            return c.deadEntriesSkipped();
        }
    }

    @Test
    void shouldSettleOnceTheQueuesOpenEntriesWerePushedIntoAFile() {
        try (LsmStore kv = open(new MemVfs())) {
            int n = 0;
            for (; n < 5 * OPEN; n++) {
                move(kv, n);
            }
            kv.flush(); // the OPEN entries open now go into a file
            int writes = 40 * OPEN;
            int lateFrom = n + 30 * OPEN; // the last quarter
            long triggeredBeforeLate = 0;
            List<Long> late = new ArrayList<>();
            long allDead = 0;
            int reads = 0;
            for (int end = n + writes; n < end; n++) {
                if (n == lateFrom) {
                    triggeredBeforeLate = kv.stats().scanTriggeredFlushes();
                }
                move(kv, n);
                if (n % READ_EVERY == 0) {
                    long dead = readHead(kv, n);
                    allDead += dead;
                    reads++;
                    if (n >= lateFrom) {
                        late.add(dead);
                    }
                }
            }
            long triggered = kv.stats().scanTriggeredFlushes();
            long lateTriggered = triggered - triggeredBeforeLate;
            double lateMean = late.stream().mapToLong(Long::longValue).average().orElseThrow();
            System.out.printf(Locale.ROOT, "dead-entry flush loop: %d scan-triggered flushes (%d in the last quarter),"
                    + " dead entries per read of the head %.1f overall, %.1f in the last quarter (%d reads)%n",
                    triggered, lateTriggered, allDead / (double) reads, lateMean, late.size());
            assertThat(triggered).as("the pushed entries' tombstones do call for a scan-triggered flush")
                    .isPositive();
            assertThat(lateTriggered).as("scan-triggered flushes in the last quarter: the store has settled")
                    .isZero();
            // What the store promises: a read steps over fewer dead entries than the trigger. A few of the first
            // file's puts may stay below it, their tombstones in the memtable (2 per read or 40 here, run to run);
            // frozen whole, the memtables kept each read at ~200.
            assertThat(late).as("dead entries stepped over by each read of the head in the last quarter")
                    .allMatch(d -> d < TRIGGER);
        }
    }

    /**
     * The same for the dead-pair freeze: while a read is open no pair may be purged, so the queue's pairs pile up in
     * the memtable until deadEntryTrigger freezes it. Its flush drops the pairs and must write none of the entries
     * still open (no table exists, so their deletions are dropped too): frozen whole, the memtable wrote them all.
     */
    @Test
    void shouldFlushNoOpenEntryWhenDeadPairsFreezeTheMemtable() throws InterruptedException {
        try (LsmStore kv = open(new MemVfs())) {
            try (KvCursor held = kv.scan(b("a"), b("b"), false, null)) { // holds back every purge while open
                for (int n = 0; n < OPEN + TRIGGER; n++) {
                    move(kv, n);
                }
                assertThat(held.valid()).isFalse();
            }
            IndexLikeStore.awaitFlushes(LsmInternals.db(kv));
            assertThat(kv.stats().flushes()).as("the dead pairs froze the queue's memtable, and it was flushed").isOne();
            assertThat(kv.stats().flushBytesWritten()).as("bytes the flush wrote (its open entries, frozen whole)")
                    .isZero();
            assertThat(readHead(kv, OPEN + TRIGGER - 1)).as("dead entries at the head").isLessThan(TRIGGER);
        }
    }
}
