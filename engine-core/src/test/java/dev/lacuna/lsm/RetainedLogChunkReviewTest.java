package dev.lacuna.lsm;

import static dev.lacuna.lsm.UnflushedLog.key;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.vfs.MemVfs;
import org.junit.jupiter.api.Test;

/**
 * Review of 4727dae/a4f3f2f: a log checkpoint (a change stream's consumer) keeps segments below the log's start;
 * recovery checks them without handing their records to the replay, yet the log's size was taken from its files, so
 * every tree's share was scaled by (kept + replayed) / replayed and each of its chunks after the first was
 * LARGE_CHUNK, whatever it held (27.2 MB of room for 1.1 MB). The size is now the log's word: the bytes from the
 * first record handed over. Doubling kept each tree's room within about twice its bytes and 16 KB; so must this.
 */
class RetainedLogChunkReviewTest {
    private static final int PARTITIONS = 16;

    @Test
    void shouldNotSizeChunksFromLogSegmentsTheReplaySkips() throws Exception {
        MemVfs vfs = new MemVfs();
        KvOptions options = UnflushedLog.options(vfs, PARTITIONS);
        int kept = 24_000;
        try (LsmStore kv = LsmStore.open(UnflushedLog.DIR, options)) {
            kv.setLogCheckpoint("consumer", 0); // keeps every record: the consumer has read none
            for (int i = 0; i < kept; i++) {
                kv.put(key(i), new byte[1_000]); // 24 MB, flushed below: only the checkpoint keeps it
            }
            kv.flush();
        }
        long retained = UnflushedLog.walBytes(vfs);
        UnflushedLog.appendPuts(vfs, options, kept, kept + 4_000, 200); // unflushed: ~50 KB a tree
        System.out.printf("log files %,d bytes (retained before the unflushed records: %,d)%n",
                UnflushedLog.walBytes(vfs), retained);

        try (LsmStore kv = LsmStore.open(UnflushedLog.DIR, options)) {
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
}
