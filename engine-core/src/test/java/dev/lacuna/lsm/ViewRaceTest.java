package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvStoreTest.DIR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvCursor;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.KvSnapshot;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Reads take the tree's view without a lock ({@link Tree#acquire}) while flushes and compactions replace it and
 * delete the files the old one named. Readers racing them must never miss a key that is there, never see a
 * deleted key come back, never read an older value than one acknowledged before the read, and never read a
 * table file after it was deleted; a cursor opened before a compaction reads what it saw at its start, and the
 * files it holds are deleted once it is closed, not before.
 */
class ViewRaceTest {
    /** Rounds of the race, each on a new store; raise it with -Dlacuna.viewRace.rounds=N to hunt for a rare one. */
    private static final int ROUNDS = Integer.getInteger("lacuna.viewRace.rounds", 4);
    private static final int STABLE = 200;
    private static final int WRITES = 4000;

    /** Records a read through a handle of a table file that was deleted before the read. */
    static final class DeletionWatchingVfs extends ForwardingVfs {
        final Set<String> deleted = ConcurrentHashMap.newKeySet();
        final AtomicReference<String> readAfterDelete = new AtomicReference<>();

        DeletionWatchingVfs(Vfs delegate) {
            super(delegate);
        }

        @Override
        public VfsFile openReadOnly(Path file) throws IOException {
            if (deleted.contains(file.toString())) {
                readAfterDelete.compareAndSet(null, "opened " + file + " after its deletion");
            }
            String name = file.toString();
            return new ForwardingVfs.File(delegate().openReadOnly(file)) {
                @Override
                public int read(ByteBuffer dst, long position) throws IOException {
                    if (deleted.contains(name)) {
                        readAfterDelete.compareAndSet(null, "read " + name + " at " + position + " after its deletion");
                    }
                    return super.read(dst, position);
                }
            };
        }

        @Override
        public void delete(Path file) throws IOException {
            if (file.toString().endsWith(".sst")) {
                deleted.add(file.toString());
            }
            super.delete(file);
        }

        int tableFiles() throws IOException {
            int n = 0;
            for (String name : list(DIR)) {
                n += name.endsWith(".sst") ? 1 : 0;
            }
            return n;
        }
    }

    /**
     * Tiny memtables and levels: a flush every few dozen writes, compactions all the time. One partition reads
     * one view per read; two take a view of each under the commit lock for a scan. With {@code SYNC}, writes
     * become visible at their fsync, outside the commit lock.
     */
    private static KvOptions options(Vfs vfs, int partitions, boolean sync) {
        return KvStoreTest.small(new MemVfs(), partitions).toBuilder().vfs(vfs).l0CompactionTrigger(2)
                .durability(sync ? Durability.SYNC : Durability.NONE).build();
    }

