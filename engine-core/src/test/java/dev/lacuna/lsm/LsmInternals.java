package dev.lacuna.lsm;

import java.lang.reflect.Field;

/** What tests read of a store's internals. */
final class LsmInternals {
    private LsmInternals() {
    }

    /** The store's {@link Db}. */
    static Db db(LsmStore kv) {
        return (Db) field(kv, "db");
    }

    /** Frozen memtables waiting for their flush, over every partition. */
    static int frozenMemtables(Db db) {
        int n = 0;
        for (Tree t : db.live) {
            n += t.immutableCount();
        }
        return n;
    }

    /** Bytes of the arena chunks of {@code mem}, used or not. */
    static long arenaBytes(Memtable mem) {
        return ((ArenaSkipList) field(mem, "entries")).chunkBytes();
    }

    /** The value of {@code owner}'s field {@code name}, whatever its access. */
    static Object field(Object owner, String name) {
        try {
            Field f = owner.getClass().getDeclaredField(name);
            f.setAccessible(true);
            return f.get(owner);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("no field " + name + " in " + owner.getClass(), e);
        }
    }
}
