package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.storage.Durability;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A segment roll that failed with something other than an IOException (here the new segment's preallocation zero
 * fill, as an UncheckedIOException from the file system; an OutOfMemoryError alike) left the old segment sealed
 * and current without failing the log: later appends went past the seal, SYNC ones were acknowledged, and the next
 * open refused the log ("data after the seal"). The log now fails, and the next append repairs it. From the final
 * adversarial review of the session's log changes.
 */
class RollFailingOtherwiseTest {
    private static final Path DIR = Path.of("/wal");

    private static final class NewSegmentZeroFillFails extends ForwardingVfs {
        volatile boolean failNext;

        NewSegmentZeroFillFails(Vfs inner) {
            super(inner);
        }

        @Override
        protected VfsFile wrap(VfsFile f) {
            return new ForwardingVfs.File(f) {
                @Override
                public void write(ByteBuffer src, long position) throws IOException {
                    if (failNext && f.name().endsWith(WalFormat.segmentName(2)) && position > 0 && zeros(src)) {
                        failNext = false;
                        throw new UncheckedIOException(new IOException("injected: zero fill of a new segment"));
                    }
                    super.write(src, position);
                }
            };
        }

        private static boolean zeros(ByteBuffer src) {
            for (int i = src.position(); i < src.limit(); i++) {
                if (src.get(i) != 0) {
                    return false;
                }
            }
            return true;
        }
    }

    @Test
    void shouldKeepAnAcknowledgedSyncRecordAfterARollThatFailedOtherwise() throws Exception {
        MemVfs disk = new MemVfs();
        NewSegmentZeroFillFails vfs = new NewSegmentZeroFillFails(disk);
        WalOptions options = WalOptions.defaults().withBlockSize(128).withSegmentSize(4096).withPreallocate(1024);
        byte[] big = new byte[1000];
        List<String> acknowledged = new ArrayList<>();
        String thrown = "none";
        try (Wal wal = Wal.open(vfs, DIR, options)) {
            for (int i = 0; i < 3; i++) {
                wal.append(big, Durability.NONE);
            }
            vfs.failNext = true;
            try {
                wal.append(big, Durability.NONE); // rolls: the new segment's zero fill fails
            } catch (RuntimeException e) {
                thrown = e.toString();
            }
            for (int i = 0; i < 3; i++) {
                String s = "small-" + i;
                try {
                    long lsn = wal.append(s.getBytes(StandardCharsets.UTF_8), Durability.SYNC);
                    acknowledged.add(s + "@" + lsn);
                } catch (RuntimeException refused) {
                    // a failed log may refuse: not what is checked
                }
            }
        } catch (RuntimeException closeFailed) {
            // the reopen is what counts
        }
        List<String> recovered = new ArrayList<>();
        try (Wal wal = Wal.open(disk, DIR, options); WalReader r = wal.reader(1)) {
            for (WalRecord rec = r.next(); rec != null; rec = r.next()) {
                if (rec.payload().length < 100) {
                    recovered.add(new String(rec.payload(), StandardCharsets.UTF_8) + "@" + rec.lsn());
                }
            }
        }
        assertThat(acknowledged).as("SYNC records acknowledged after the failed roll (it threw %s)", thrown)
                .isNotEmpty();
        assertThat(recovered).as("acknowledged SYNC records after a reopen (roll threw %s)", thrown)
                .containsAll(acknowledged);
    }
}