    private static byte[] stable(int i) {
        return String.format("s%04d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] gone(long i) {
        return String.format("g%08d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(long round) {
        return String.format("v%08d-%s", round, "x".repeat(40)).getBytes(StandardCharsets.UTF_8);
    }

    private static long round(byte[] value) {
        return Long.parseLong(new String(value, 1, 8, StandardCharsets.UTF_8));
    }

    @Test
    void shouldNeverMissResurrectOrRegressAKeyNorReadADeletedFileWhileFlushesAndCompactionsRun() throws Exception {
        for (int r = 0; r < ROUNDS; r++) {
            race(r);
        }
    }

    private void race(int round) throws Exception {
        DeletionWatchingVfs vfs = new DeletionWatchingVfs(new MemVfs());
        try (LsmStore kv = LsmStore.open(DIR, options(vfs, 1 + round % 2, round % 4 >= 2))) {
            // acked[i]: the round of the last acknowledged write of stable key i; goneBelow: every gone key below
            // it was put and then deleted, both acknowledged.
            AtomicLongArray acked = new AtomicLongArray(STABLE);
            AtomicLong goneBelow = new AtomicLong();
            for (int i = 0; i < STABLE; i++) {
                kv.put(stable(i), value(0));
            }
            AtomicBoolean done = new AtomicBoolean();
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            AtomicLong reads = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            threads.add(new Thread(() -> {
                try {
                    SplittableRandom random = new SplittableRandom(round);
                    for (long w = 1; w <= WRITES && failures.isEmpty(); w++) {
                        int i = random.nextInt(STABLE);
                        kv.put(stable(i), value(w));
                        acked.set(i, w);
                        long g = goneBelow.get();
                        kv.put(gone(g), value(w));
                        kv.delete(gone(g));
                        goneBelow.set(g + 1);
                    }
                } catch (Throwable t) {
                    failures.add(t);
                } finally {
                    done.set(true);
                }
            }, "writer"));
            threads.add(new Thread(() -> {
                try {
                    while (!done.get() && failures.isEmpty()) {
                        kv.compactRange(null, null); // flushes, then compacts everything, beside the background's
                    }
                } catch (Throwable t) {
                    failures.add(t);
                }
            }, "compactor"));
            for (int reader = 0; reader < 2; reader++) {
                int seed = reader;
                threads.add(new Thread(() -> {
                    try {
                        SplittableRandom random = new SplittableRandom(1000 * round + seed);
                        for (long n = 0; !done.get() && failures.isEmpty(); n++) {
                            if (n % 50 == 49) {
                                checkScan(kv, acked, goneBelow, random.nextBoolean());
                            } else {
                                checkGets(kv, acked, goneBelow, random);
                            }
                            reads.incrementAndGet();
                        }
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                }, "reader-" + reader));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
            assertThat(failures).isEmpty();
            assertThat(vfs.readAfterDelete.get()).isNull();
            assertThat(reads.get()).isPositive();
            assertThat(kv.stats().deletedFiles()).isPositive(); // views were replaced and their files deleted
            // Every view is released once its readers are done: only the current version's files are left.
            kv.compactRange(null, null);
            long inVersion = 0;
            for (long f : kv.stats().filesPerLevel()) {
                inVersion += f;
            }
            assertThat(vfs.tableFiles()).isEqualTo(inVersion);
        }
    }

    private static void checkGets(LsmStore kv, AtomicLongArray acked, AtomicLong goneBelow, SplittableRandom random) {
        int i = random.nextInt(STABLE);
        long atLeast = acked.get(i);
        byte[] v = kv.get(stable(i));
        assertThat(v).as("stable key %d (acknowledged round %d)", i, atLeast).isNotNull();
        assertThat(round(v)).as("stable key %d", i).isGreaterThanOrEqualTo(atLeast);
        long g = goneBelow.get();
        if (g > 0) {
            long k = random.nextLong(g);
            assertThat(kv.get(gone(k))).as("gone key %d (below %d)", k, g).isNull();
        }
    }

    private static void checkScan(LsmStore kv, AtomicLongArray acked, AtomicLong goneBelow, boolean reverse) {
        long[] atLeast = new long[STABLE];
        for (int i = 0; i < STABLE; i++) {
            atLeast[i] = acked.get(i);
        }
        long g = goneBelow.get();
        Set<Integer> seen = new HashSet<>();
        try (KvCursor c = kv.scan(stable(0), stable(STABLE), reverse, null)) {
            for (; c.valid(); c.next()) {
                int i = Integer.parseInt(new String(c.key(), 1, 4, StandardCharsets.UTF_8));
                assertThat(round(c.value())).as("stable key %d in a scan", i).isGreaterThanOrEqualTo(atLeast[i]);
                seen.add(i);
            }
        }
        assertThat(seen).as("stable keys a scan found").hasSize(STABLE);
        try (KvCursor c = kv.scan(gone(0), gone(g), reverse, null)) {
            assertThat(c.valid()).as("a gone key below %d in a scan", g).isFalse();
        }
    }

    @Test
    void shouldKeepACursorOpenedBeforeACompactionReadingWhatItSawAndItsFilesUntilItCloses() throws Exception {
        DeletionWatchingVfs vfs = new DeletionWatchingVfs(new MemVfs());
        try (LsmStore kv = LsmStore.open(DIR, options(vfs, 1, false))) {
            List<String> before = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                kv.put(stable(i), value(1));
                before.add(new String(stable(i), StandardCharsets.UTF_8) + "=" + round(value(1)));
            }
            kv.flush(); // most in tables, the last writes in a memtable
            for (int i = 300; i < 310; i++) {
                kv.put(stable(i), value(1));
                before.add(new String(stable(i), StandardCharsets.UTF_8) + "=" + round(value(1)));
            }
            Set<String> tablesBefore = new HashSet<>();
            for (String name : vfs.list(DIR)) {
                if (name.endsWith(".sst")) {
                    tablesBefore.add(DIR.resolve(name).toString());
                }
            }
            assertThat(tablesBefore).isNotEmpty();
            KvCursor forward = kv.scan(null, null, false, null);
            KvCursor reverse = kv.scan(null, null, true, null);
            KvSnapshot snapshot = kv.snapshot();
            List<String> read = new ArrayList<>();
            read.add(new String(forward.key(), StandardCharsets.UTF_8) + "=" + round(forward.value()));
            forward.next(); // a cursor part way through when the compaction runs

            for (int i = 0; i < 310; i++) {
                if (i % 2 == 0) {
                    kv.delete(stable(i));
                } else {
                    kv.put(stable(i), value(2));
                }
            }
            kv.compactRange(null, null);
            assertThat(vfs.deleted).doesNotContainAnyElementsOf(tablesBefore); // held by the cursors' views

            for (; forward.valid(); forward.next()) {
                read.add(new String(forward.key(), StandardCharsets.UTF_8) + "=" + round(forward.value()));
            }
            assertThat(read).isEqualTo(before);
            List<String> backwards = new ArrayList<>();
            for (; reverse.valid(); reverse.next()) {
                backwards.add(new String(reverse.key(), StandardCharsets.UTF_8) + "=" + round(reverse.value()));
            }
            Collections.reverse(backwards);
            assertThat(backwards).isEqualTo(before);
            assertThat(round(kv.get(stable(7), snapshot))).isEqualTo(1);
            assertThat(kv.get(stable(8), snapshot)).isNotNull();
            assertThat(kv.get(stable(8))).isNull();
            assertThat(vfs.readAfterDelete.get()).isNull();

            forward.close();
            reverse.close();
            snapshot.close();
            kv.compactRange(null, null);
            assertThat(vfs.deleted).containsAll(tablesBefore); // released by the last view holding them
            assertThat(vfs.readAfterDelete.get()).isNull();
        }
    }
}
