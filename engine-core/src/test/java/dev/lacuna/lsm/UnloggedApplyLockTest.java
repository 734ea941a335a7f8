package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvKeyspaceTest.bytes;
import static dev.lacuna.lsm.KvKeyspaceTest.key;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * An unlogged apply (an index's entries) takes the commit lock without waiting for the inserts of other writers
 * in flight ({@link CommitLock}): they go into partitions it does not write. It still waits for them when one
 * goes into its own partitions, and before it switches a memtable, which must find no insert in flight. Each
 * case holds a logged put "in flight" as {@code WritePath.commitPuts} leaves it while its writer is preempted:
 * appended and begun under the lock, its memtable taken, its insert not yet made. The last three cases came from
 * the adversarial review of that change: its own memtable's switch at its size trigger (failed with the drains
 * removed from WritePath), a write published but not yet durable ahead of one into its partition, and a log reader
 * woken by a deletion.
 */
class UnloggedApplyLockTest {
    private static final Path DIR = Path.of("/db");

    @Test
    void shouldNotWaitForAWriteInFlightToAnotherKeyspace() throws Exception {
        try (LsmStore kv = LsmStore.open(DIR, options(1 << 20))) {
            int base = kv.createKeyspace(1, bytes("base")).id();
            int index = kv.createKeyspace(1, bytes("index")).id();
            long lsn = kv.write(new WriteBatch().put(key(base, "a"), bytes("1")), Durability.NONE);
            InFlight put = new InFlight(kv, key(base, "b"), bytes("2"));
            try {
                CompletableFuture<Void> apply = CompletableFuture.runAsync(
                        () -> kv.applyUnlogged(new WriteBatch().put(key(index, "x"), bytes("a")), lsn));
                apply.get(30, TimeUnit.SECONDS); // waited for the insert in flight before: timed out here
                assertThat(kv.get(key(index, "x"))).isEqualTo(bytes("a"));
                assertThat(kv.get(key(base, "b"))).as("the write in flight, not yet published").isNull();
            } finally {
                put.finish();
            }
            assertThat(kv.get(key(base, "b"))).isEqualTo(bytes("2"));
        }
    }

    @Test
    void shouldWaitForAWriteInFlightIntoItsOwnPartition() throws Exception {
        try (LsmStore kv = LsmStore.open(DIR, options(1 << 20))) {
            int base = kv.createKeyspace(1, bytes("base")).id();
            int index = kv.createKeyspace(1, bytes("index")).id();
            long lsn = kv.write(new WriteBatch().put(key(base, "a"), bytes("1")), Durability.NONE);
            InFlight put = new InFlight(kv, key(index, "y"), bytes("logged"));
            Thread apply = new Thread(() -> kv.applyUnlogged(new WriteBatch().put(key(index, "x"), bytes("a")), lsn));
            try {
                apply.start();
                awaitWaiting(apply);
                assertThat(kv.get(key(index, "x"))).as("applied with an insert into its partition in flight").isNull();
            } finally {
                put.finish();
            }
            apply.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(apply.isAlive()).isFalse();
            assertThat(kv.get(key(index, "x"))).isEqualTo(bytes("a"));
        }
    }

    @Test
    void shouldWaitForAWriteInFlightBeforeSwitchingTheLargestMemtable() throws Exception {
        // A budget the apply's entry takes the memory over: the base keyspace's memtable, the largest, is switched.
        try (LsmStore kv = LsmStore.open(DIR, options(16 << 10))) {
            int base = kv.createKeyspace(1, bytes("base")).id();
            int index = kv.createKeyspace(1, bytes("index")).id();
            byte[] large = new byte[12 << 10];
            long lsn = kv.write(new WriteBatch().put(key(base, "a"), large), Durability.NONE);
            InFlight put = new InFlight(kv, key(base, "b"), bytes("2"));
            Tree baseTree = put.db.trees[put.tree];
            Thread apply = new Thread(
                    () -> kv.applyUnlogged(new WriteBatch().put(key(index, "x"), new byte[8 << 10]), lsn));
            boolean switchedInFlight;
            try {
                apply.start();
                awaitWaiting(apply);
                switchedInFlight = baseTree.mem() != put.memtable;
            } finally {
                put.finish();
            }
            apply.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(apply.isAlive()).isFalse();
            assertThat(switchedInFlight).as("switched the memtable a write in flight inserts into").isFalse();
            assertThat(baseTree.mem()).as("the largest memtable, switched once the insert was made")
                    .isNotSameAs(put.memtable);
            assertThat(kv.get(key(base, "b"))).isEqualTo(bytes("2"));
            assertThat(kv.get(key(base, "a"))).isEqualTo(large);
        }
    }

    /** The own-trigger switch (not the memory budget's) must also find no insert in flight. */
    @Test
    void shouldWaitForAWriteInFlightElsewhereBeforeSwitchingItsOwnMemtable() throws Exception {
        try (LsmStore kv = LsmStore.open(DIR, options(8 << 10, 1 << 30, Durability.NONE))) {
            int base = kv.createKeyspace(1, bytes("base")).id();
            int index = kv.createKeyspace(1, bytes("index")).id();
            long lsn = kv.write(new WriteBatch().put(key(base, "a"), bytes("1")), Durability.NONE);
            InFlight put = new InFlight(kv, key(base, "b"), bytes("2"), Durability.NONE);
            Tree indexTree = put.db.trees[put.db.treeOf(key(index, "x"))];
            Memtable before = indexTree.mem();
            Thread apply = new Thread(
                    () -> kv.applyUnlogged(new WriteBatch().put(key(index, "x"), new byte[9 << 10]), lsn));
            boolean switchedInFlight;
            try {
                apply.start();
                awaitWaiting(apply);
                switchedInFlight = indexTree.mem() != before;
            } finally {
                put.finish();
            }
            apply.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(apply.isAlive()).isFalse();
            assertThat(switchedInFlight).as("switched its memtable with an insert in flight").isFalse();
            assertThat(indexTree.mem()).as("switched once the insert was made").isNotSameAs(before);
            assertThat(kv.get(key(base, "b"))).isEqualTo(bytes("2"));
        }
    }

