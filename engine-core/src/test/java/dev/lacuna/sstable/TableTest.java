package dev.lacuna.sstable;

import dev.lacuna.kv.SstableOptions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.storage.CorruptionException;
import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TableTest {
    private static final int PARTITIONS = 20;

    @ParameterizedTest(name = "blockSize {0}, restart {1}, compression {2}")
    @CsvSource({
            "64, 1, true", "64, 4, false", "256, 16, true", "256, 2, false",
            "4096, 16, true", "4096, 16, false", "1, 16, true", "16384, 128, true"})
    void shouldMatchATreeMapModelForwardBackwardAndUnderRandomSeeks(int blockSize, int restart, boolean compression)
            throws IOException {
        Random random = new Random(blockSize * 7919L + restart * 31L + (compression ? 1 : 0));
        TreeMap<byte[], byte[]> model = TestTables.randomEntries(random, 3000, PARTITIONS, 60);
        byte[][] keys = model.keySet().toArray(new byte[0][]);
        SstableOptions options = SstableOptions.defaults().withBlockSize(blockSize).withRestartInterval(restart)
                .withCompression(compression).withKeyPrefix(TestTables.PARTITION);
        MemVfs vfs = new MemVfs();
        SstableProperties written = TestTables.write(vfs, "1.sst", model, options, 1000);
        try (SstableReader reader = TestTables.open(vfs, "1.sst", 1, new BlockCache(1 << 20))) {
            assertThat(reader.properties()).isEqualTo(written);
            try (InternalIterator it = reader.iterator()) {
                IteratorChecks.fullScans(it, model);
                IteratorChecks.randomOperations(random, it, model, keys, PARTITIONS, 3000 * 4, 20000);
            }
        }
    }

    @Test
    void shouldReturnTheNewestVisibleVersionAtEverySnapshot() throws IOException {
        Random random = new Random(5);
        TreeMap<byte[], byte[]> model = TestTables.randomEntries(random, 2000, PARTITIONS, 30);
        MemVfs vfs = new MemVfs();
        SstableOptions options = SstableOptions.defaults().withBlockSize(128).withKeyPrefix(TestTables.PARTITION);
        TestTables.write(vfs, "1.sst", model, options, 0);
        long maxSequence = InternalKey.sequence(model.keySet().stream()
                .max((a, b) -> Long.compare(InternalKey.sequence(a), InternalKey.sequence(b))).orElseThrow());
        int checked = 0;
        try (SstableReader reader = TestTables.open(vfs, "1.sst", 1, new BlockCache(1 << 20))) {
            for (byte[] key : model.keySet()) {
                byte[] user = InternalKey.userKey(key);
                long sequence = InternalKey.sequence(key);
                for (long snapshot : new long[] {sequence - 1, sequence, sequence + 1, maxSequence,
                        InternalKey.MAX_SEQUENCE, 0}) {
                    if (snapshot < 0) {
                        continue;
                    }
                    Map.Entry<byte[], byte[]> expected = TestTables.modelGet(model, user, snapshot);
                    SstableReader.Entry actual = reader.get(user, snapshot);
                    if (expected == null) {
                        assertThat(actual).as("get %s at %d", new String(user, StandardCharsets.US_ASCII), snapshot)
                                .isNull();
                    } else {
                        assertThat(actual).isNotNull();
                        assertThat(actual.key()).isEqualTo(expected.getKey());
                        assertThat(actual.value()).isEqualTo(expected.getValue());
                    }
                    checked++;
                }
            }
            // Absent user keys: inside the key range, before it and after it.
            for (int i = 0; i < 2000; i++) {
                byte[] user = TestTables.userKey(random.nextInt(PARTITIONS + 2), random.nextInt(20000));
                Map.Entry<byte[], byte[]> expected = TestTables.modelGet(model, user, InternalKey.MAX_SEQUENCE);
                SstableReader.Entry actual = reader.get(user, InternalKey.MAX_SEQUENCE);
                assertThat(actual == null).isEqualTo(expected == null);
            }
            assertThat(reader.get("a".getBytes(StandardCharsets.US_ASCII), 5)).isNull();
            assertThat(reader.get("zzz".getBytes(StandardCharsets.US_ASCII), 5)).isNull();
            assertThat(reader.get(new byte[0], 5)).isNull();
            assertThatThrownBy(() -> reader.get(new byte[1], -1)).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(checked).isGreaterThan(10000);
    }

    @Test
    void shouldRecordExactProperties() throws IOException {
        Random random = new Random(8);
        TreeMap<byte[], byte[]> model = TestTables.randomEntries(random, 1000, PARTITIONS, 40);
        long deletions = model.keySet().stream().filter(InternalKey::isDeletion).count();
        long rawKeys = model.keySet().stream().mapToLong(k -> k.length).sum();
        long rawValues = model.values().stream().mapToLong(v -> v.length).sum();
        long minSeq = model.keySet().stream().mapToLong(InternalKey::sequence).min().orElseThrow();
        long maxSeq = model.keySet().stream().mapToLong(InternalKey::sequence).max().orElseThrow();
        MemVfs vfs = new MemVfs();
        SstableProperties p = TestTables.write(vfs, "1.sst", model, SstableOptions.defaults().withBlockSize(512),
                1_700_000_000_000L);
        assertThat(p.formatVersion()).isEqualTo(1);
        assertThat(p.entries()).isEqualTo(model.size());
        assertThat(p.deletions()).isEqualTo(deletions).isPositive();
        assertThat(p.rawKeySize()).isEqualTo(rawKeys);
        assertThat(p.rawValueSize()).isEqualTo(rawValues);
        assertThat(p.smallestKey()).isEqualTo(model.firstKey());
        assertThat(p.largestKey()).isEqualTo(model.lastKey());
        assertThat(p.minSequence()).isEqualTo(minSeq);
        assertThat(p.maxSequence()).isEqualTo(maxSeq);
        assertThat(p.oldestTombstoneTime()).isEqualTo(1_700_000_000_000L);
        assertThat(p.dataBlocks()).isGreaterThan(10);
        assertThat(p.tombstoneDensity()).isEqualTo((double) deletions / model.size());
        try (SstableReader reader = TestTables.open(vfs, "1.sst", 1, new BlockCache(0))) {
            assertThat(reader.properties()).isEqualTo(p);
            assertThat(reader.properties().dataSize()).isLessThan(vfs.size(TestTables.DIR.resolve("1.sst")));
            assertThat(reader.fileNumber()).isEqualTo(1);
        }

        // Without deletions the tombstone time is MAX_VALUE whatever the caller said.
        TreeMap<byte[], byte[]> puts = TestTables.model();
        model.forEach((k, v) -> {
            if (!InternalKey.isDeletion(k)) {
                puts.put(k, v);
            }
        });
        SstableProperties q = TestTables.write(vfs, "2.sst", puts, SstableOptions.defaults(), 5);
        assertThat(q.deletions()).isZero();
        assertThat(q.oldestTombstoneTime()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void shouldHaveNoFalseNegativesAndAboutOnePercentFalsePositives() throws IOException {
        Random random = new Random(13);
        TreeMap<byte[], byte[]> model = TestTables.model();
        List<byte[]> users = new ArrayList<>();
        for (int p = 0; p < 500; p += 2) { // even partitions only
            for (int i = 0; i < 20; i++) {
                byte[] user = TestTables.userKey(p, i * 2); // even items only
                users.add(user);
                model.put(InternalKey.encode(user, random.nextInt(1000) + 1, InternalKey.KIND_PUT), new byte[3]);
            }
        }
        MemVfs vfs = new MemVfs();
        TestTables.write(vfs, "1.sst", model, SstableOptions.defaults().withKeyPrefix(TestTables.PARTITION), 0);
        try (SstableReader reader = TestTables.open(vfs, "1.sst", 1, new BlockCache(0))) {
            for (byte[] user : users) {
                assertThat(reader.mayContainKey(user)).isTrue();
                assertThat(reader.mayContainPrefix(Arrays.copyOf(user, 5))).isTrue();
            }
            int falseKeys = 0;
            int absentKeys = 0;
            for (int p = 0; p < 500; p++) {
                for (int i = 1; i < 40; i += 2) {
                    absentKeys++;
                    if (reader.mayContainKey(TestTables.userKey(p, i))) {
                        falseKeys++;
                    }
                }
            }
            int falsePrefixes = 0;
            int absentPrefixes = 0;
            for (int p = 1; p < 20000; p += 2) {
                absentPrefixes++;
                byte[] prefix = String.format("p%03d/", p).getBytes(StandardCharsets.US_ASCII);
                if (p >= 1000) {
                    prefix = String.format("q%04d", p).getBytes(StandardCharsets.US_ASCII);
                }
                if (reader.mayContainPrefix(prefix)) {
                    falsePrefixes++;
                }
            }
            double keyRate = (double) falseKeys / absentKeys;
            double prefixRate = (double) falsePrefixes / absentPrefixes;
            System.out.printf("bloom false positives: keys %.4f, prefixes %.4f%n", keyRate, prefixRate);
            // 10 bits per key with 6 probes: ~0.84% in theory.
            assertThat(keyRate).isLessThan(0.025);
            assertThat(prefixRate).isLessThan(0.025);
        }
    }

    @Test
    void shouldAnswerMaybeForEverythingWithoutAFilter() throws IOException {
        TreeMap<byte[], byte[]> model = TestTables.randomEntries(new Random(2), 50, 3, 10);
        MemVfs vfs = new MemVfs();
        TestTables.write(vfs, "1.sst", model, SstableOptions.defaults().withBloomBitsPerKey(0), 0);
        try (SstableReader reader = TestTables.open(vfs, "1.sst", 1, new BlockCache(0))) {
            assertThat(reader.mayContainKey("nothing".getBytes(StandardCharsets.US_ASCII))).isTrue();
            assertThat(reader.mayContainPrefix(new byte[0])).isTrue();
            for (byte[] k : model.keySet()) {
                assertThat(reader.get(InternalKey.userKey(k), InternalKey.MAX_SEQUENCE)).isNotNull();
            }
        }
    }

    @Test
    void shouldServeRepeatedReadsFromTheBlockCache() throws IOException {
        TreeMap<byte[], byte[]> model = TestTables.randomEntries(new Random(21), 500, PARTITIONS, 40);
        MemVfs vfs = new MemVfs();
        SstableProperties p = TestTables.write(vfs, "7.sst", model, SstableOptions.defaults().withBlockSize(256), 0);
        BlockCache cache = new BlockCache(4 << 20);
        try (SstableReader reader = TestTables.open(vfs, "7.sst", 7, cache)) {
            try (InternalIterator it = reader.iterator()) {
                TestTables.forward(it);
            }
            assertThat(cache.misses()).isEqualTo(p.dataBlocks());
            assertThat(cache.hits()).isZero();
            assertThat(cache.size()).isEqualTo((int) p.dataBlocks());
            assertThat(cache.usedBytes()).isPositive().isLessThanOrEqualTo(cache.capacity());
            try (InternalIterator it = reader.iterator()) {
                TestTables.backward(it);
            }
            assertThat(cache.misses()).isEqualTo(p.dataBlocks());
            assertThat(cache.hits()).isEqualTo(p.dataBlocks());
            byte[] someKey = model.firstKey();
            assertThat(reader.get(InternalKey.userKey(someKey), InternalKey.MAX_SEQUENCE)).isNotNull();
            assertThat(cache.hits()).isEqualTo(p.dataBlocks() + 1);

            cache.evictFile(7);
            assertThat(cache.size()).isZero();
            assertThat(cache.usedBytes()).isZero();
            assertThat(cache.evictions()).isZero();
            try (InternalIterator it = reader.iterator(false)) {
                assertThat(TestTables.sameEntries(TestTables.forward(it), TestTables.entries(model))).isTrue();
            }
            assertThat(cache.size()).isZero();
            assertThat(cache.misses()).isEqualTo(2 * p.dataBlocks());
        }
    }

    @Test
    void shouldCompressBlocksOnlyWhenItPays() throws IOException {
        TreeMap<byte[], byte[]> compressible = TestTables.model();
        TreeMap<byte[], byte[]> random = TestTables.model();
        Random r = new Random(4);
        for (int i = 0; i < 2000; i++) {
            byte[] user = TestTables.userKey(i % 10, i);
            byte[] text = ("item number " + i + " is in a queue, and its status is open; ").repeat(2)
                    .getBytes(StandardCharsets.US_ASCII);
            compressible.put(InternalKey.encode(user, i + 1, 1), text);
            byte[] noise = new byte[text.length];
            r.nextBytes(noise);
            random.put(InternalKey.encode(user, i + 1, 1), noise);
        }
        MemVfs vfs = new MemVfs();
        SstableOptions on = SstableOptions.defaults();
        SstableOptions off = on.withCompression(false);
        long onSize = TestTables.write(vfs, "a.sst", compressible, on, 0).dataSize();
        long offSize = TestTables.write(vfs, "b.sst", compressible, off, 0).dataSize();
        long noiseOn = TestTables.write(vfs, "c.sst", random, on, 0).dataSize();
        long noiseOff = TestTables.write(vfs, "d.sst", random, off, 0).dataSize();
        assertThat(onSize).isLessThan(offSize / 2);
        assertThat(noiseOn).isEqualTo(noiseOff); // incompressible blocks are stored as they are
        for (String name : List.of("a.sst", "b.sst", "c.sst", "d.sst")) {
            try (SstableReader reader = TestTables.open(vfs, name, 1, new BlockCache(0));
                 InternalIterator it = reader.iterator()) {
                TreeMap<byte[], byte[]> expected = name.compareTo("c") < 0 ? compressible : random;
                assertThat(TestTables.sameEntries(TestTables.forward(it), TestTables.entries(expected))).isTrue();
            }
        }
    }

    @Test
    void shouldShortenIndexSeparatorsWithinTheirBounds() {
        byte[] last = InternalKey.encode("abcdefgh".getBytes(StandardCharsets.US_ASCII), 5, 1);
        byte[] next = InternalKey.encode("abzz".getBytes(StandardCharsets.US_ASCII), 9, 1);
        byte[] s = SstableWriter.separator(last, last.length, next);
        assertThat(InternalKey.userKey(s)).isEqualTo("abd".getBytes(StandardCharsets.US_ASCII));
        assertThat(InternalKey.compare(last, s)).isNegative();
        assertThat(InternalKey.compare(s, next)).isNegative();
        // Same user key, a prefix, or adjacent bytes: no shorter separator, the last key itself.
        byte[] sameUser = InternalKey.encode("abcdefgh".getBytes(StandardCharsets.US_ASCII), 4, 1);
        assertThat(SstableWriter.separator(last, last.length, sameUser)).isEqualTo(last);
        byte[] longer = InternalKey.encode("abcdefghij".getBytes(StandardCharsets.US_ASCII), 4, 1);
        assertThat(SstableWriter.separator(last, last.length, longer)).isEqualTo(last);
        byte[] adjacent = InternalKey.encode("abd".getBytes(StandardCharsets.US_ASCII), 4, 1);
        assertThat(SstableWriter.separator(last, last.length, adjacent)).isEqualTo(last);
    }

    @Test
    void shouldRejectOutOfOrderDuplicateAndMalformedEntries() throws IOException {
        MemVfs vfs = new MemVfs();
        vfs.mkdirs(TestTables.DIR);
        try (VfsFile file = vfs.create(TestTables.DIR.resolve("1.sst"))) {
            SstableWriter writer = new SstableWriter(file, SstableOptions.defaults(), 0, TestTables.LZ4);
            assertThatThrownBy(writer::finish).isInstanceOf(IllegalStateException.class);
            byte[] b = InternalKey.encode("b".getBytes(StandardCharsets.US_ASCII), 5, 1);
            writer.add(b, new byte[1]);
            assertThatThrownBy(() -> writer.add(b, new byte[1])).isInstanceOf(IllegalArgumentException.class);
            byte[] a = InternalKey.encode("a".getBytes(StandardCharsets.US_ASCII), 5, 1);
            assertThatThrownBy(() -> writer.add(a, new byte[1])).isInstanceOf(IllegalArgumentException.class);
            byte[] newerB = InternalKey.encode("b".getBytes(StandardCharsets.US_ASCII), 6, 1);
            assertThatThrownBy(() -> writer.add(newerB, new byte[1])).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> writer.add(new byte[7], new byte[1])).isInstanceOf(IllegalArgumentException.class);
            byte[] badKind = InternalKey.encode("c".getBytes(StandardCharsets.US_ASCII), 5, 9);
            assertThatThrownBy(() -> writer.add(badKind, new byte[1])).isInstanceOf(IllegalArgumentException.class);
            // After rejected entries the writer still works: an older version of b is fine.
            writer.add(InternalKey.encode("b".getBytes(StandardCharsets.US_ASCII), 4, 0), new byte[0]);
            writer.finish();
            assertThatThrownBy(() -> writer.add(newerB, new byte[1])).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(writer::finish).isInstanceOf(IllegalStateException.class);
        }
        try (VfsFile file = vfs.create(TestTables.DIR.resolve("2.sst"))) {
            SstableWriter writer = new SstableWriter(file, SstableOptions.defaults(), 0, TestTables.LZ4);
            writer.add(InternalKey.encode("a".getBytes(StandardCharsets.US_ASCII), 1, 1), new byte[1]);
            writer.abandon();
            assertThatThrownBy(writer::finish).isInstanceOf(IllegalStateException.class);
        }
        SstableOptions badPrefix = SstableOptions.defaults().withKeyPrefix(k -> k.length + 1);
        try (VfsFile file = vfs.create(TestTables.DIR.resolve("3.sst"))) {
            SstableWriter writer = new SstableWriter(file, badPrefix, 0, TestTables.LZ4);
            assertThatThrownBy(() -> writer.add(InternalKey.encode(new byte[3], 1, 1), new byte[0]))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> SstableOptions.defaults().withBlockSize(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SstableOptions.defaults().withRestartInterval(0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SstableOptions.defaults().withBloomBitsPerKey(-1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldRejectEveryTruncationOfATable() throws IOException {
        TreeMap<byte[], byte[]> model = TestTables.randomEntries(new Random(17), 40, 3, 20);
        MemVfs vfs = new MemVfs();
        TestTables.write(vfs, "1.sst", model, SstableOptions.defaults().withBlockSize(64), 0);
        byte[] content = vfs.readAll(TestTables.DIR.resolve("1.sst"));
        for (int length = 0; length < content.length; length++) {
            MemVfs cut = new MemVfs();
            cut.mkdirs(TestTables.DIR);
            try (VfsFile f = cut.create(TestTables.DIR.resolve("1.sst"))) {
                f.write(0, content, 0, length);
            }
            int size = length;
            assertThatThrownBy(() -> TestTables.open(cut, "1.sst", 1, new BlockCache(0)))
                    .isInstanceOfSatisfying(CorruptionException.class, e -> {
                        assertThat(e.file()).isEqualTo(TestTables.DIR.resolve("1.sst").toString());
                        assertThat(e.offset()).isBetween(0L, (long) Math.max(0, size - 1));
                    });
        }
    }

    @Test
    void shouldRejectAFileThatIsNotATable() throws IOException {
        MemVfs vfs = new MemVfs();
        vfs.mkdirs(TestTables.DIR);
        byte[] junk = new byte[500];
        new Random(1).nextBytes(junk);
        try (VfsFile f = vfs.create(TestTables.DIR.resolve("junk.sst"))) {
            f.write(0, junk, 0, junk.length);
        }
        assertThatThrownBy(() -> TestTables.open(vfs, "junk.sst", 1, new BlockCache(0)))
                .isInstanceOfSatisfying(CorruptionException.class, e -> assertThat(e.offset()).isEqualTo(448));
    }

    @Test
    void shouldServeConcurrentIteratorsAndGets() throws Exception {
        TreeMap<byte[], byte[]> model = TestTables.randomEntries(new Random(99), 3000, PARTITIONS, 40);
        byte[][] keys = model.keySet().toArray(new byte[0][]);
        MemVfs vfs = new MemVfs();
        TestTables.write(vfs, "1.sst", model, SstableOptions.defaults().withBlockSize(512), 0);
        BlockCache cache = new BlockCache(16 << 10); // small: blocks are evicted and reloaded concurrently
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try (SstableReader reader = TestTables.open(vfs, "1.sst", 1, cache)) {
            List<Future<?>> tasks = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int seed = t;
                tasks.add(pool.submit(() -> {
                    Random random = new Random(seed);
                    if (seed % 2 == 0) {
                        try (InternalIterator it = reader.iterator()) {
                            IteratorChecks.randomOperations(random, it, model, keys, PARTITIONS, 12000, 3000);
                        }
                    } else {
                        for (int i = 0; i < 3000; i++) {
                            byte[] k = keys[random.nextInt(keys.length)];
                            SstableReader.Entry e = reader.get(InternalKey.userKey(k), InternalKey.MAX_SEQUENCE);
                            Map.Entry<byte[], byte[]> expected =
                                    TestTables.modelGet(model, InternalKey.userKey(k), InternalKey.MAX_SEQUENCE);
                            assertThat(e.key()).isEqualTo(expected.getKey());
                            assertThat(e.value()).isEqualTo(expected.getValue());
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : tasks) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(cache.evictions()).isPositive();
        assertThat(cache.usedBytes()).isLessThanOrEqualTo(cache.capacity());
    }
}
