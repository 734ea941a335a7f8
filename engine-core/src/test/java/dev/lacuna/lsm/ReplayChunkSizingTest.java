package dev.lacuna.lsm;

import static dev.lacuna.lsm.UnflushedLog.key;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.vfs.MemVfs;
import org.junit.jupiter.api.Test;

/**
 * A memtable rebuilt from the log gets most of its memory in one chunk sized from its share of the log, not in
 * chunks doubling from 16 KB: the collector copied those chunks at every young pause of the replay (35–55 ms pauses
 * in RecoveryBenchmark's 8 MB open), and the last of them left up to half its room unused. Four partitions share
 * 9 MB of log, 2.2 MB each: doubling takes chunks of 16 KB to 2 MB, 4 MB of room, half of it in the largest. Each
 * rebuilt memtable must take room at most a quarter over its share of the log's files, 60 % of it in one chunk (the
 * decoding threads' timing moves the size a tree is told: 73–80 % in runs with -XX:ActiveProcessorCount of 4 to
 * 64). Once its replay ends, a memtable is told no size any more ({@code expected}: the live memtable's next chunk
 * doubles the last).
 */
class ReplayChunkSizingTest {
    private static final int PARTITIONS = 4;

    @Test
    void shouldSizeEachRebuiltMemtablesChunksFromItsShareOfTheLog() throws Exception {
        MemVfs vfs = new MemVfs();
        KvOptions options = UnflushedLog.options(vfs, PARTITIONS);
        try (LsmStore kv = LsmStore.open(UnflushedLog.DIR, options)) {
            kv.put(key(0), new byte[1]);
        }
        int writes = 8_800;
        UnflushedLog.appendPuts(vfs, options, 1, writes + 1, 1_000);
        long logBytes = UnflushedLog.walBytes(vfs);

        try (LsmStore kv = LsmStore.open(UnflushedLog.DIR, options)) {
            Db db = LsmInternals.db(kv);
            long entries = 0;
            for (Tree tree : db.live) {
                Memtable mem = tree.mem();
                ArenaSkipList list = (ArenaSkipList) LsmInternals.field(mem, "entries");
                int chunks = (int) LsmInternals.field(list, "slots") - 1; // slot 0 is never used
                long largest = 0;
                for (byte[] chunk : (byte[][]) LsmInternals.field(list, "chunks")) {
                    largest = Math.max(largest, chunk == null ? 0 : chunk.length);
                }
                System.out.printf("tree %d: %d entries in %d chunks, %,d bytes, the largest %,d (log %,d bytes over"
                        + " %d trees)%n", tree.id, mem.added(), chunks, list.chunkBytes(), largest, logBytes, PARTITIONS);
                assertThat(largest).as("the largest chunk of tree %d", tree.id)
                        .isGreaterThanOrEqualTo(list.chunkBytes() * 6 / 10);
                synchronized (list) {
                    assertThat((long) LsmInternals.field(list, "expected")).as("size left told to tree %d", tree.id)
                            .isZero();
                }
                assertThat(list.chunkBytes()).as("room of tree %d", tree.id)
                        .isLessThanOrEqualTo(logBytes / PARTITIONS * 5 / 4);
                entries += mem.added();
            }
            assertThat(entries).as("every write replayed").isEqualTo(writes + 1);
            assertThat(kv.get(key(writes))).hasSize(1_000);
        }
    }
}
