package dev.lacuna.sstable;

import dev.lacuna.kv.SstableOptions;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.storage.CorruptionException;
import dev.lacuna.base.InternalIterator;
import dev.lacuna.base.InternalKey;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The checksums catch every single-bit flip (see {@link TableBitFlipTest}), which hides the decoders
 * behind them. Here each flip inside a block or the footer is followed by recomputing that checksum, as
 * if the damage had happened before it was computed (a bug, or a collision): the decoders then see the
 * damaged bytes. Wrong answers are possible now, but the only exception allowed is a
 * {@link CorruptionException} — never an index error, a negative array size, an out-of-memory error, an
 * LZ4 exception, or a hang.
 */
class TableForgedChecksumTest {
    private static final String NAME = "000007.sst";

    @Test
    void shouldFailOnlyWithCorruptionWhenChecksumsAreForged() throws IOException {
        TreeMap<byte[], byte[]> model = TestTables.randomEntries(new Random(23), 25, 3, 30);
        int flips = 0;
        int corruption = 0;
        int silent = 0;
        List<String> failures = new ArrayList<>();
        for (boolean compression : new boolean[] {true, false}) {
            SstableOptions options = SstableOptions.defaults().withBlockSize(128).withRestartInterval(3)
                    .withCompression(compression).withKeyPrefix(TestTables.PARTITION);
            MemVfs vfs = new MemVfs();
            TestTables.write(vfs, NAME, model, options, 0);
            byte[] original = vfs.readAll(TestTables.DIR.resolve(NAME));
            List<BlockHandle> blocks = storedBlocks(vfs);
            for (BlockHandle block : blocks) {
                int start = (int) block.offset();
                int end = start + block.size() + 1; // payload and type byte
                for (int bit = start * 8; bit < end * 8; bit++) {
                    byte[] damaged = original.clone();
                    damaged[bit / 8] ^= (byte) (1 << (bit % 8));
                    byte type = damaged[start + block.size()];
                    SstableFormat.putInt(damaged, start + block.size() + 1,
                            SstableFormat.blockCrc(damaged, start, block.size(), type));
                    flips++;
                    String outcome = readEverything(damaged, model);
                    if (outcome == null) {
                        silent++;
                    } else if (outcome.isEmpty()) {
                        corruption++;
                    } else if (failures.size() < 10) {
                        failures.add("block at " + start + ", bit " + bit + ": " + outcome);
                    }
                }
            }
            int footer = original.length - SstableFormat.FOOTER_SIZE;
            for (int bit = footer * 8; bit < (footer + SstableFormat.FOOTER_CRC_OFFSET) * 8; bit++) {
                byte[] damaged = original.clone();
                damaged[bit / 8] ^= (byte) (1 << (bit % 8));
                SstableFormat.putInt(damaged, footer + SstableFormat.FOOTER_CRC_OFFSET,
                        SstableFormat.crc(damaged, footer, SstableFormat.FOOTER_CRC_OFFSET));
                flips++;
                String outcome = readEverything(damaged, model);
                if (outcome == null) {
                    silent++;
                } else if (outcome.isEmpty()) {
                    corruption++;
                } else if (failures.size() < 10) {
                    failures.add("footer bit " + bit + ": " + outcome);
                }
            }
        }
        System.out.println("sstable forged-checksum flips: " + flips + ", caught by structure checks: " + corruption
                + ", read without error: " + silent + ", other exceptions: " + failures.size());
        assertThat(failures).isEmpty();
        assertThat(corruption).isPositive();
    }

    /** Handles of every stored block: data blocks (from the index), filter, properties, index. */
    private static List<BlockHandle> storedBlocks(MemVfs vfs) throws IOException {
        byte[] content = vfs.readAll(TestTables.DIR.resolve(NAME));
        long footerStart = content.length - SstableFormat.FOOTER_SIZE;
        byte[] footerBytes = Arrays.copyOfRange(content, (int) footerStart, content.length);
        Footer footer = Footer.decode(footerBytes, NAME, footerStart);
        List<BlockHandle> blocks = new ArrayList<>();
        try (SstableReader reader = TestTables.open(vfs, NAME, 1, new BlockCache(0));
             BlockIterator index = reader.indexBlock().iterator()) {
            for (index.seekToFirst(); index.valid(); index.next()) {
                blocks.add(reader.handleAt(index));
            }
        }
        blocks.add(footer.filter());
        blocks.add(footer.properties());
        blocks.add(footer.index());
        return blocks;
    }

    /**
     * Opens and reads everything every way; returns null if that completed, "" on a well-formed
     * {@link CorruptionException}, otherwise a description of what went wrong.
     */
    private static String readEverything(byte[] content, TreeMap<byte[], byte[]> model) throws IOException {
        MemVfs vfs = new MemVfs();
        vfs.mkdirs(TestTables.DIR);
        try (VfsFile f = vfs.create(TestTables.DIR.resolve(NAME))) {
            f.write(0, content, 0, content.length);
        }
        try (SstableReader reader = TestTables.open(vfs, NAME, 1, new BlockCache(1 << 20));
             InternalIterator it = reader.iterator()) {
            int steps = 0;
            for (it.seekToFirst(); it.valid() && steps < 10_000; it.next()) {
                it.key();
                it.value();
                steps++;
            }
            for (it.seekToLast(); it.valid() && steps < 20_000; it.prev()) {
                it.key();
                steps++;
            }
            for (byte[] key : model.keySet()) {
                it.seek(key);
                it.seekForPrev(key);
                reader.get(InternalKey.userKey(key), InternalKey.sequence(key));
                reader.mayContainPrefix(Arrays.copyOf(key, 5));
            }
            return null;
        } catch (CorruptionException e) {
            boolean wellFormed = e.file().equals(TestTables.DIR.resolve(NAME).toString())
                    && e.offset() >= 0 && e.offset() < content.length;
            return wellFormed ? "" : "corruption with file " + e.file() + ", offset " + e.offset();
        } catch (RuntimeException | OutOfMemoryError | StackOverflowError e) {
            return e.toString();
        }
    }
}
