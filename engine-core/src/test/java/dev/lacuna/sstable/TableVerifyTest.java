package dev.lacuna.sstable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.base.InternalKey;
import dev.lacuna.kv.SstableOptions;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * {@link SstableReader#verify()}: an intact table verifies with its entry count; every single-bit flip in its
 * data blocks (content, type byte or checksum), with LZ4 on and off, is found by {@code verify} without any read
 * having touched the block first, and reported with the file and the offset of the damaged block.
 */
class TableVerifyTest {
    private static final String NAME = "000007.sst";

    @Test
    void shouldVerifyAnIntactTableAndFindEveryBitFlipInItsDataBlocks() throws IOException {
        TreeMap<byte[], byte[]> model = TestTables.model();
        for (int i = 0; i < 40; i++) {
            model.put(InternalKey.encode(TestTables.userKey(i % 3, i), i + 1, InternalKey.KIND_PUT),
                    ("value " + i + " of a ticket").getBytes(StandardCharsets.US_ASCII));
        }
        int flips = 0;
        for (boolean compression : new boolean[] {true, false}) {
            SstableOptions options = SstableOptions.defaults().withBlockSize(128).withCompression(compression)
                    .withKeyPrefix(TestTables.PARTITION);
            MemVfs vfs = new MemVfs();
            SstableProperties properties = TestTables.write(vfs, NAME, model, options, 7);
            assertThat(properties.dataBlocks()).isGreaterThan(3);
            byte[] original = vfs.readAll(TestTables.DIR.resolve(NAME));
            try (SstableReader reader = TestTables.open(vfs, NAME, 7, new BlockCache(0))) {
                assertThat(reader.verify()).isEqualTo(model.size());
            }
            for (int bit = 0; bit < properties.dataSize() * 8; bit++) {
                flips++;
                byte[] damaged = original.clone();
                damaged[bit / 8] ^= (byte) (1 << (bit % 8));
                MemVfs copy = new MemVfs();
                copy.mkdirs(TestTables.DIR);
                try (VfsFile f = copy.create(TestTables.DIR.resolve(NAME))) {
                    f.write(0, damaged, 0, damaged.length);
                }
                int at = bit / 8;
                try (SstableReader reader = TestTables.open(copy, NAME, 7, new BlockCache(0))) {
                    assertThatThrownBy(reader::verify).as("%s bit %d", compression ? "lz4" : "plain", bit)
                            .isInstanceOfSatisfying(CorruptionException.class, e -> {
                                assertThat(e.file()).isEqualTo(TestTables.DIR.resolve(NAME).toString());
                                assertThat(e.offset()).isBetween(0L, (long) at); // the block holding the byte
                            });
                }
            }
        }
        System.out.println("sstable verify: " + flips + " bit flips in data blocks, all found");
    }
}
