package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvKeyspaceTest.bytes;
import static dev.lacuna.lsm.KvKeyspaceTest.key;
import static dev.lacuna.lsm.KvStoreTest.DIR;
import static dev.lacuna.lsm.KvStoreTest.s;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KeyspaceRouter;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.storage.Durability;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A drop waits (for its keyspaces' flushes, then for their trees' compaction slots) after it took their routes
 * away and before its one manifest edit. An interrupt in either wait must leave the keyspace exactly as it was
 * (listed, readable, writable, droppable again, the store still writable) and throw with the interrupt flag
 * set; a close and reopen, or a power loss, finds the keyspace and every acknowledged write in it. It used to
 * leave the keyspace half dropped: listed, yet writes to it refused as to no keyspace, and a second drop
 * refused with "no keyspace".
 */
class DropInterruptTest {
    static KvOptions options(Vfs vfs) {
        return KvStoreTest.small(new MemVfs(), 1).toBuilder().vfs(vfs).keyspaceRouter(KeyspaceRouter.FIRST_FOUR_BYTES)
                .durability(Durability.SYNC).build();
    }

    /** A thread running {@code kv.dropKeyspaces(id)}, recording what it threw and its interrupt flag after. */
    static final class Dropper extends Thread {
        final AtomicReference<Throwable> thrown = new AtomicReference<>();
        final AtomicBoolean interruptedAfter = new AtomicBoolean();

        Dropper(LsmStore kv, int id) {
            super("dropper");
            this.kv = kv;
            this.id = id;
        }

        private final LsmStore kv;
        private final int id;

        @Override
        public void run() {
            try {
                kv.dropKeyspaces(List.of(id), List.of());
            } catch (Throwable t) {
                thrown.set(t);
            }
            interruptedAfter.set(Thread.currentThread().isInterrupted());
        }

        /** Waits (with a bound) until the thread is blocked inside a method named {@code method...}. */
        void awaitIn(String method) throws InterruptedException {
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (Arrays.stream(getStackTrace()).noneMatch(f -> f.getMethodName().startsWith(method))
                    || getState() == State.RUNNABLE) {
                assertThat(System.nanoTime()).as("the drop reaches " + method).isLessThan(deadline);
                join(5); // waits on the thread's end with a timeout: the condition is checked again
            }
        }
    }

    @Test
    void interruptWhileWaitingForACompactionSlotLeavesTheKeyspaceAsItWas() throws Exception {
        MemVfs mem = new MemVfs();
        ControlledVfs vfs = new ControlledVfs(mem, ".sst");
        int id;
        MemVfs powerLoss;
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            id = kv.createKeyspace(1, bytes("doomed")).id();
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 50; i++) {
                    kv.put(key(id, "k" + i), bytes("v" + round + i));
                }
                kv.flush(); // two overlapping level-0 tables, which compactRange rewrites; no memtable left to flush
            }
            vfs.hold(); // the compaction's output waits in its fsync, holding the tree's compaction slot
            AtomicReference<Throwable> compactionFailure = new AtomicReference<>();
            Thread compactor = new Thread(() -> {
                try {
                    kv.compactRange(null, null);
                } catch (Throwable t) {
                    compactionFailure.set(t);
                }
            }, "compactRange");
            try {
                compactor.start();
                assertThat(vfs.awaitHeld(60_000_000_000L)).isTrue();

                Dropper dropper = new Dropper(kv, id);
                dropper.start();
                dropper.awaitIn("awaitAndStartCompaction");
                dropper.interrupt();
                dropper.join(60_000);
                assertThat(dropper.isAlive()).isFalse();
                assertUsable(kv, id, "during the compaction", false); // its flush would wait for the held fsync
                assertThat(dropper.thrown.get()).isInstanceOf(StorageIOException.class)
                        .hasMessageContaining("interrupted while dropping").hasMessageContaining("nothing was dropped");
                assertThat(dropper.interruptedAfter.get()).as("interrupt flag restored").isTrue();
            } finally {
                vfs.release(); // also when failing: the store's close waits for the compaction
            }
            compactor.join(60_000);
            assertThat(compactor.isAlive()).isFalse();
            assertThat(compactionFailure.get()).isNull();
            assertUsable(kv, id, "after the compaction", true);
            powerLoss = mem.crashClone(); // SYNC writes: all durable

            kv.dropKeyspaces(List.of(id), List.of()); // the slot is free again: the drop now goes through
            assertThat(kv.keyspaces()).extracting(Keyspace::id).doesNotContain(id);
        }
        try (LsmStore kv = LsmStore.open(DIR, options(mem))) {
            assertThat(kv.keyspaces()).extracting(Keyspace::id).doesNotContain(id);
        }
        try (LsmStore kv = LsmStore.open(DIR, options(powerLoss))) {
            assertReopened(kv, id);
        }
    }

    @Test
    void interruptWhileWaitingForTheFlushLeavesTheKeyspaceAsItWas() throws Exception {
        MemVfs mem = new MemVfs();
        ControlledVfs vfs = new ControlledVfs(mem, ".sst");
        int id;
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            id = kv.createKeyspace(1, bytes("doomed")).id();
            for (int i = 0; i < 10; i++) { // far below the 4 KiB memtable: nothing flushes before the drop's flush
                kv.put(key(id, "k" + i), bytes("v1" + i));
            }
            vfs.hold(); // the drop's flush of the keyspace's memtable waits in its fsync
            Dropper dropper = new Dropper(kv, id);
            try {
                dropper.start();
                assertThat(vfs.awaitHeld(60_000_000_000L)).isTrue();
                dropper.awaitIn("awaitFlushed");
                dropper.interrupt();
                dropper.join(60_000);
                assertThat(dropper.isAlive()).isFalse();
                assertThat(dropper.interruptedAfter.get()).as("interrupt flag restored").isTrue();
            } finally {
                vfs.release(); // also when failing: the store's close waits for the flush
            }
            assertUsable(kv, id, "after an interrupted flush wait", true);
            assertThat(dropper.thrown.get()).isInstanceOf(StorageIOException.class)
                    .hasMessageContaining("nothing was dropped");
        }
        try (LsmStore kv = LsmStore.open(DIR, options(mem))) {
            assertReopened(kv, id);
        }
    }

    /** The keyspace is listed, holds its data, takes writes, and the store takes writes elsewhere too. */
    private static void assertUsable(LsmStore kv, int id, String when, boolean flush) {
        assertThat(kv.keyspaces()).as(when).extracting(Keyspace::id).contains(id);
        assertThat(s(kv.get(key(id, "k7")))).as(when).isEqualTo("v17");
        kv.put(key(id, "new"), bytes(when)); // refused as to "no keyspace" when half dropped
        assertThat(s(kv.get(key(id, "new")))).isEqualTo(when);
        kv.put(key(0, "other"), bytes("x"));
        if (flush) {
            kv.flushKeyspace(id);
        }
        assertThat(s(kv.get(key(id, "new")))).isEqualTo(when);
    }

    private static void assertReopened(LsmStore kv, int id) {
        assertThat(kv.keyspaces()).extracting(Keyspace::id).contains(id);
        assertThat(s(kv.get(key(id, "k7")))).isEqualTo("v17");
        assertThat(kv.get(key(id, "new"))).isNotNull();
        kv.put(key(id, "after reopen"), bytes("y"));
        kv.dropKeyspaces(List.of(id), List.of());
        assertThat(kv.keyspaces()).extracting(Keyspace::id).doesNotContain(id);
    }
}
