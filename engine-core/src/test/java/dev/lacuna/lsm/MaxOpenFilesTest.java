package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvCursor;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.KvSnapshot;
import dev.lacuna.kv.SstableOptions;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * {@link KvOptions#maxOpenFiles()}: with far more tables than the limit, reads, scans and compactions stay
 * correct while the SSTables open for reading (counted at the file system: opens minus closes) never exceed
 * the limit plus the tables in use at that moment; a cursor kept open while its tables are evicted and
 * reopened under it still reads its snapshot; close leaves no table open.
 */
class MaxOpenFilesTest {
    private static final Path DIR = Path.of("/db");
    private static final int LIMIT = 8;
    private static final int KEYS = 5000;
    /**
     * The most tables in use at once while writes go on (one background thread): a cursor held across the
     * writes pins its level-0 tables (at most {@code l0StopWritesTrigger} plus the 4 frozen memtables
     * flushed meanwhile) and one per deeper level; a compaction pins as many level-0 inputs and one table
     * of the next level; a point read pins one; and an open briefly counts before the cache makes room.
     */
    private static final int IN_USE = (4 + 4 + Version.LEVELS - 1) + (4 + 4 + 1) + 1 + 1;

    @Test
    void shouldKeepAtMostMaxOpenFilesOpenWhileReadingManyTables() {
        OpenFileCountingVfs vfs = new OpenFileCountingVfs(new MemVfs());
        Random random = new Random(15);
        TreeMap<String, byte[]> model = new TreeMap<>();
        long checked = 0;
        int tables;
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            for (int i = 0; i < 8000; i++) {
                String key = key(random.nextInt(KEYS));
                if (random.nextInt(8) == 0) {
                    kv.delete(b(key));
                    model.remove(key);
                } else {
                    byte[] value = value(key, i);
                    kv.put(b(key), value);
                    model.put(key, value);
                }
                if (i % 200 == 199) {
                    checked += checkSomeGets(kv, model, random, 50);
                    int from = random.nextInt(KEYS);
                    checked += checkScan(kv, model.subMap(key(from), true, key(from + 300), false), key(from),
                            key(from + 300), null);
                }
            }
            kv.flush();
            tables = (int) kv.stats().files();
            assertThat(tables).as("tables the workload made").isGreaterThanOrEqualTo(100);

            // A cursor at a snapshot, part read, kept open while everything is rewritten, compacted and read.
            NavigableMap<String, byte[]> atSnapshot = new TreeMap<>(model);
            try (KvSnapshot snapshot = kv.snapshot();
                 KvCursor held = kv.scan(null, null, false, snapshot)) {
                var expected = atSnapshot.entrySet().iterator();
                for (int n = 0; n < 100; n++, held.next()) {
                    checked += checkEntry(held, expected.next());
                }
                for (int i = 0; i < KEYS; i++) {
                    byte[] value = value(key(i), -i);
                    kv.put(b(key(i)), value);
                    model.put(key(i), value);
                }
                kv.compactRange(null, null);
                checked += checkSomeGets(kv, model, random, 2000);
                while (expected.hasNext()) {
                    checked += checkEntry(held, expected.next());
                    held.next();
                }
                assertThat(held.valid()).as("the held cursor ends with its snapshot").isFalse();
            }
            checked += checkScan(kv, model, null, null, null);
            assertThat(vfs.max()).as("tables open at once, with at most %d in use (limit %d)", IN_USE, LIMIT)
                    .isLessThanOrEqualTo(LIMIT + IN_USE);
        }
        int maxWhileWriting = vfs.max();
        assertThat(vfs.open()).as("tables left open by close").isZero();

        // Read-only after a reopen: nothing else pins a table, so the limit holds but for one table being opened.
        int opensBefore = vfs.opens();
        vfs.resetMax();
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            checked += checkSomeGets(kv, model, random, 2000);
            checked += checkScan(kv, model, null, null, null);
            assertThat(vfs.max()).as("tables open at once while only reading").isLessThanOrEqualTo(LIMIT + 1);
            assertThat(vfs.opens() - opensBefore).as("tables opened again after their eviction")
                    .isGreaterThan((int) kv.stats().files());
        }
        assertThat(vfs.open()).as("tables left open by close").isZero();
        System.out.println("max open files: limit " + LIMIT + ", tables " + tables + ", most open at once "
                + maxWhileWriting + " while writing and " + vfs.max() + " while reading, reads checked " + checked
                + ", open after close: " + vfs.open());
    }

    private static long checkSomeGets(LsmStore kv, Map<String, byte[]> model, Random random, int n) {
        for (int i = 0; i < n; i++) {
            String key = key(random.nextInt(KEYS));
            assertThat(kv.get(b(key))).as("get %s", key).isEqualTo(model.get(key));
        }
        return n;
    }

    private static long checkScan(LsmStore kv, Map<String, byte[]> expected, String from, String to,
                                  KvSnapshot snapshot) {
        long n = 0;
        try (KvCursor c = kv.scan(from == null ? null : b(from), to == null ? null : b(to), false, snapshot)) {
            for (Map.Entry<String, byte[]> e : expected.entrySet()) {
                n += checkEntry(c, e);
                c.next();
            }
            assertThat(c.valid()).as("scan ends where the model does").isFalse();
        }
        return n;
    }

    private static long checkEntry(KvCursor c, Map.Entry<String, byte[]> e) {
        assertThat(c.valid()).as("cursor at %s", e.getKey()).isTrue();
        assertThat(new String(c.key(), StandardCharsets.UTF_8)).isEqualTo(e.getKey());
        assertThat(c.value()).as("value of %s", e.getKey()).isEqualTo(e.getValue());
        return 1;
    }

    private static KvOptions options(OpenFileCountingVfs vfs) {
        return KvOptions.builder().vfs(vfs).durability(Durability.NONE).partitions(1)
                .memtableBytes(8 << 10).targetFileBytes(4 << 10).levelBaseBytes(64 << 10).levelMultiplier(4)
                .l0CompactionTrigger(2).l0StopWritesTrigger(4).backgroundThreads(1)
                .table(SstableOptions.defaults().withBlockSize(1024)).maxOpenFiles(LIMIT).build();
    }

    private static String key(int i) {
        return String.format("k%06d", i);
    }

    private static byte[] value(String key, int version) {
        byte[] v = new byte[100];
        new Random(key.hashCode() * 31L + version).nextBytes(v); // incompressible: the tables stay many
        byte[] k = b(key + "@" + version);
        System.arraycopy(k, 0, v, 0, k.length);
        return v;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
