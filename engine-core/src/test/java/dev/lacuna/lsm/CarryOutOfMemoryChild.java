package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvStoreTest.b;

import dev.lacuna.kv.KvCursor;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;

/**
 * Run in a child JVM with a small heap by {@link CarryOutOfMemoryTest}: an index keyspace (written unlogged) holds a
 * 64 MB sole put and a dead pair that no purge may drop (a cursor is open), so that the dead-pair freeze carries the
 * put and its copy does not fit in the heap; reports what the write that called for the freeze was told, and
 * whether the memtable holding the put (the frozen one, or the active one if the freeze failed) counts it as carried,
 * which its flush would then leave out. (The flush itself is not run: writing a 64 MB value needs more heap.)
 */
public final class CarryOutOfMemoryChild {
    private CarryOutOfMemoryChild() {
    }

    public static void main(String[] args) {
        try (LsmStore kv = IndexLikeStore.open(KvOptions.builder().vfs(new MemVfs()).durability(Durability.NONE)
                .deadEntryTrigger(1).memtableBytes(1L << 30).memoryBudget(1L << 31))) {
            byte[] big = IndexLikeStore.key("big");
            IndexLikeStore.apply(kv, new WriteBatch().put(big, new byte[64 << 20]));
            try (KvCursor held = kv.scan(b("a"), b("b"), false, null)) { // no purge: the pair below stays
                IndexLikeStore.apply(kv, new WriteBatch().put(IndexLikeStore.key("x"), b("x")));
                String told = "applied";
                try {
                    IndexLikeStore.apply(kv, new WriteBatch().delete(IndexLikeStore.key("x"))); // a dead pair: the freeze
                } catch (OutOfMemoryError e) {
                    told = "OutOfMemoryError";
                }
                System.out.println("deletion " + told);
                // Whichever memtable holds the put (the active one if the freeze failed, else the frozen one): its
                // flush must write it, so it must not count as carried.
                Tree tree = LsmInternals.db(kv).trees[LsmInternals.db(kv).treeOf(big)];
                try (Tree.View view = tree.acquire()) {
                    java.util.List<Memtable> all = new java.util.ArrayList<>(view.immutables());
                    all.add(view.mem());
                    for (Memtable m : all) {
                        // The put's key alone (its only version here): a copy of its 64 MB value could itself
                        // run out of memory in this heap, split by the humongous arrays around it.
                        byte[] newest = m.solePut(big);
                        if (newest != null) {
                            System.out.println((m == view.mem() ? "active" : "frozen") + " memtable holds it, carried "
                                    + m.carried(newest));
                        }
                    }
                }
            }
        }
    }
}
