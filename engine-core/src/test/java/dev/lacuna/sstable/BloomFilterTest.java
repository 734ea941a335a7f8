package dev.lacuna.sstable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.storage.CorruptionException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class BloomFilterTest {
    private static int murmur(String s, int seed) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return BloomFilter.murmur3(b, 0, b.length, seed);
    }

    @Test
    void shouldComputeMurmur3ReferenceValues() {
        // Published MurmurHash3_x86_32 test vectors.
        assertThat(murmur("", 0)).isEqualTo(0);
        assertThat(murmur("", 1)).isEqualTo(0x514E28B7);
        assertThat(murmur("", 0xFFFFFFFF)).isEqualTo(0x81F16F39);
        assertThat(BloomFilter.murmur3(new byte[4], 0, 4, 0)).isEqualTo(0x2362F9DE);
        assertThat(murmur("a", 0x9747B28C)).isEqualTo(0x7FA09EA6);
        assertThat(murmur("aa", 0x9747B28C)).isEqualTo(0x5D211726);
        assertThat(murmur("aaa", 0x9747B28C)).isEqualTo(0x283E0130);
        assertThat(murmur("aaaa", 0x9747B28C)).isEqualTo(0x5A97808A);
        assertThat(murmur("abc", 0x9747B28C)).isEqualTo(0xC84A62DD);
        assertThat(murmur("abcd", 0x9747B28C)).isEqualTo(0xF0478627);
        assertThat(murmur("Hello, world!", 0x9747B28C)).isEqualTo(0x24884CBA);
        assertThat(murmur("The quick brown fox jumps over the lazy dog", 0x9747B28C)).isEqualTo(0x2FA826CD);
        // An offset into a larger array hashes the same bytes the same way.
        byte[] padded = "xxabcdyy".getBytes(StandardCharsets.UTF_8);
        assertThat(BloomFilter.murmur3(padded, 2, 4, 0x9747B28C)).isEqualTo(0xF0478627);
    }

    private static BloomFilter build(int bitsPerKey, int keys, int salt) {
        BloomFilter.Builder builder = new BloomFilter.Builder(bitsPerKey);
        for (int i = 0; i < keys; i++) {
            byte[] k = key(i, salt);
            builder.add(k, 0, k.length);
        }
        ByteSink out = new ByteSink(16);
        builder.finish(out);
        assertThat((long) out.size()).isEqualTo(builder.estimatedSize());
        return BloomFilter.parse(Arrays.copyOf(out.array(), out.size()), out.size(), "f", 0);
    }

    private static byte[] key(int i, int salt) {
        return ("key-" + salt + "-" + i).getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void shouldNeverGiveFalseNegativesAtAnySize() {
        for (int keys : new int[] {1, 2, 7, 100, 1000, 10000}) {
            for (int bits : new int[] {1, 5, 10, 20}) {
                BloomFilter filter = build(bits, keys, 0);
                for (int i = 0; i < keys; i++) {
                    byte[] k = key(i, 0);
                    assertThat(filter.mayContain(k, 0, k.length)).as("%d keys, %d bits", keys, bits).isTrue();
                }
            }
        }
    }

    @Test
    void shouldKeepFalsePositivesNearTheDesignedRate() {
        BloomFilter filter = build(10, 20000, 0);
        int positives = 0;
        int probes = 100000;
        for (int i = 0; i < probes; i++) {
            byte[] k = key(i, 1);
            if (filter.mayContain(k, 0, k.length)) {
                positives++;
            }
        }
        double rate = (double) positives / probes;
        assertThat(rate).isBetween(0.002, 0.02); // ~0.84% in theory for 10 bits and 6 probes
    }

    @Test
    void shouldWriteNoFilterForZeroBitsPerKey() {
        BloomFilter.Builder builder = new BloomFilter.Builder(0);
        builder.add(new byte[3], 0, 3);
        ByteSink out = new ByteSink(16);
        builder.finish(out);
        assertThat(out.size()).isZero();
        assertThat(BloomFilter.parse(out.array(), 0, "f", 0)).isNull();
    }

    @Test
    void shouldRejectABadProbeCount() {
        assertThatThrownBy(() -> BloomFilter.parse(new byte[] {1, 2, 0}, 3, "f.sst", 9))
                .isInstanceOfSatisfying(CorruptionException.class, e -> assertThat(e.offset()).isEqualTo(9));
        assertThatThrownBy(() -> BloomFilter.parse(new byte[] {1, 2, 31}, 3, "f.sst", 9))
                .isInstanceOf(CorruptionException.class);
        assertThatThrownBy(() -> BloomFilter.parse(new byte[] {6}, 1, "f.sst", 9))
                .isInstanceOf(CorruptionException.class);
    }

    @Test
    void shouldSpreadSimilarKeysAcrossTheBits() {
        // Sequential keys differing in one byte must not collide much (a weak hash would).
        BloomFilter filter = build(10, 5000, 7);
        int positives = 0;
        for (int i = 5000; i < 55000; i++) {
            byte[] k = key(i, 7);
            if (filter.mayContain(k, 0, k.length)) {
                positives++;
            }
        }
        assertThat(positives / 50000.0).isLessThan(0.02);
    }
}
