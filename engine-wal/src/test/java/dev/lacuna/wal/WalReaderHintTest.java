package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.storage.Durability;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A reader told where its first record starts ({@link Wal#reader(long, long, long)}, from an earlier reader's
 * {@link WalReader#segment()} and {@link WalReader#offset()}) reads from there rather than from its segment's start,
 * and a wrong hint (another record's start, the middle of one, past the end, another segment) changes only the cost:
 * the reader returns the same records.
 */
class WalReaderHintTest {
    private static final Path DIR = Path.of("/db/wal");
    private static final int RECORDS = 2_000;

    /** Counts the bytes read from files. */
    private static final class CountingVfs extends ForwardingVfs {
        final AtomicLong read = new AtomicLong();

        CountingVfs() {
            super(new MemVfs());
        }

        @Override
        protected VfsFile wrap(VfsFile file) {
            return new File(file) {
                @Override
                public int read(ByteBuffer dst, long position) throws IOException {
                    int n = super.read(dst, position);
                    read.addAndGet(Math.max(n, 0));
                    return n;
                }
            };
        }
    }

    private static byte[] payload(long lsn) {
        byte[] p = new byte[100];
        java.util.Arrays.fill(p, (byte) lsn);
        ByteBuffer.wrap(p).putLong(lsn);
        return p;
    }

    private static long bytesToRead(CountingVfs vfs, Wal wal, long from, long segment, long offset) {
        long before = vfs.read.get();
        try (WalReader r = wal.reader(from, segment, offset)) {
            WalRecord record = r.next();
            assertThat(record).isNotNull();
            assertThat(record.lsn()).isEqualTo(from);
            assertThat(record.payload()).isEqualTo(payload(from));
            WalRecord following = r.next();
            assertThat(following.lsn()).isEqualTo(from + 1);
        }
        return vfs.read.get() - before;
    }

    @Test
    void shouldStartAtAHintAndShrugOffAWrongOne() {
        CountingVfs vfs = new CountingVfs();
        WalOptions options = WalOptions.defaults().withBlockSize(1024).withSegmentSize(1 << 20).withPreallocate(4096);
        try (Wal wal = Wal.open(vfs, DIR, options)) {
            for (long i = 1; i <= RECORDS; i++) {
                assertThat(wal.append(payload(i), Durability.NONE)).isEqualTo(i);
            }
            long segment;
            long offset;
            long nextOffset;
            try (WalReader r = wal.reader(1)) {
                for (int i = 1; i <= 1000; i++) {
                    r.next();
                }
                segment = r.segment();
                offset = r.offset(); // where record 1001 starts
                r.next();
                nextOffset = r.offset(); // where record 1002 starts
            }
            assertThat(segment).isGreaterThanOrEqualTo(0);

            long unhinted = bytesToRead(vfs, wal, 1001, -1, -1);
            long hinted = bytesToRead(vfs, wal, 1001, segment, offset);
            assertThat(hinted).as("bytes read with the hint, against %d without", unhinted).isLessThan(unhinted / 10);

            for (long[] wrong : new long[][] {{segment, offset + 7}, {segment, nextOffset}, {segment, 1L << 30},
                    {segment + 5, offset}, {segment, 0}}) {
                bytesToRead(vfs, wal, 1001, wrong[0], wrong[1]); // the right records all the same
            }
        }
    }
}
