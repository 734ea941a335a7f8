package dev.lacuna.lsm;

import static dev.lacuna.lsm.UnflushedLog.key;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.wal.Wal;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Review of 88e4cae: the size the log told counted the zero fill its last segment ends in after a crash, up to
 * WalOptions.preallocate (which a user may set to a segment's 64 MB). With a small log just past ChunkShares' sample,
 * every tree was told a share of the zeros: 16 partitions took 50.6–54.8 MB of room for 358 KB, 64 partitions 77.7 MB
 * for 3.6 MB. The log now leaves out the zeros its last segment ends in; the room must stay within doubling's bound
 * (about twice the bytes held).
 */
class PreallocatedLogChunkReviewTest {
    @ParameterizedTest
    @CsvSource({"1, 1048576, 2000", "16, 1048576, 2000", "1, 67108864, 2000", "16, 67108864, 2000",
            "64, 67108864, 2000", "64, 67108864, 20000"})
    void shouldKeepRebuiltRoomNearTheDataWhateverThePreallocation(int partitions, long preallocate, int writes)
            throws Exception {
        MemVfs vfs = new MemVfs();
        KvOptions options = UnflushedLog.options(vfs, partitions).toBuilder()
                .wal(WalOptions.defaults().withPreallocate(preallocate)).build();
        try (LsmStore kv = LsmStore.open(UnflushedLog.DIR, options)) {
            kv.put(key(0), new byte[1]);
        }
        MemVfs crashed;
        try (Wal wal = Wal.open(vfs, UnflushedLog.DIR.resolve(Recovery.WAL_DIR), options.wal())) {
            for (int i = 1; i <= writes; i++) {
                wal.append(BatchCodec.encode(new WriteBatch().put(key(i), new byte[100]).ops(), 0, 0),
                        Durability.NONE);
            }
            wal.sync();
            crashed = vfs.crashClone(); // a crash: the last segment keeps its zero fill, unsealed
        }
        try (LsmStore kv = LsmStore.open(UnflushedLog.DIR, options.toBuilder().vfs(crashed).build())) {
            Db db = LsmInternals.db(kv);
            long room = 0;
            long held = 0;
            for (Tree tree : db.live) {
                room += LsmInternals.arenaBytes(tree.mem());
                held += tree.mem().bytes();
            }
            System.out.printf("partitions %d, preallocate %,d: %,d bytes held in %,d of room%n", partitions,
                    preallocate, held, room);
            assertThat(room).as("room of every rebuilt memtable (doubling: about twice their bytes)")
                    .isLessThanOrEqualTo(2 * held + partitions * (16L << 10));
        }
    }
}
