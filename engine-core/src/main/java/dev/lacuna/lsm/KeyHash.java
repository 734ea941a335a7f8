package dev.lacuna.lsm;

/**
 * The hash that assigns a key's prefix to a partition. Part of the on-disk layout: a store's data is
 * placed by it, so it must never change (FNV-1a over the bytes, then a 64-bit finaliser for spread).
 */
final class KeyHash {
    private KeyHash() {
    }

    static long hash(byte[] b, int length) {
        long h = 0xCBF29CE484222325L;
        for (int i = 0; i < length; i++) {
            h ^= b[i] & 0xFF;
            h *= 0x100000001B3L;
        }
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        h ^= h >>> 33;
        return h;
    }
}
