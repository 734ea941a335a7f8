package dev.lacuna.sstable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.storage.CorruptionException;
import dev.lacuna.base.InternalKey;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BlockTest {
    private static byte[] key(String user, long sequence) {
        return InternalKey.encode(user.getBytes(StandardCharsets.US_ASCII), sequence, InternalKey.KIND_PUT);
    }

    private static Block build(TreeMap<byte[], byte[]> model, int restartInterval) {
        BlockBuilder builder = new BlockBuilder(restartInterval, 256);
        for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
            builder.add(e.getKey(), e.getValue());
        }
        int estimated = builder.estimatedSize();
        ByteSink contents = builder.finish();
        assertThat(contents.size()).isEqualTo(estimated);
        return new Block(Arrays.copyOf(contents.array(), contents.size()), contents.size(), "test.sst", 100);
    }

    /** Twenty keys with shared prefixes, a restart every 3. */
    private static TreeMap<byte[], byte[]> smallModel() {
        TreeMap<byte[], byte[]> model = TestTables.model();
        for (int i = 0; i < 20; i++) {
            model.put(key("key" + (char) ('a' + i / 3) + (i % 3), 100 - i), ("value" + i).getBytes(StandardCharsets.US_ASCII));
        }
        return model;
    }

    @Test
    void shouldIterateForwardAndBackwardAcrossRestartPoints() {
        TreeMap<byte[], byte[]> model = smallModel();
        Block block = build(model, 3);
        assertThat(block.restartCount()).isEqualTo(7);
        try (BlockIterator it = block.iterator()) {
            assertThat(TestTables.sameEntries(TestTables.forward(it), TestTables.entries(model))).isTrue();
            List<Map.Entry<byte[], byte[]>> reversed = new ArrayList<>(model.descendingMap().entrySet());
            assertThat(TestTables.sameEntries(TestTables.backward(it), reversed)).isTrue();
        }
    }

    @Test
    void shouldSeekToExactBetweenAndOutsideKeys() {
        TreeMap<byte[], byte[]> model = smallModel();
        Block block = build(model, 3);
        try (BlockIterator it = block.iterator()) {
            for (byte[] k : model.keySet()) {
                it.seek(k);
                assertThat(it.key()).isEqualTo(k);
                it.seekForPrev(k);
                assertThat(it.key()).isEqualTo(k);
            }
            // Before everything, after everything.
            it.seek(key("a", 1));
            assertThat(it.key()).isEqualTo(model.firstKey());
            it.seekForPrev(key("a", 1));
            assertThat(it.valid()).isFalse();
            it.seek(key("z", 1));
            assertThat(it.valid()).isFalse();
            it.seekForPrev(key("z", 1));
            assertThat(it.key()).isEqualTo(model.lastKey());
            // Same user key, newer and older sequence than stored: the trailer orders descending.
            byte[] stored = model.firstKey();
            byte[] newer = InternalKey.encode(InternalKey.userKey(stored), InternalKey.sequence(stored) + 1, 1);
            it.seek(newer);
            assertThat(it.key()).isEqualTo(stored);
            it.seekForPrev(newer);
            assertThat(it.valid()).isFalse();
            byte[] older = InternalKey.encode(InternalKey.userKey(stored), InternalKey.sequence(stored) - 1, 1);
            it.seek(older);
            assertThat(it.key()).isEqualTo(model.higherKey(stored));
            it.seekForPrev(older);
            assertThat(it.key()).isEqualTo(stored);
        }
    }

    @Test
    void shouldStepBackOverEveryRestartBoundary() {
        TreeMap<byte[], byte[]> model = smallModel();
        byte[][] keys = model.keySet().toArray(new byte[0][]);
        Block block = build(model, 3);
        try (BlockIterator it = block.iterator()) {
            for (int i = 0; i < keys.length; i++) {
                it.seek(keys[i]);
                it.prev();
                if (i == 0) {
                    assertThat(it.valid()).isFalse();
                } else {
                    assertThat(it.key()).isEqualTo(keys[i - 1]);
                    it.next();
                    assertThat(it.key()).isEqualTo(keys[i]);
                }
            }
        }
    }

    @Test
    void shouldTreatAnEmptyBlockAsHavingNoEntries() {
        Block block = build(TestTables.model(), 16);
        assertThat(block.restartCount()).isEqualTo(1);
        try (BlockIterator it = block.iterator()) {
            it.seekToFirst();
            assertThat(it.valid()).isFalse();
            it.seekToLast();
            assertThat(it.valid()).isFalse();
            it.seek(key("a", 1));
            assertThat(it.valid()).isFalse();
            it.seekForPrev(key("a", 1));
            assertThat(it.valid()).isFalse();
            assertThatThrownBy(it::next).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(it::key).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void shouldHandleASingleEntryAndEmptyValues() {
        TreeMap<byte[], byte[]> model = TestTables.model();
        model.put(key("only", 7), new byte[0]);
        Block block = build(model, 16);
        try (BlockIterator it = block.iterator()) {
            it.seekToLast();
            assertThat(it.key()).isEqualTo(model.firstKey());
            assertThat(it.value()).isEmpty();
            it.prev();
            assertThat(it.valid()).isFalse();
            it.seekToFirst();
            it.next();
            assertThat(it.valid()).isFalse();
        }
    }

    @Test
    void shouldStoreLongKeysAndValuesWithMultiByteLengths() {
        TreeMap<byte[], byte[]> model = TestTables.model();
        Random random = new Random(3);
        for (int i = 0; i < 10; i++) {
            byte[] user = new byte[200 + random.nextInt(300)];
            random.nextBytes(user);
            byte[] value = new byte[random.nextInt(1000)];
            random.nextBytes(value);
            model.put(InternalKey.encode(user, i, 1), value);
        }
        Block block = build(model, 2);
        try (BlockIterator it = block.iterator()) {
            assertThat(TestTables.sameEntries(TestTables.forward(it), TestTables.entries(model))).isTrue();
        }
    }

    @ParameterizedTest(name = "restart interval {0}, {1} keys")
    @CsvSource({"1, 200", "2, 200", "3, 500", "16, 1000", "64, 1000", "1000, 300"})
    void shouldMatchATreeMapModelUnderRandomOperations(int restartInterval, int userKeys) {
        Random random = new Random(restartInterval * 31L + userKeys);
        TreeMap<byte[], byte[]> model = TestTables.randomEntries(random, userKeys, 7, 24);
        byte[][] keys = model.keySet().toArray(new byte[0][]);
        Block block = build(model, restartInterval);
        try (BlockIterator it = block.iterator()) {
            assertThat(TestTables.sameEntries(TestTables.forward(it), TestTables.entries(model))).isTrue();
            assertThat(TestTables.sameEntries(TestTables.backward(it),
                    new ArrayList<>(model.descendingMap().entrySet()))).isTrue();
            IteratorChecks.randomOperations(random, it, model, keys, 7, userKeys * 4, 3000);
        }
    }

    @Test
    void shouldCompareExactlyLikeInternalKeyComparator() {
        Random random = new Random(11);
        for (int i = 0; i < 20000; i++) {
            byte[] a = new byte[8 + random.nextInt(4)];
            byte[] b = new byte[8 + random.nextInt(4)];
            random.nextBytes(a);
            random.nextBytes(b);
            if (random.nextBoolean()) {
                System.arraycopy(a, 0, b, 0, Math.min(a.length, b.length) - random.nextInt(2));
            }
            assertThat(Integer.signum(SstableFormat.compareInternal(a, 0, a.length, b, 0, b.length)))
                    .isEqualTo(Integer.signum(InternalKey.compare(a, b)));
        }
    }

    @Test
    void shouldRejectAMalformedRestartArray() {
        byte[] tooMany = new byte[8];
        SstableFormat.putInt(tooMany, 4, 5);
        assertThatThrownBy(() -> new Block(tooMany, 8, "t.sst", 42))
                .isInstanceOfSatisfying(CorruptionException.class, e -> {
                    assertThat(e.file()).isEqualTo("t.sst");
                    assertThat(e.offset()).isEqualTo(42);
                });
        assertThatThrownBy(() -> new Block(new byte[3], 3, "t.sst", 42)).isInstanceOf(CorruptionException.class);
        byte[] unordered = new byte[20];
        SstableFormat.putInt(unordered, 8, 0);
        SstableFormat.putInt(unordered, 12, 9);
        SstableFormat.putInt(unordered, 16, 2);
        assertThatThrownBy(() -> new Block(unordered, 20, "t.sst", 42)).isInstanceOf(CorruptionException.class);
    }

    @Test
    void shouldRejectEntriesWhoseLengthsRunOutOfTheBlock() {
        TreeMap<byte[], byte[]> model = smallModel();
        Block good = build(model, 3);
        byte[] data = good.data().clone();
        data[2] = (byte) 0xFF; // the value length becomes a two-byte varint running far past the entries
        Block bad = new Block(data, data.length, "t.sst", 7);
        try (BlockIterator it = bad.iterator()) {
            assertThatThrownBy(it::seekToFirst).isInstanceOfSatisfying(CorruptionException.class,
                    e -> assertThat(e.offset()).isEqualTo(7));
        }
        byte[] shared = good.data().clone();
        shared[0] = 3; // a restart entry claiming to share bytes with nothing
        Block bad2 = new Block(shared, shared.length, "t.sst", 7);
        try (BlockIterator it = bad2.iterator()) {
            assertThatThrownBy(it::seekToFirst).isInstanceOf(CorruptionException.class);
            assertThatThrownBy(() -> it.seek(key("a", 1))).isInstanceOf(CorruptionException.class);
        }
    }

    /**
     * Value lengths of one, two and three varint bytes (the iterator decodes one and two bytes on a fast path),
     * around each boundary, with keys whose lengths take one byte and two; the last entry's value is empty, so
     * its three lengths are the last bytes before the restart array.
     */
    @Test
    void shouldDecodeValueLengthsOfOneTwoAndThreeBytes() {
        TreeMap<byte[], byte[]> model = TestTables.model();
        int[] lengths = {0, 1, 127, 128, 129, 255, 256, 16383, 16384, 20000, 5};
        for (int i = 0; i < lengths.length; i++) {
            byte[] value = new byte[lengths[i]];
            Arrays.fill(value, (byte) (0x80 | i)); // value bytes that are not valid one-byte lengths
            String user = "k" + (char) ('a' + i) + (i % 2 == 0 ? "" : "x".repeat(140));
            model.put(key(user, 7), value);
        }
        model.put(key("zz", 1), new byte[0]);
        for (int restartInterval : new int[] {1, 4}) {
            Block block = build(model, restartInterval);
            try (BlockIterator it = block.iterator()) {
                assertThat(TestTables.sameEntries(TestTables.forward(it), TestTables.entries(model))).isTrue();
                List<Map.Entry<byte[], byte[]>> reversed = new ArrayList<>(model.descendingMap().entrySet());
                assertThat(TestTables.sameEntries(TestTables.backward(it), reversed)).isTrue();
                for (byte[] k : model.keySet()) {
                    it.seek(k);
                    assertThat(it.key()).isEqualTo(k);
                    assertThat(it.value()).isEqualTo(model.get(k));
                    assertThat(Arrays.copyOf(it.keyBuffer(), it.keyLength())).isEqualTo(k);
                }
            }
        }
    }
}
