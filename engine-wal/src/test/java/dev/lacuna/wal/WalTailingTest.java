package dev.lacuna.wal;

import dev.lacuna.storage.WalOptions;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Tailing readers running beside four writers (mixed durabilities, small segments so that readers
 * follow the log across many segment rolls) see every record exactly once, in LSN order, with the payload
 * its writer appended.
 */
class WalTailingTest {
    private static final Path DIR = Path.of("/db/wal");
    private static final int WRITERS = 4;
    private static final int PER_WRITER = 3_000;

    @Test
    void shouldDeliverEveryRecordOnceInOrderToReadersBesideWriters() throws Exception {
        WalOptions options = WalOptions.defaults().withBlockSize(256).withSegmentSize(8 * 1024).withPreallocate(2048);
        int total = WRITERS * PER_WRITER;
        Map<Long, byte[]> appended = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(WRITERS + 3);
        try (Wal wal = Wal.open(new MemVfs(), DIR, options)) {
            List<Future<List<WalRecord>>> readers = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                readers.add(pool.submit(() -> tail(wal, 1, total)));
            }
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                writers.add(pool.submit(() -> {
                    Durability[] modes = {Durability.SYNC, Durability.NONE, Durability.batched(Duration.ofMillis(2))};
                    for (int n = 0; n < PER_WRITER; n++) {
                        byte[] p = WalCrashTest.payload(writer, n);
                        appended.put(wal.append(p, modes[(writer + n) % modes.length]), p);
                    }
                    return null;
                }));
            }
            // A reader that starts in the middle of the stream, while it is still being written.
            Future<List<WalRecord>> late = pool.submit(() -> {
                long from;
                while ((from = wal.lastLsn()) < total / 2) {
                    Thread.onSpinWait();
                }
                return tail(wal, from, total - from + 1);
            });
            for (Future<?> w : writers) {
                w.get(120, TimeUnit.SECONDS);
            }
            for (Future<List<WalRecord>> reader : readers) {
                checkSequence(reader.get(120, TimeUnit.SECONDS), 1, total, appended);
            }
            List<WalRecord> lateRecords = late.get(120, TimeUnit.SECONDS);
            checkSequence(lateRecords, lateRecords.get(0).lsn(), total, appended);
            assertThat(wal.stats().segmentsCreated()).isGreaterThan(20);
        } finally {
            pool.shutdownNow();
        }
    }

    private static List<WalRecord> tail(Wal wal, long from, long count) throws InterruptedException {
        List<WalRecord> seen = new ArrayList<>();
        try (WalReader reader = wal.reader(from)) {
            while (seen.size() < count) {
                WalRecord r = reader.next(Duration.ofSeconds(60));
                assertThat(r).as("a record arrived within the timeout after %d", seen.size()).isNotNull();
                seen.add(r);
            }
        }
        return seen;
    }

    private static void checkSequence(List<WalRecord> records, long from, long lastLsn, Map<Long, byte[]> appended) {
        assertThat(records).hasSize((int) (lastLsn - from + 1));
        for (int i = 0; i < records.size(); i++) {
            WalRecord r = records.get(i);
            assertThat(r.lsn()).isEqualTo(from + i);
            assertThat(r.payload()).isEqualTo(appended.get(r.lsn()));
        }
    }
}
