package dev.lacuna.engine;

import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Striped locks over encoded item keys: a write reads the item, checks its condition and logs the
 * result while holding its item's stripe, so conditional writes to one item are serialised while writes
 * to other items proceed. Several stripes are always taken in ascending order, so transactions cannot
 * deadlock.
 */
final class ItemLocks {
    private static final int STRIPES = 4096;
    private final ReentrantLock[] locks = new ReentrantLock[STRIPES];

    ItemLocks() {
        for (int i = 0; i < STRIPES; i++) {
            locks[i] = new ReentrantLock();
        }
    }

    static int stripe(byte[] key) {
        int h = Arrays.hashCode(key);
        h ^= h >>> 16;
        h *= 0x45d9f3b;
        h ^= h >>> 16;
        return h & (STRIPES - 1);
    }

    /** Locks the stripes of {@code keys} in ascending order; returns them for {@link #unlock}. */
    int[] lock(byte[]... keys) {
        if (keys.length == 1) { // a single-item write, the common case: no sorting
            int s = stripe(keys[0]);
            locks[s].lock();
            return new int[] {s};
        }
        int[] stripes = new int[keys.length];
        for (int i = 0; i < keys.length; i++) {
            stripes[i] = stripe(keys[i]);
        }
        stripes = Arrays.stream(stripes).sorted().distinct().toArray();
        for (int s : stripes) {
            locks[s].lock();
        }
        return stripes;
    }

    void unlock(int[] stripes) {
        for (int i = stripes.length - 1; i >= 0; i--) {
            locks[stripes[i]].unlock();
        }
    }
}
