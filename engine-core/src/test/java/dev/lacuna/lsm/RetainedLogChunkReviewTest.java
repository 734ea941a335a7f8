package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.wal.Wal;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Review of 4727dae/a4f3f2f: a log checkpoint (a change stream's consumer) keeps segments below the log's start;
 * recovery checks them without handing their records to the replay, yet the log's size was taken from its files, so
 * every tree's share was scaled by (kept + replayed) / replayed and each of its chunks after the first was
 * LARGE_CHUNK, whatever it held (27.5 MB of room for 1.1 MB). The size is now the log's word: the bytes from the
 * first record handed over. Doubling kept each tree's room within about twice its bytes and 16 KB; so must this.
 */
class RetainedLogChunkReviewTest {
    private static final int PARTITIONS = 16;

    @Test
    void shouldNotSizeChunksFromLogSegmentsTheReplaySkips() throws Exception {
        MemVfs vfs = new MemVfs();
        Path dir = Path.of("/db");
        KvOptions options = KvOptions.builder().vfs(vfs).partitions(PARTITIONS).durability(Durability.NONE)
                .memtableBytes(256L << 20).memoryBudget(1L << 30).build();
        int i = 0;
        try (LsmStore kv = LsmStore.open(dir, options)) {
            kv.setLogCheckpoint("consumer", 0); // keeps every record: the consumer has read none
            for (; i < 24_000; i++) {
                kv.put(key(i), new byte[1_000]); // 24 MB, flushed below: only the checkpoint keeps it
            }
            kv.flush();
        }
        long retained = walBytes(vfs, dir);
        try (Wal wal = Wal.open(vfs, dir.resolve(Recovery.WAL_DIR), options.wal())) {
            for (int end = i + 4_000; i < end; i++) { // 4,000 x 200 B unflushed: ~50 KB a tree
                wal.append(BatchCodec.encode(new WriteBatch().put(key(i), new byte[200]).ops(), 0, 0),
                        Durability.NONE);
            }
            wal.sync();
        }
        System.out.printf("log files %,d bytes (retained before the unflushed records: %,d)%n",
                walBytes(vfs, dir), retained);

        try (LsmStore kv = LsmStore.open(dir, options)) {
            Db db = LsmInternals.db(kv);
            long room = 0;
            long held = 0;
            for (Tree tree : db.live) {
                Memtable mem = tree.mem();
                room += LsmInternals.arenaBytes(mem);
                held += mem.bytes();
            }
            System.out.printf("all trees: %,d bytes in %,d of room%n", held, room);
            assertThat(room).as("room of every rebuilt memtable (doubling: about twice their bytes)")
                    .isLessThanOrEqualTo(2 * held + PARTITIONS * (16L << 10));
        }
    }

    private static long walBytes(MemVfs vfs, Path dir) throws Exception {
        long total = 0;
        for (String name : vfs.list(dir.resolve(Recovery.WAL_DIR))) {
            total += vfs.size(dir.resolve(Recovery.WAL_DIR).resolve(name));
        }
        return total;
    }

    private static byte[] key(int i) {
        return new byte[] {0, 0, 0, 0, (byte) (i >> 16), (byte) (i >> 8), (byte) i};
    }
}
