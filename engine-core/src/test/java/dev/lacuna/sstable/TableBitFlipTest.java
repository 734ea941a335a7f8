package dev.lacuna.sstable;

import dev.lacuna.kv.SstableOptions;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.storage.CorruptionException;
import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Flips every single bit of two small tables (several data blocks, LZ4 on and off), one at a time, then
 * opens the damaged table and reads everything: a full forward scan and point reads of every user key at
 * several snapshots. Each flip must be detected (a {@link CorruptionException} naming the file and an
 * offset inside it) or harmless (every read returns exactly the original answer). Anything else — a wrong
 * or missing entry, or another exception type — is undetected damage.
 */
class TableBitFlipTest {
    private static final String NAME = "000042.sst";

    @Test
    void shouldDetectOrSurviveEverySingleBitFlip() throws IOException {
        TreeMap<byte[], byte[]> model = smallModel();
        int flips = 0;
        int detected = 0;
        int harmless = 0;
        int undetected = 0;
        List<String> failures = new ArrayList<>();
        List<String> sizes = new ArrayList<>();
        for (boolean compression : new boolean[] {true, false}) {
            SstableOptions options = SstableOptions.defaults().withBlockSize(96).withRestartInterval(2)
                    .withCompression(compression).withKeyPrefix(TestTables.PARTITION);
            MemVfs vfs = new MemVfs();
            SstableProperties properties = TestTables.write(vfs, NAME, model, options, 77);
            byte[] original = vfs.readAll(TestTables.DIR.resolve(NAME));
            sizes.add((compression ? "lz4 " : "plain ") + original.length + " bytes, " + properties.dataBlocks()
                    + " data blocks");
            assertThat(properties.dataBlocks()).isBetween(3L, 40L);
            assertThat(readsCorrectly(original, model, properties)).as("undamaged table reads back").isNull();

            for (int bit = 0; bit < original.length * 8; bit++) {
                flips++;
                byte[] damaged = original.clone();
                damaged[bit / 8] ^= (byte) (1 << (bit % 8));
                String problem;
                try {
                    problem = readsCorrectly(damaged, model, properties);
                } catch (CorruptionException e) {
                    if (e.file().equals(TestTables.DIR.resolve(NAME).toString())
                            && e.offset() >= 0 && e.offset() < damaged.length) {
                        detected++;
                        continue;
                    }
                    problem = "corruption reported with file " + e.file() + ", offset " + e.offset();
                } catch (RuntimeException | Error e) {
                    problem = "unexpected " + e;
                }
                if (problem == null) {
                    harmless++;
                } else {
                    undetected++;
                    if (failures.size() < 10) {
                        failures.add((compression ? "lz4" : "plain") + " bit " + bit + " (byte " + bit / 8 + "): "
                                + problem);
                    }
                }
            }
        }
        System.out.println("sstable bit flips: " + flips + ", undetected: " + undetected);
        System.out.println("sstable bit flips detected: " + detected + ", harmless: " + harmless + " ("
                + String.join("; ", sizes) + ")");
        assertThat(failures).isEmpty();
        assertThat(undetected).isZero();
        assertThat(detected + harmless).isEqualTo(flips);
    }

    /** A few dozen entries over a few partitions, several versions and deletions per user key. */
    private static TreeMap<byte[], byte[]> smallModel() {
        TreeMap<byte[], byte[]> model = TestTables.model();
        long sequence = 1;
        for (int i = 0; i < 14; i++) {
            byte[] user = TestTables.userKey(i % 3, i);
            for (int v = 0; v < 1 + i % 3; v++) {
                int kind = (i + v) % 4 == 3 ? InternalKey.KIND_DELETE
                        : (i + v) % 7 == 6 ? InternalKey.KIND_SINGLE_DELETE : InternalKey.KIND_PUT;
                byte[] value = kind == InternalKey.KIND_PUT
                        ? ("open ticket " + i + " version " + v + " " + "status=open;".repeat(1 + i % 2))
                                .getBytes(StandardCharsets.US_ASCII)
                        : new byte[0];
                model.put(InternalKey.encode(user, sequence++, kind), value);
            }
        }
        return model;
    }

    /**
     * Opens {@code content} as a table and reads everything (properties included); returns null if every
     * answer is right, or a
     * description of the first wrong one. Corruption propagates.
     */
    private static String readsCorrectly(byte[] content, TreeMap<byte[], byte[]> model, SstableProperties properties)
            throws IOException {
        MemVfs vfs = new MemVfs();
        vfs.mkdirs(TestTables.DIR);
        try (VfsFile f = vfs.create(TestTables.DIR.resolve(NAME))) {
            f.write(0, content, 0, content.length);
        }
        // A fresh cache each time: blocks of another copy of file 42 must not be served.
        try (SstableReader reader = TestTables.open(vfs, NAME, 42, new BlockCache(1 << 20))) {
            try (InternalIterator it = reader.iterator()) {
                if (!TestTables.sameEntries(TestTables.forward(it), TestTables.entries(model))) {
                    return "full scan differs";
                }
            }
            Set<String> seen = new LinkedHashSet<>();
            for (byte[] key : model.keySet()) {
                byte[] user = InternalKey.userKey(key);
                if (!seen.add(new String(user, StandardCharsets.US_ASCII))) {
                    continue;
                }
                long sequence = InternalKey.sequence(key);
                for (long snapshot : new long[] {InternalKey.MAX_SEQUENCE, sequence, sequence - 1}) {
                    Map.Entry<byte[], byte[]> expected = TestTables.modelGet(model, user, snapshot);
                    SstableReader.Entry actual = reader.get(user, snapshot);
                    if (expected == null ? actual != null
                            : actual == null || !Arrays.equals(actual.key(), expected.getKey())
                                    || !Arrays.equals(actual.value(), expected.getValue())) {
                        return "get " + new String(user, StandardCharsets.US_ASCII) + " at " + snapshot + " wrong";
                    }
                }
                if (!reader.mayContainPrefix(Arrays.copyOf(user, 5))) {
                    return "prefix of " + new String(user, StandardCharsets.US_ASCII) + " reported absent";
                }
            }
            if (!reader.properties().equals(properties)) {
                return "properties differ: " + reader.properties();
            }
        }
        return null;
    }
}
