package dev.lacuna.wal;

import dev.lacuna.storage.WalOptions;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Flips every single bit of a small three-segment log, one at a time, and reopens it in the default
 * recovery mode ({@link dev.lacuna.storage.RecoveryMode#TOLERATE_TORN_TAIL}). The log was closed cleanly,
 * so every record in it was fsynced: no flip may cost one. Each flip must either leave every record
 * readable (it hit bytes no record depends on) or be refused with a {@link CorruptionException} naming the
 * flipped file and an offset inside it, with no file changed by the refused open. A wrong record returned,
 * or records dropped as if the damage were a torn tail, fail the test.
 */
class WalBitFlipTest {
    private static final Path DIR = Path.of("/db/wal");
    private static final WalOptions OPTIONS = WalOptions.defaults().withBlockSize(64).withSegmentSize(320).withPreallocate(0);

    @Test
    void shouldDetectOrConfineEverySingleBitFlip() throws IOException {
        MemVfs original = new MemVfs();
        List<byte[]> written = new ArrayList<>();
        try (Wal wal = Wal.open(original, DIR, OPTIONS)) {
            for (int i = 0; wal.stats().segmentsCreated() < 3 || i < 3; i++) {
                byte[] p = WalTest.payload(i, 10 + (i * 37) % 90); // some records span blocks
                wal.append(p, Durability.NONE);
                written.add(p);
            }
        }
        List<String> names = original.list(DIR).stream().filter(n -> WalFormat.parseSegmentName(n) >= 0).toList();
        assertThat(names).hasSize(3);
        long recordsBeforeLast = recordsBeforeLastSegment(original, names);

        int flips = 0;
        int refused = 0;
        int intact = 0;
        int dropped = 0;
        int wrong = 0;
        for (String name : names) {
            Path file = DIR.resolve(name);
            byte[] content = original.readAll(file);
            for (int bit = 0; bit < content.length * 8; bit++) {
                flips++;
                MemVfs damaged = copyWithFlip(original, names, file, bit);
                byte[][] before = contents(damaged, names);
                List<WalRecord> recovered;
                try (Wal wal = Wal.open(damaged, DIR, OPTIONS)) {
                    recovered = WalTest.readAll(wal, 1);
                } catch (CorruptionException e) {
                    assertThat(e.file()).isEqualTo(file.toString());
                    assertThat(e.offset()).isBetween(0L, (long) content.length);
                    assertThat(contents(damaged, names)).as("a refused open changes no file").isDeepEqualTo(before);
                    refused++;
                    continue;
                }
                if (!isPrefix(recovered, written)) {
                    wrong++;
                } else if (recovered.size() == written.size()) {
                    intact++;
                } else {
                    dropped++; // fsynced records vanished as if they were a torn tail
                }
            }
        }
        System.out.println("wal bit flips: " + flips + " checked, " + refused + " refused with file and offset, "
                + intact + " left every record readable, " + dropped + " dropped records, " + wrong
                + " returned a wrong record (" + written.size() + " records, " + recordsBeforeLast
                + " before the last segment)");
        assertThat(dropped).as("flips that silently dropped fsynced records").isZero();
        assertThat(wrong).as("flips that returned a wrong record").isZero();
        assertThat(refused + intact).isEqualTo(flips);
        assertThat(refused).isPositive();
    }

    /** Every segment's content (null where the file is gone). */
    private static byte[][] contents(MemVfs vfs, List<String> names) throws IOException {
        byte[][] out = new byte[names.size()][];
        for (int i = 0; i < names.size(); i++) {
            Path file = DIR.resolve(names.get(i));
            out[i] = vfs.exists(file) ? vfs.readAll(file) : null;
        }
        return out;
    }

    private static long recordsBeforeLastSegment(MemVfs vfs, List<String> names) throws IOException {
        try (VfsFile f = vfs.openReadOnly(DIR.resolve(names.get(names.size() - 1)))) {
            return SegmentHeader.read(f, WalFormat.parseSegmentName(names.get(names.size() - 1))).firstLsn() - 1;
        }
    }

    private static MemVfs copyWithFlip(MemVfs original, List<String> names, Path flipped, int bit) throws IOException {
        MemVfs copy = new MemVfs();
        copy.mkdirs(DIR);
        for (String name : names) {
            Path file = DIR.resolve(name);
            byte[] content = original.readAll(file);
            if (file.equals(flipped)) {
                content[bit / 8] ^= (byte) (1 << (bit % 8));
            }
            try (VfsFile f = copy.create(file)) {
                f.write(0, content, 0, content.length);
                f.force();
            }
        }
        copy.syncDirectory(DIR);
        return copy;
    }

    private static boolean isPrefix(List<WalRecord> recovered, List<byte[]> written) {
        if (recovered.size() > written.size()) {
            return false;
        }
        for (int i = 0; i < recovered.size(); i++) {
            if (recovered.get(i).lsn() != i + 1 || !Arrays.equals(recovered.get(i).payload(), written.get(i))) {
                return false;
            }
        }
        return true;
    }
}
