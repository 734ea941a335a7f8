package dev.lacuna.lsm;

import static dev.lacuna.lsm.UnflushedLog.key;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.wal.Wal;
import org.junit.jupiter.api.Test;

/**
 * Recovery copies the log's records into batches it reuses once their decoding is taken back ({@link ReplayBatch}):
 * a batch filled again while a decoding thread still read it would put other records' bytes in the memtables. Every
 * value here is its own key's bytes, in records of one to five writes, small ones (many more batches than the
 * decoder holds at once, so each is reused), large ones (batches full by bytes), and one of 5 MB (a record of many
 * fragments, and a batch not kept), so that a value read from the wrong place or the wrong time shows.
 */
class ReplayBatchReuseTest {
    private static byte[] value(int i) {
        int length = i % 997 == 0 ? 120_000 : i == 4_321 ? 5 << 20 : 20 + i % 300;
        byte[] v = new byte[length];
        for (int b = 0; b < length; b++) {
            v[b] = (byte) (i * 7 + b * 13 + (b >> 8));
        }
        return v;
    }

    @Test
    void shouldReplayEveryValueIntactThroughReusedBatches() {
        MemVfs vfs = new MemVfs();
        KvOptions options = UnflushedLog.options(vfs, 4);
        try (LsmStore kv = LsmStore.open(UnflushedLog.DIR, options)) {
            kv.put(key(0), value(0));
        }
        int keys = 12_000;
        int records = 0;
        try (Wal wal = Wal.open(vfs, UnflushedLog.DIR.resolve(Recovery.WAL_DIR), options.wal())) {
            for (int i = 1; i <= keys; ) {
                WriteBatch batch = new WriteBatch();
                for (int n = 0; n < 1 + records % 5 && i <= keys; n++, i++) {
                    batch.put(key(i), value(i));
                }
                wal.append(BatchCodec.encode(batch.ops(), 0, 0), Durability.NONE);
                records++;
            }
            wal.sync();
        }
        try (LsmStore kv = LsmStore.open(UnflushedLog.DIR, options)) {
            int wrong = 0;
            for (int i = 0; i <= keys; i++) {
                byte[] got = kv.get(key(i));
                if (got == null || !java.util.Arrays.equals(got, value(i))) {
                    wrong++;
                }
            }
            System.out.printf("replayed %,d keys from %,d log records: %,d values wrong%n", keys + 1, records + 1,
                    wrong);
            assertThat(wrong).as("values replayed wrong or missing of %d", keys + 1).isZero();
        }
    }
}
