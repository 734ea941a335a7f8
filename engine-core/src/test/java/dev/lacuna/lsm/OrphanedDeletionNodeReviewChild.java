package dev.lacuna.lsm;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * Run in a child JVM with a small heap by {@link OrphanedDeletionNodeReviewTest}. In each of a few rounds, a put of a
 * key of 60,000 bytes goes alone into an index's memtable (written unlogged: the log, whose own handling of running
 * out of memory refuses appends until a reopen, stays out of it); then, with the heap filled, its deletion is applied
 * again and again, 16 KB more of the heap free at each attempt, so that the commit runs out of memory at one
 * allocation after another until it succeeds. After each failure, reports an "orphan" if the arena kept room that
 * neither the memtable's bytes nor the store's memory count: a node placed and never given back.
 */
public final class OrphanedDeletionNodeReviewChild {
    private static final int ROUNDS = 6;
    private static final List<byte[]> ballast = new ArrayList<>(100_000);
    private static final List<byte[]> small = new ArrayList<>(100_000);

    private OrphanedDeletionNodeReviewChild() {
    }

    public static void main(String[] args) throws ReflectiveOperationException {
        KvOptions.Builder options = KvOptions.builder().vfs(new MemVfs()).durability(Durability.NONE);
        try (LsmStore kv = IndexLikeStore.open(options)) {
            for (int i = 0; i < 200; i++) { // the arena's chunks grow to their largest
                WriteBatch fillers = new WriteBatch();
                for (int j = 0; j < 10; j++) {
                    fillers.put(IndexLikeStore.key("filler" + i + "-" + j), new byte[2_000]);
                }
                IndexLikeStore.apply(kv, fillers);
            }
            Db db = LsmInternals.db(kv);
            MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(ArenaSkipList.class, MethodHandles.lookup());
            VarHandle used = lookup.findVarHandle(ArenaSkipList.class, "used", int.class);
            VarHandle slot = lookup.findVarHandle(ArenaSkipList.class, "currentSlot", int.class);
            VarHandle alignHandle = lookup.findStaticVarHandle(ArenaSkipList.class, "ALIGN", int.class);
            int align = (int) alignHandle.get();
            int outOfMemory = 0;
            int orphans = 0;
            int acknowledged = 0;
            for (int round = 0; round < ROUNDS; round++) {
                byte[] key = IndexLikeStore.key(round + "k".repeat(60_000));
                IndexLikeStore.apply(kv, new WriteBatch().put(key, new byte[] {1}));
                long sequence = kv.write(new WriteBatch().put(KvKeyspaceTest.key(IndexLikeStore.TABLE, "t"),
                        new byte[] {1}), Durability.NONE); // the deletion's
                Memtable mem = db.trees[db.treeOf(key)].mem();
                ArenaSkipList arena = (ArenaSkipList) LsmInternals.field(mem, "entries");
                for (int i = 0; i < 100; i++) { // each call site links once: here, before the heap is filled
                    read(used, arena);
                    read(slot, arena);
                }
                WriteBatch deletion = new WriteBatch().delete(key);
                fill();
                for (int attempt = 0; attempt < 600; attempt++) {
                    int usedBefore = read(used, arena);
                    int slotBefore = read(slot, arena);
                    long bytesBefore = mem.bytes();
                    long memoryBefore = db.memoryUsed.get();
                    Throwable failure = null;
                    try {
                        kv.applyUnlogged(deletion, sequence);
                    } catch (Throwable e) {
                        failure = e;
                    }
                    if (failure == null) {
                        acknowledged++;
                        break;
                    }
                    outOfMemory += failure instanceof OutOfMemoryError ? 1 : 0;
                    int usedAfter = read(used, arena);
                    int slotAfter = read(slot, arena);
                    // A new chunk may stay (the arena's, empty); a node left in it, or in the chunk it was, is kept.
                    boolean kept = slotAfter == slotBefore ? usedAfter != usedBefore : usedAfter != align;
                    boolean counted = mem.bytes() != bytesBefore || db.memoryUsed.get() != memoryBefore;
                    for (int i = 0; i < 4; i++) { // 16 KB more room for the next attempt
                        List<byte[]> from = small.isEmpty() ? ballast : small;
                        if (!from.isEmpty()) {
                            from.remove(from.size() - 1);
                        }
                    }
                    if (kept && !counted) {
                        orphans++;
                        ballast.clear();
                        small.clear();
                        System.out.println("round " + round + ", attempt " + attempt + ": " + failure + " orphan: arena"
                                + " used " + usedBefore + " -> " + usedAfter + " (chunk " + slotBefore + " -> "
                                + slotAfter + "), bytes counted " + bytesBefore + " -> " + mem.bytes());
                        fill();
                    }
                }
                ballast.clear();
                small.clear();
            }
            System.out.println("out of memory " + outOfMemory + " times, " + orphans + " orphans, " + acknowledged
                    + " of " + ROUNDS + " deletions acknowledged");
        } catch (OutOfMemoryError e) {
            ballast.clear(); // outside a commit (the JVM deoptimising, say): this run tells nothing
            small.clear();
            System.out.println("inconclusive: " + e);
        }
    }

    private static int read(VarHandle field, ArenaSkipList arena) {
        return (int) field.get(arena);
    }

    /**
     * Fills the heap: large blocks while the heap has room by its own count, then blocks of 4 KB (released a few at a
     * time by the caller) until it runs out.
     */
    private static void fill() {
        Runtime rt = Runtime.getRuntime();
        System.gc();
        try {
            for (int size : new int[] {256 << 10, 16 << 10}) {
                while (rt.maxMemory() - (rt.totalMemory() - rt.freeMemory()) > 32L * size) {
                    ballast.add(new byte[size]);
                }
            }
        } catch (OutOfMemoryError e) {
            // the count was off: on with the small blocks
        }
        try {
            while (true) {
                small.add(new byte[4 << 10]);
            }
        } catch (OutOfMemoryError e) {
            // full
        }
    }
}
