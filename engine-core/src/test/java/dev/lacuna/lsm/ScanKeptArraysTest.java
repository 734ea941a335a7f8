package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvStoreTest.DIR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvCursor;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.KvSnapshot;
import dev.lacuna.kv.SstableOptions;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A cursor's keys and values are the caller's to keep ({@link KvCursor#value()}: query pages decode their items'
 * values lazily, long after the cursor moved on), while the scan underneath reads each key in the iterators' own
 * buffers and copies only what it returns. Every key and value a scan returned is checked, after the scan ended,
 * against a copy taken when it was returned, and the scan against a model: forward and backward, bounded and not,
 * over a memtable alone, over memtables and level-0 tables together, after a compaction, with blocks small enough
 * that a scan crosses many, keys long enough to outgrow the iterators' buffers, several versions of each key,
 * deletions, a snapshot, and a compaction, newer writes and a cache too small to keep any block in mid-scan.
 */
class ScanKeptArraysTest {
    private static KvOptions options(long blockCacheBytes) {
        return KvOptions.builder().vfs(new MemVfs()).memtableBytes(1 << 20).blockCacheBytes(blockCacheBytes)
                .table(SstableOptions.defaults().withBlockSize(128).withRestartInterval(2))
                .tombstoneDensityTrigger(1.0).durability(Durability.NONE).build();
    }

    /** A key of 6 to about 110 bytes; neighbours share long prefixes. */
    private static String key(Random random) {
        int n = random.nextInt(300);
        return "key/" + "p".repeat(n % 7 == 0 ? 90 : n % 5) + "/" + n;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Random puts and deletions of random keys into the store and the model (of the latest values). */
    private static void write(LsmStore kv, TreeMap<String, String> model, Random random, int writes, String tag) {
        for (int i = 0; i < writes; i++) {
            String k = key(random);
            if (random.nextInt(5) == 0) {
                kv.delete(b(k));
                model.remove(k);
            } else {
                String v = tag + i + "/" + "v".repeat(random.nextInt(200)); // one- and two-byte value lengths
                kv.put(b(k), b(v));
                model.put(k, v);
            }
        }
    }

    @Test
    void shouldKeepEveryReturnedKeyAndValueUnchangedOverMemtablesTablesAndLevels() {
        Random random = new Random(7);
        try (LsmStore kv = LsmStore.open(DIR, options(64 << 10))) {
            TreeMap<String, String> model = new TreeMap<>();
            write(kv, model, random, 400, "m");
            checkScans(kv, model, null, "memtable only");
            for (int table = 0; table < 3; table++) {
                kv.flush();
                write(kv, model, random, 300, "t" + table);
            }
            checkScans(kv, model, null, "three level-0 tables and a memtable");
            TreeMap<String, String> atSnapshot = new TreeMap<>(model);
            try (KvSnapshot snapshot = kv.snapshot()) {
                for (int round = 0; round < 12; round++) { // more versions than a scan steps over one by one
                    write(kv, model, random, 200, "s" + round);
                }
                checkScans(kv, atSnapshot, snapshot, "at a snapshot, under twelve rounds of newer versions");
                checkScans(kv, model, null, "twelve rounds of versions");
                kv.compactRange(null, null);
                checkScans(kv, atSnapshot, snapshot, "at a snapshot, after a compaction");
                checkScans(kv, model, null, "after a compaction");
            }
        }
    }

    @Test
    void shouldKeepReturnedArraysWhenTablesAreCompactedAwayAndBlocksEvictedMidScan() {
        Random random = new Random(11);
        try (LsmStore kv = LsmStore.open(DIR, options(0))) { // no block stays cached: each is read anew
            TreeMap<String, String> model = new TreeMap<>();
            write(kv, model, random, 500, "a");
            kv.flush();
            write(kv, model, random, 300, "b");
            kv.flush();
            write(kv, model, random, 100, "c");
            for (boolean reverse : new boolean[] {false, true}) {
                TreeMap<String, String> atStart = new TreeMap<>(model);
                List<Map.Entry<String, String>> expected = new ArrayList<>(
                        (reverse ? atStart.descendingMap() : atStart).entrySet());
                Returned returned = new Returned();
                try (KvCursor c = kv.scan(null, null, reverse, null)) {
                    for (int i = 0; i < expected.size() / 2; i++, c.next()) {
                        returned.add(c);
                    }
                    // Newer versions of every key (ignored: the scan reads as of its start), then a compaction
                    // that deletes the tables the cursor reads (it keeps them open).
                    for (String k : atStart.keySet()) {
                        for (int v = 0; v < 10; v++) {
                            kv.put(b(k), b("newer" + v));
                            model.put(k, "newer" + v);
                        }
                    }
                    kv.compactRange(null, null);
                    for (; c.valid(); c.next()) {
                        returned.add(c);
                    }
                }
                returned.check(expected, (reverse ? "backward" : "forward") + " across a compaction");
            }
        }
    }

    private static void checkScans(LsmStore kv, TreeMap<String, String> model, KvSnapshot snapshot, String what) {
        List<String> keys = new ArrayList<>(model.keySet());
        String lower = keys.isEmpty() ? "a" : keys.get(keys.size() / 4);
        String upper = keys.isEmpty() ? "z" : keys.get(3 * keys.size() / 4);
        for (boolean reverse : new boolean[] {false, true}) {
            checkScan(kv, model, null, null, reverse, snapshot, what);
            checkScan(kv, model, lower, upper, reverse, snapshot, what);
            checkScan(kv, model, lower + "\0", upper + "\0", reverse, snapshot, what); // bounds between keys
        }
    }

    private static void checkScan(LsmStore kv, TreeMap<String, String> model, String lower, String upper,
                                  boolean reverse, KvSnapshot snapshot, String what) {
        NavigableMap<String, String> range = lower == null ? model : model.subMap(lower, true, upper, false);
        List<Map.Entry<String, String>> expected = new ArrayList<>(
                (reverse ? range.descendingMap() : range).entrySet());
        Returned returned = new Returned();
        try (KvCursor c = kv.scan(lower == null ? null : b(lower), upper == null ? null : b(upper), reverse, snapshot)) {
            for (; c.valid(); c.next()) {
                returned.add(c);
            }
        }
        returned.check(expected, what + (reverse ? ", backward" : ", forward") + (lower == null ? "" : ", bounded"));
    }

    /** The arrays a cursor returned, and copies of them taken when they were returned. */
    private static final class Returned {
        private final List<byte[]> keys = new ArrayList<>();
        private final List<byte[]> values = new ArrayList<>();
        private final List<byte[]> keyCopies = new ArrayList<>();
        private final List<byte[]> valueCopies = new ArrayList<>();

        void add(KvCursor c) {
            byte[] key = c.key();
            byte[] value = c.value();
            keys.add(key);
            values.add(value);
            keyCopies.add(key.clone());
            valueCopies.add(value.clone());
        }

        void check(List<Map.Entry<String, String>> expected, String what) {
            for (int i = 0; i < keys.size(); i++) {
                assertThat(keys.get(i)).as("%s: key %d, kept while the cursor moved on", what, i)
                        .isEqualTo(keyCopies.get(i));
                assertThat(values.get(i)).as("%s: value %d, kept while the cursor moved on", what, i)
                        .isEqualTo(valueCopies.get(i));
            }
            List<Map.Entry<String, String>> actual = new ArrayList<>();
            for (int i = 0; i < keys.size(); i++) {
                actual.add(Map.entry(new String(keyCopies.get(i), StandardCharsets.ISO_8859_1),
                        new String(valueCopies.get(i), StandardCharsets.ISO_8859_1)));
            }
            assertThat(actual).as(what).containsExactlyElementsOf(expected);
        }
    }
}
