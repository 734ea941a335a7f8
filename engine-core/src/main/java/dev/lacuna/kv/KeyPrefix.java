package dev.lacuna.kv;

/**
 * Extracts the prefix of a user key that a table's bloom filter indexes besides the whole key (RocksDB's
 * prefix extractor), typically the table id and partition key, so that a Query over one partition can
 * skip every table without it ({@code SstableReader.mayContainPrefix}).
 *
 * <p>Implementations must be pure functions (the same key always gives the same length) and should be
 * "prefix-consistent": keys that share a prefix are contiguous in key order. A reader must be queried
 * with prefixes extracted by the same {@code KeyPrefix} that the table was written with; the table does
 * not record which one that was. Implementations must be thread-safe (they are stateless in practice).
 */
@FunctionalInterface
public interface KeyPrefix {
    /** The whole user key is the prefix: prefix queries become whole-key queries. */
    KeyPrefix WHOLE_KEY = userKey -> userKey.length;

    /**
     * The number of leading bytes of {@code userKey} that form its prefix, in {@code [0, userKey.length]}.
     * The array must not be modified.
     */
    int prefixLength(byte[] userKey);

    /** The first {@code length} bytes (or the whole key if it is shorter). */
    static KeyPrefix fixedLength(int length) {
        if (length < 0) {
            throw new IllegalArgumentException("negative prefix length " + length);
        }
        return userKey -> Math.min(length, userKey.length);
    }
}
