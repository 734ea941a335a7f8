package dev.lacuna.sstable;

import dev.lacuna.storage.CorruptionException;
import java.util.Arrays;

/**
 * A bloom filter over byte strings (LevelDB's {@code bloom.cc}): {@code k} probes derived from one 32-bit
 * hash by double hashing, {@code h + i·δ} with {@code δ} the hash rotated right by 17 bits. With about 10
 * bits per key and {@code k = ⌊0.69 · bitsPerKey⌋ = 6} the false-positive rate is about 1%. A filter never
 * answers "no" for a string that was added.
 *
 * <pre>
 * filter block payload = bits[m / 8] (bit i is byte i/8, bit i%8), k u8 (1..30)
 *                        (an empty payload means no filter: everything may be present)
 * </pre>
 *
 * The hash is MurmurHash3's 32-bit x86 variant (Austin Appleby, public domain) with a fixed seed, written
 * here so the on-disk filter never depends on a library's hash.
 *
 * <p>Immutable and thread-safe once built.
 */
final class BloomFilter {
    private static final int SEED = 0xBC9F1D34;
    static final int MAX_PROBES = 30;

    private final byte[] bits;
    private final long bitCount;
    private final int probes;

    private BloomFilter(byte[] bits, int bitBytes, int probes) {
        this.bits = bits;
        this.bitCount = (long) bitBytes * 8;
        this.probes = probes;
    }

    /**
     * Parses a filter block payload {@code data[0..length)} (checksum already verified).
     *
     * @return the filter, or null for an empty payload (no filter)
     */
    static BloomFilter parse(byte[] data, int length, String file, long fileOffset) {
        if (length == 0) {
            return null;
        }
        int probes = data[length - 1] & 0xFF;
        if (probes < 1 || probes > MAX_PROBES || length < 2) {
            throw new CorruptionException(file, fileOffset, "filter block: bad probe count " + probes
                    + " or size " + length);
        }
        return new BloomFilter(data, length - 1, probes);
    }

    /** The filter's bits (m). */
    long bitCount() {
        return bitCount;
    }

    /** The probes per string (k). */
    int probes() {
        return probes;
    }

    /** Whether {@code key[offset..offset+length)} may have been added; false means it certainly was not. */
    boolean mayContain(byte[] key, int offset, int length) {
        int h = hash(key, offset, length);
        int delta = Integer.rotateRight(h, 17);
        for (int i = 0; i < probes; i++) {
            long bit = Integer.toUnsignedLong(h) % bitCount;
            if ((bits[(int) (bit >>> 3)] & (1 << (bit & 7))) == 0) {
                return false;
            }
            h += delta;
        }
        return true;
    }

    /** The filter's hash of {@code data[offset..offset+length)}. */
    static int hash(byte[] data, int offset, int length) {
        return murmur3(data, offset, length, SEED);
    }

    /** MurmurHash3 x86 32-bit of {@code data[offset..offset+length)}. */
    static int murmur3(byte[] data, int offset, int length, int seed) {
        final int c1 = 0xCC9E2D51;
        final int c2 = 0x1B873593;
        int h = seed;
        int end = offset + (length & ~3);
        for (int i = offset; i < end; i += 4) {
            int k = SstableFormat.getInt(data, i);
            k *= c1;
            k = Integer.rotateLeft(k, 15);
            k *= c2;
            h ^= k;
            h = Integer.rotateLeft(h, 13);
            h = h * 5 + 0xE6546B64;
        }
        int tail = length & 3;
        if (tail > 0) {
            int k = 0;
            if (tail == 3) {
                k ^= (data[end + 2] & 0xFF) << 16;
            }
            if (tail >= 2) {
                k ^= (data[end + 1] & 0xFF) << 8;
            }
            k ^= data[end] & 0xFF;
            k *= c1;
            k = Integer.rotateLeft(k, 15);
            k *= c2;
            h ^= k;
        }
        h ^= length;
        h ^= h >>> 16;
        h *= 0x85EBCA6B;
        h ^= h >>> 13;
        h *= 0xC2B2AE35;
        h ^= h >>> 16;
        return h;
    }

    /** Collects the hashes of added strings and lays out the filter at the end. Not thread-safe. */
    static final class Builder {
        private final int bitsPerKey;
        private int[] hashes = new int[256];
        private int count;

        /** @param bitsPerKey bits of filter per added string; 0 builds no filter */
        Builder(int bitsPerKey) {
            this.bitsPerKey = bitsPerKey;
        }

        void add(byte[] key, int offset, int length) {
            if (bitsPerKey == 0) {
                return;
            }
            if (count == hashes.length) {
                hashes = Arrays.copyOf(hashes, hashes.length * 2);
            }
            hashes[count++] = hash(key, offset, length);
        }

        /** Strings added so far. */
        int count() {
            return count;
        }

        /** Bytes {@link #finish(ByteSink)} will write. */
        long estimatedSize() {
            return bitsPerKey == 0 ? 0 : bitBytes() + 1;
        }

        /** Writes the filter block payload. */
        void finish(ByteSink out) {
            if (bitsPerKey == 0) {
                return;
            }
            int probes = Math.max(1, Math.min(MAX_PROBES, (int) (bitsPerKey * 0.69)));
            int bitBytes = bitBytes();
            byte[] bits = new byte[bitBytes];
            long bitCount = (long) bitBytes * 8;
            for (int j = 0; j < count; j++) {
                int h = hashes[j];
                int delta = Integer.rotateRight(h, 17);
                for (int i = 0; i < probes; i++) {
                    long bit = Integer.toUnsignedLong(h) % bitCount;
                    bits[(int) (bit >>> 3)] |= (byte) (1 << (bit & 7));
                    h += delta;
                }
            }
            out.putBytes(bits, 0, bitBytes);
            out.putByte(probes);
        }

        private int bitBytes() {
            // A tiny filter has a high false-positive rate whatever bitsPerKey says: use at least 64 bits.
            long bits = Math.max(64, (long) count * bitsPerKey);
            return (int) Math.min(Integer.MAX_VALUE - 64, (bits + 7) / 8);
        }
    }
}
