package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.base.InternalKey;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.wal.Wal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Review of b6feb27: a log record that writes one key twice (not written by this engine, which logs a key's last
 * write of a batch only) makes the replay add its partition's writes one by one in log order
 * ({@code keyAndSequenceTwice}), now copied out of the nodes the decoders placed. The memtable must end as adding
 * the log's writes in log order leaves it: the later write of the key wins, and the statistics are add()'s. Enough
 * records (thousands, two decoder threads' batches) that the radix sort runs first.
 */
class ReplayFallbackReviewTest {
    private static final Path DIR = Path.of("/db");

    @Test
    void shouldAddTheWritesInLogOrderWhenARecordWritesAKeyTwice() {
        MemVfs vfs = new MemVfs();
        KvOptions options = KvOptions.builder().vfs(vfs).durability(Durability.SYNC).partitions(1).build();
        LsmStore.open(DIR, options).close(); // creates the store
        Memtable expected = new Memtable();
        Random random = new Random(5);
        try (Wal wal = Wal.open(vfs, DIR.resolve(Recovery.WAL_DIR), options.wal())) {
            for (int r = 0; r < 5_000; r++) {
                List<WriteBatch.Op> ops = new ArrayList<>();
                int k = random.nextInt(300);
                ops.add(new WriteBatch.Op(WriteBatch.KIND_PUT, key(k), value(random)));
                if (r % 50 == 7) { // the same key again in the record: a put, or a deletion
                    ops.add(random.nextBoolean() ? new WriteBatch.Op(WriteBatch.KIND_PUT, key(k), value(random))
                            : new WriteBatch.Op(WriteBatch.KIND_DELETE, key(k), new byte[0]));
                } else if (r % 3 == 0) {
                    ops.add(new WriteBatch.Op(WriteBatch.KIND_DELETE, key(300 + random.nextInt(50)), new byte[0]));
                }
                long lsn = wal.append(BatchCodec.encode(ops, 0, 0), Durability.NONE);
                for (WriteBatch.Op op : ops) {
                    expected.add(op.key(), lsn, op.kind(), op.value());
                }
            }
            wal.sync();
        }
        try (LsmStore kv = LsmStore.open(DIR, options)) {
            Db db = LsmInternals.db(kv);
            Memtable mem = db.trees[db.treeOf(key(0))].mem();
            assertThat(MemtableRecoveredTest.entries(mem)).isEqualTo(MemtableRecoveredTest.entries(expected));
            assertThat(mem.bytes()).isEqualTo(expected.bytes());
            assertThat(mem.added()).isEqualTo(expected.added());
            assertThat(mem.deletionsAdded()).isEqualTo(expected.deletionsAdded());
            assertThat(mem.deadPairs()).isEqualTo(expected.deadPairs());
            assertThat(mem.minSequence()).isEqualTo(expected.minSequence());
            assertThat(mem.maxSequence()).isEqualTo(expected.maxSequence());
        }
    }

    private static byte[] key(int k) {
        return new byte[] {0, 0, 0, 0, (byte) (k >> 8), (byte) k};
    }

    private static byte[] value(Random random) {
        byte[] v = new byte[random.nextInt(40)];
        random.nextBytes(v);
        return v;
    }
}
