package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvKeyspaceTest.bytes;
import static dev.lacuna.lsm.KvKeyspaceTest.key;
import static dev.lacuna.lsm.KvKeyspaceTest.options;
import static dev.lacuna.lsm.KvStoreTest.DIR;
import static dev.lacuna.lsm.KvStoreTest.s;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvCursor;
import dev.lacuna.kv.KvSnapshot;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Review (adversarial) tests of the carrying flush: LsmStore.flushKeyspace(id, keepAbove). */
class CarryingFlushPathsTest {

    private static long[] baseWrites(LsmStore kv, int base, int n) {
        long[] lsn = new long[n + 1];
        for (int i = 1; i <= n; i++) {
            lsn[i] = kv.write(new WriteBatch().put(key(base, "b" + i), bytes("x")), Durability.SYNC);
        }
        return lsn;
    }

    /** A key with a version at/below K and one above: carried whole; a plain flush (another trigger) then a crash. */
    @Test
    void keyWithVersionsOnBothSidesThenPlainFlushThenCrash() {
        MemVfs vfs = new MemVfs();
        int index;
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            int base = kv.createKeyspace(1, bytes("base")).id();
            index = kv.createKeyspace(1, bytes("index")).id();
            long[] lsn = baseWrites(kv, base, 6);
            kv.applyUnlogged(new WriteBatch().put(key(index, "x"), bytes("v1")).put(key(index, "y"), bytes("y1")), lsn[1]);
            kv.applyUnlogged(new WriteBatch().put(key(index, "x"), bytes("v2")).delete(key(index, "y")), lsn[3]);
            kv.flushKeyspace(index, lsn[2]);
            assertThat(s(kv.get(key(index, "x")))).isEqualTo("v2");
            assertThat(kv.get(key(index, "y"))).isNull();
            kv.flushKeyspace(index); // memory budget / close / explicit: everything
            assertThat(kv.stats().memtableBytes()).as("memory after flushing").isGreaterThanOrEqualTo(0);
        }
        try (LsmStore kv = LsmStore.open(DIR, options(vfs.crashClone()))) {
            assertThat(s(kv.get(key(index, "x")))).isEqualTo("v2");
            assertThat(kv.get(key(index, "y"))).isNull();
        }
    }

    /**
     * A cursor opened before the carry holds the frozen memtable; the carried copy of a put is then deleted
     * (annihilated); the cursor must still see the put, and once it closes the pair goes.
     */
    @Test
    void cursorOpenedBeforeTheCarryKeepsSeeingTheCarriedPut() {
        MemVfs vfs = new MemVfs();
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            int base = kv.createKeyspace(1, bytes("base")).id();
            int index = kv.createKeyspace(1, bytes("index")).id();
            long l1 = baseWrites(kv, base, 1)[1];
            kv.applyUnlogged(new WriteBatch().put(key(index, "p"), bytes("p")), l1);
            long l2 = baseWrites(kv, base, 1)[1];
            kv.applyUnlogged(new WriteBatch().put(key(index, "q"), bytes("q")), l2);
            KvSnapshot snap = kv.snapshot(); // at l2: sees q
            long[] lsn = baseWrites(kv, base, 8);
            try (KvCursor c = kv.scan(key(index, ""), key(index + 1, ""), false, null)) {
                kv.flushKeyspace(index, l1);
                kv.applyUnlogged(new WriteBatch().delete(key(index, "q")), lsn[3]);
                kv.applyUnlogged(new WriteBatch().put(key(index, "r"), bytes("r")), lsn[4]);
                kv.applyUnlogged(new WriteBatch().put(key(index, "s"), bytes("s")), lsn[5]);
                List<String> seen = new ArrayList<>();
                for (; c.valid(); c.next()) {
                    seen.add(s(c.key()).substring(4));
                }
                assertThat(seen).containsExactly("p", "q");
            }
            // The snapshot taken before the delete sees q still, through the purge attempts.
            kv.applyUnlogged(new WriteBatch().put(key(index, "t"), bytes("t")), lsn[6]);
            assertThat(s(kv.get(key(index, "q"), snap))).isEqualTo("q");
            try (KvCursor c = kv.scan(key(index, ""), key(index + 1, ""), false, snap)) {
                List<String> seen = new ArrayList<>();
                for (; c.valid(); c.next()) {
                    seen.add(s(c.key()).substring(4));
                }
                assertThat(seen).containsExactly("p", "q");
            }
            snap.close();
            kv.applyUnlogged(new WriteBatch().put(key(index, "u"), bytes("u")), lsn[7]);
            try (KvCursor c = kv.scan(key(index, ""), key(index + 1, ""), false, null)) {
                List<String> seen = new ArrayList<>();
                for (; c.valid(); c.next()) {
                    seen.add(s(c.key()).substring(4));
                }
                assertThat(seen).containsExactly("p", "r", "s", "t", "u");
                assertThat(c.deadEntriesSkipped()).as("the pair was purged").isZero();
            }
        }
    }

    /** A key carried twice (two checkpoints behind it), then deleted: gone in memory and after a crash. */
    @Test
    void keyCarriedTwiceThenDeletedStaysDeleted() {
        MemVfs vfs = new MemVfs();
        int index;
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            int base = kv.createKeyspace(1, bytes("base")).id();
            index = kv.createKeyspace(1, bytes("index")).id();
            long[] lsn = baseWrites(kv, base, 8);
            kv.applyUnlogged(new WriteBatch().put(key(index, "old"), bytes("o")), lsn[1]);
            kv.flushKeyspace(index); // "old" in a file
            kv.applyUnlogged(new WriteBatch().delete(key(index, "old")), lsn[2]);
            kv.applyUnlogged(new WriteBatch().put(key(index, "old"), bytes("o2")), lsn[4]);
            kv.applyUnlogged(new WriteBatch().put(key(index, "x"), bytes("x")), lsn[4]);
            kv.flushKeyspace(index, lsn[3]);
            kv.flushKeyspace(index, lsn[3]);
            kv.applyUnlogged(new WriteBatch().delete(key(index, "old")).delete(key(index, "x")), lsn[5]);
            kv.applyUnlogged(new WriteBatch().put(key(index, "z"), bytes("z")), lsn[6]);
            assertThat(kv.get(key(index, "old"))).isNull();
            assertThat(kv.get(key(index, "x"))).isNull();
            kv.flushKeyspace(index, lsn[5]); // checkpoint at 5: old and x settled as deleted
            assertThat(kv.get(key(index, "old"))).isNull();
            kv.applyUnlogged(new WriteBatch().put(key(index, "w"), bytes("w")), lsn[7]);
        }
        try (LsmStore kv = LsmStore.open(DIR, options(vfs.crashClone()))) {
            assertThat(kv.get(key(index, "old"))).as("the file's old put must stay deleted").isNull();
            assertThat(kv.get(key(index, "x"))).isNull();
        }
    }

    /** memtableBytes back to zero after many carries once everything is flushed. */
    @Test
    void memoryAccountingReturnsToZero() {
        MemVfs vfs = new MemVfs();
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            int base = kv.createKeyspace(1, bytes("base")).id();
            int index = kv.createKeyspace(1, bytes("index")).id();
            long[] lsn = baseWrites(kv, base, 120);
            kv.flushKeyspace(base);
            kv.flushKeyspace(0);
            long before = kv.stats().memtableBytes();
            assertThat(before).isZero();
            for (int i = 2; i <= 120; i++) {
                kv.applyUnlogged(new WriteBatch().put(key(index, "k" + i), bytes("v" + i))
                        .delete(key(index, "k" + (i - 1))).put(key(index, "hot"), bytes("h" + i)), lsn[i]);
                if (i % 3 == 0) {
                    kv.flushKeyspace(index, lsn[i - 1]);
                }
            }
            kv.flushKeyspace(index);
            assertThat(kv.stats().memtableBytes()).as("memory used with every memtable flushed").isZero();
        }
    }

    /**
     * The frozen memtable's flush held at its fsync: the view holds it and the young one with the carried copies.
     * The carried put is deleted (annihilated) and a settled key re-put and deleted; reads of every kind must see
     * neither come back, then or after the flush and the purge.
     */
    @Test
    void readsWhileTheFrozenMemtableIsStillFlushing() throws Exception {
        MemVfs mem = new MemVfs();
        ControlledVfs vfs = new ControlledVfs(mem, ".sst");
        try (LsmStore kv = LsmStore.open(DIR, KvKeyspaceTest.options(mem).toBuilder().vfs(vfs).build())) {
            int base = kv.createKeyspace(1, bytes("base")).id();
            int index = kv.createKeyspace(1, bytes("index")).id();
            long[] lsn = baseWrites(kv, base, 10);
            kv.applyUnlogged(new WriteBatch().put(key(index, "a"), bytes("a")).put(key(index, "s"), bytes("s1")), lsn[1]);
            kv.applyUnlogged(new WriteBatch().put(key(index, "q"), bytes("q")), lsn[3]);
            vfs.hold();
            Thread flusher = new Thread(() -> kv.flushKeyspace(index, lsn[2]));
            flusher.start();
            vfs.awaitHeld();
            // now: F1 = {a, s (settled), q (carried)}, young = {q}
            try {
                assertThat(all(kv, index, false)).containsExactly("a", "q", "s");
                assertThat(all(kv, index, true)).containsExactly("s", "q", "a");
            } catch (AssertionError | RuntimeException e) {
                vfs.release();
                flusher.join(60_000);
                throw e;
            }
            kv.applyUnlogged(new WriteBatch().delete(key(index, "q")), lsn[4]); // annihilates the carried copy
            kv.applyUnlogged(new WriteBatch().delete(key(index, "s")), lsn[5]);
            kv.applyUnlogged(new WriteBatch().put(key(index, "s"), bytes("s2")), lsn[6]);
            kv.applyUnlogged(new WriteBatch().delete(key(index, "s")), lsn[7]); // s put+delete in young, s1 in F1
            kv.applyUnlogged(new WriteBatch().put(key(index, "z"), bytes("z")), lsn[8]);
            assertThat(kv.get(key(index, "q"))).isNull();
            assertThat(kv.get(key(index, "s"))).isNull();
            assertThat(all(kv, index, false)).containsExactly("a", "z");
            assertThat(all(kv, index, true)).containsExactly("z", "a");
            vfs.release();
            flusher.join(60_000);
            assertThat(flusher.isAlive()).isFalse();
            kv.applyUnlogged(new WriteBatch().put(key(index, "zz"), bytes("zz")), lsn[9]); // purges now
            assertThat(kv.get(key(index, "q"))).isNull();
            assertThat(kv.get(key(index, "s"))).isNull();
            assertThat(all(kv, index, false)).containsExactly("a", "z", "zz");
            assertThat(all(kv, index, true)).containsExactly("zz", "z", "a");
            kv.flushKeyspace(index, lsn[9]);
            assertThat(all(kv, index, false)).containsExactly("a", "z", "zz");
            assertThat(kv.stats().memtableBytes()).isGreaterThanOrEqualTo(0);
        }
        try (LsmStore kv = LsmStore.open(DIR, options(mem.crashClone()))) {
            int index = 2;
            assertThat(kv.get(key(index, "s"))).as("s deleted at lsn5/7, checkpoint 9").isNull();
            assertThat(kv.get(key(index, "q"))).isNull();
        }
    }

    private static List<String> all(LsmStore kv, int keyspace, boolean reverse) {
        List<String> out = new ArrayList<>();
        try (KvCursor c = kv.scan(key(keyspace, ""), key(keyspace + 1, ""), reverse, null)) {
            for (; c.valid(); c.next()) {
                out.add(s(c.key()).substring(4));
            }
        }
        return out;
    }
}