    /**
     * a243e3c's fast path: a SYNC write published by InsertOrder but not yet visible (its fsync not seen), and a
     * write in flight into the apply's partition after it: the apply must still wait for the latter.
     */
    @Test
    void shouldWaitForAWriteInFlightIntoItsPartitionBehindAnUnsyncedWrite() throws Exception {
        try (LsmStore kv = LsmStore.open(DIR, options(1 << 20, 1 << 30, Durability.NONE))) {
            int base = kv.createKeyspace(1, bytes("base")).id();
            int index = kv.createKeyspace(1, bytes("index")).id();
            long lsn = kv.write(new WriteBatch().put(key(base, "a"), bytes("1")), Durability.NONE);
            InFlight sync = new InFlight(kv, key(base, "s"), bytes("sync"), Durability.SYNC);
            InFlight into = new InFlight(kv, key(index, "y"), bytes("logged"), Durability.NONE);
            sync.finish(); // published in order, not visible until an fsync is seen
            Thread apply = new Thread(() -> kv.applyUnlogged(new WriteBatch().put(key(index, "x"), bytes("a")), lsn));
            try {
                apply.start();
                awaitWaiting(apply);
                assertThat(kv.get(key(index, "x"))).as("applied with an insert into its partition in flight").isNull();
            } finally {
                into.finish();
            }
            kv.awaitDurable(into.lsn, Durability.SYNC);
            apply.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(apply.isAlive()).isFalse();
            assertThat(kv.get(key(index, "x"))).isEqualTo(bytes("a"));
        }
    }

    /** A reader waiting for the next record is woken by a write taking the serial path (a deletion). */
    @Test
    void shouldHandAWaitingReaderADeletionPromptly() throws Exception {
        try (LsmStore kv = LsmStore.open(DIR, options(1 << 20, 1 << 30, Durability.NONE));
             KvLogReader log = kv.logReader(1)) {
            int base = kv.createKeyspace(1, bytes("base")).id();
            CompletableFuture<KvLogReader.Batch> read = new CompletableFuture<>();
            Thread reader = new Thread(() -> {
                try {
                    read.complete(log.next(Duration.ofMinutes(10)));
                } catch (Throwable e) {
                    read.completeExceptionally(e);
                }
            });
            reader.start();
            awaitTimedWaiting(reader);
            long lsn = kv.write(new WriteBatch().delete(key(base, "gone")), Durability.NONE);
            KvLogReader.Batch b = read.get(60, TimeUnit.SECONDS); // slept out its 10 minutes if not woken
            assertThat(b.lsn()).isEqualTo(lsn);
        }
    }

    /** A logged put held between its append and its insert, as a preempted writer of puts leaves it. */
    private static final class InFlight {
        final Db db;
        final int tree;
        final Memtable memtable;
        private final InsertOrder.Ticket ticket = new InsertOrder.Ticket();
        private final long lsn;
        private final byte[] key;
        private final byte[] value;

        InFlight(LsmStore kv, byte[] key, byte[] value) {
            this(kv, key, value, Durability.NONE);
        }

        InFlight(LsmStore kv, byte[] key, byte[] value, Durability durability) {
            this.db = LsmInternals.db(kv);
            this.key = key;
            this.value = value;
            this.tree = db.treeOf(key);
            byte[] record = BatchCodec.encode(new WriteBatch().put(key, value).ops(), 0, 0);
            db.commitLock.lockForAppend();
            try {
                memtable = db.trees[tree].mem();
                lsn = db.wal.appendNoWait(record, 0, record.length, durability);
                db.inserts.begin(ticket, lsn, durability instanceof Durability.Sync, new int[] {tree});
            } finally {
                db.commitLock.unlock();
            }
        }

        /** Makes the insert into the memtable taken at the append, and publishes the write. */
        void finish() {
            try {
                memtable.add(key, lsn, WriteBatch.KIND_PUT, value);
                db.memoryUsed.addAndGet(Memtable.entryBytes(key, value));
            } finally {
                db.inserts.finish(ticket); // published even if the insert failed, as commitPuts does
            }
        }
    }

    private static KvOptions options(long memoryBudget) {
        return options(1 << 20, memoryBudget, Durability.NONE);
    }

    private static KvOptions options(long memtableBytes, long memoryBudget, Durability durability) {
        return KvOptions.builder().vfs(new MemVfs()).keyspaceRouter(dev.lacuna.kv.KeyspaceRouter.FIRST_FOUR_BYTES)
                .memtableBytes(memtableBytes).memoryBudget(memoryBudget).durability(durability).build();
    }

    /** Waits (up to 30 s) until {@code thread} waits: for the inserts in flight, here. */
    private static void awaitWaiting(Thread thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TERMINATED) {
            assertThat(System.nanoTime()).as("the apply never waited").isLessThan(deadline);
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    private static void awaitTimedWaiting(Thread thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (thread.getState() != Thread.State.TIMED_WAITING && thread.getState() != Thread.State.TERMINATED) {
            assertThat(System.nanoTime()).as("never waited").isLessThan(deadline);
            Thread.onSpinWait();
            Thread.yield();
        }
    }
}
