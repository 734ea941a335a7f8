package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvKeyspaceTest.bytes;
import static dev.lacuna.lsm.KvKeyspaceTest.key;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KeyspaceRouter;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * An unlogged apply (a global index's entries) takes the commit lock without waiting for other writers' inserts:
 * cases {@link UnloggedApplyLockTest} and {@link LogReaderWakeUpTest} leave out (from the adversarial review of
 * that change): it still finds no insert in flight before it switches its own memtable at its size trigger (failed
 * with the drains removed from WritePath), and behind a SYNC write published but not yet durable, and a log reader
 * is woken by a deletion too.
 */
class UnloggedApplyOwnSwitchTest {
    private static final Path DIR = Path.of("/db");

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

    /** A logged put held between its append and its insert (as UnloggedApplyLockTest's). */
    private static final class InFlight {
        final Db db;
        final long lsn;
        private final Memtable memtable;
        private final InsertOrder.Ticket ticket = new InsertOrder.Ticket();
        private final byte[] key;
        private final byte[] value;

        InFlight(LsmStore kv, byte[] key, byte[] value, Durability durability) {
            this.db = (Db) field(kv, "db");
            this.key = key;
            this.value = value;
            int tree = db.treeOf(key);
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

        void finish() {
            try {
                memtable.add(key, lsn, WriteBatch.KIND_PUT, value);
                db.memoryUsed.addAndGet(Memtable.entryBytes(key, value));
            } finally {
                db.inserts.finish(ticket);
            }
        }
    }

    private static KvOptions options(long memtableBytes, long memoryBudget, Durability durability) {
        return KvOptions.builder().vfs(new MemVfs()).keyspaceRouter(KeyspaceRouter.FIRST_FOUR_BYTES)
                .memtableBytes(memtableBytes).memoryBudget(memoryBudget).durability(durability).build();
    }

    private static void awaitWaiting(Thread thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TERMINATED) {
            assertThat(System.nanoTime()).as("never waited").isLessThan(deadline);
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

    private static Object field(Object owner, String name) {
        try {
            Field f = owner.getClass().getDeclaredField(name);
            f.setAccessible(true);
            return f.get(owner);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }
}
