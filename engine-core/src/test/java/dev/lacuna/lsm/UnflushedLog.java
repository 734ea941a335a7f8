package dev.lacuna.lsm;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.wal.Wal;
import java.io.IOException;
import java.nio.file.Path;

/** A store on {@link MemVfs} whose log holds puts no memtable has: what the next open replays. */
final class UnflushedLog {
    static final Path DIR = Path.of("/db");

    private UnflushedLog() {
    }

    /** Options of {@code partitions} partitions whose memtables never fill in these tests. */
    static KvOptions options(MemVfs vfs, int partitions) {
        return KvOptions.builder().vfs(vfs).partitions(partitions).durability(Durability.NONE)
                .memtableBytes(256L << 20).memoryBudget(1L << 30).build();
    }

    /** Appends puts of keys {@code from} to {@code to - 1} with values of {@code valueLength} bytes to the log. */
    static void appendPuts(MemVfs vfs, KvOptions options, int from, int to, int valueLength) {
        try (Wal wal = Wal.open(vfs, DIR.resolve(Recovery.WAL_DIR), options.wal())) {
            for (int i = from; i < to; i++) {
                wal.append(BatchCodec.encode(new WriteBatch().put(key(i), new byte[valueLength]).ops(), 0, 0),
                        Durability.NONE);
            }
            wal.sync();
        }
    }

    /** The bytes of the log's files. */
    static long walBytes(MemVfs vfs) throws IOException {
        long total = 0;
        for (String name : vfs.list(DIR.resolve(Recovery.WAL_DIR))) {
            total += vfs.size(DIR.resolve(Recovery.WAL_DIR).resolve(name));
        }
        return total;
    }

    /** Key {@code i} of keyspace 0. */
    static byte[] key(int i) {
        return new byte[] {0, 0, 0, 0, (byte) (i >> 16), (byte) (i >> 8), (byte) i};
    }
}
