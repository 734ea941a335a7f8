package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.storage.Durability;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.wal.Wal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * An explicit flush leaves the log holding no record the tables hold: once every partition's writes are in
 * tables, the segment being written (which a trim never deletes) is sealed so that it can go too. Before, a
 * flush — and any number of flushes after it with nothing new to write — left every record of the segment being
 * written on disk, read again by every open.
 */
class FlushTrimsLogTest {
    private static final Path DIR = Path.of("/db");
    private static final int KEYS = 2000;

    @Test
    void shouldLeaveNoFlushedRecordInTheLogAfterAFlushWithNothingToWrite() {
        MemVfs vfs = new MemVfs();
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            for (int i = 0; i < KEYS; i++) {
                kv.put(b("key" + i), b("value" + i));
            }
            kv.flush();
            kv.flush(); // nothing to write
            awaitNoRecordInTheLog(vfs);
            assertThat(recordsInTheLog(vfs)).as("records the log holds after the flushes").isZero();
            kv.put(b("after"), b("the flush"));
        }
        assertThat(recordsInTheLog(vfs)).as("the write after the flush stays in the log").isEqualTo(1);
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            for (int i = 0; i < KEYS; i++) {
                assertThat(kv.get(b("key" + i))).as("key" + i).isEqualTo(b("value" + i));
            }
            assertThat(kv.get(b("after"))).isEqualTo(b("the flush"));
        }
    }

    @Test
    void shouldTrimTheLogOnAFlushWithNothingToWriteAfterAReopen() {
        MemVfs vfs = new MemVfs();
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            for (int i = 0; i < KEYS; i++) {
                kv.put(b("key" + i), b("value" + i));
            }
        }
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            kv.flush(); // the replayed writes
            kv.flush(); // nothing
            awaitNoRecordInTheLog(vfs);
        }
        assertThat(recordsInTheLog(vfs)).as("records the log holds after the flushes").isZero();
    }

    /** The trim follows the flush, in the background: waits up to 20 s for the log to hold no record. */
    private static void awaitNoRecordInTheLog(MemVfs vfs) {
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(20).toNanos();
        while (recordsInTheLog(vfs) > 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
    }

    /** Records the next open reads, from a crash copy (the log of an open store is locked). */
    private static long recordsInTheLog(MemVfs vfs) {
        try (Wal wal = Wal.open(vfs.crashClone(), DIR.resolve(Recovery.WAL_DIR), walOptions())) {
            return wal.lastLsn() - wal.firstLsn() + 1;
        }
    }

    private static WalOptions walOptions() {
        return WalOptions.defaults().withBlockSize(1024).withSegmentSize(1 << 20).withPreallocate(0);
    }

    private static KvOptions options(MemVfs vfs) {
        return KvOptions.builder().vfs(vfs).durability(Durability.NONE).partitions(2).wal(walOptions()).build();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
