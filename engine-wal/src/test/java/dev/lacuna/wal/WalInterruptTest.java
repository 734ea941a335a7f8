package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.storage.Durability;
import dev.lacuna.storage.RecoveryMode;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.NioVfs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An appender, reader or opener interrupted while it uses a log on the real file system ({@link NioVfs},
 * whose channels an interrupt closes) costs that call at most: the log keeps accepting appends from other
 * threads and keeps every acknowledged record. The interrupt flag is set before each call, so the file
 * operation inside it is interrupted deterministically.
 */
class WalInterruptTest {
    private static final WalOptions OPTIONS = WalOptions.defaults().withBlockSize(128).withSegmentSize(2048).withPreallocate(512);

    @TempDir
    Path dir;

    private final ExecutorService other = Executors.newSingleThreadExecutor();

    @AfterEach
    void tearDown() throws InterruptedException {
        Thread.interrupted();
        other.shutdownNow();
        assertThat(other.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void shouldNotPoisonTheLogWhenASyncAppenderIsInterrupted() throws Exception {
        List<byte[]> acknowledged = new ArrayList<>();
        try (Wal wal = Wal.open(new NioVfs(), dir, OPTIONS)) {
            for (int i = 0; i < 3; i++) {
                byte[] p = WalTest.payload(i, 100);
                wal.append(p, Durability.SYNC);
                acknowledged.add(p);
            }
            for (int i = 3; i < 6; i++) { // interrupted appends: each may fail, or succeed with its record durable
                byte[] p = WalTest.payload(i, 100);
                Thread.currentThread().interrupt();
                try {
                    long lsn = wal.append(p, Durability.SYNC);
                    assertThat(wal.durableLsn()).isGreaterThanOrEqualTo(lsn);
                    acknowledged.add(p);
                } catch (StorageIOException e) {
                    // allowed: this call may fail; the log must not
                } finally {
                    assertThat(Thread.interrupted()).as("the appender's interrupt flag is kept").isTrue();
                }
            }
            Future<?> later = other.submit(() -> {
                for (int i = 6; i < 40; i++) { // enough to roll to new segments
                    byte[] p = WalTest.payload(i, 100);
                    wal.append(p, Durability.SYNC);
                    synchronized (acknowledged) {
                        acknowledged.add(p);
                    }
                }
            });
            later.get(60, TimeUnit.SECONDS);
        }
        try (Wal wal = Wal.open(new NioVfs(), dir, OPTIONS)) {
            List<byte[]> recovered = WalTest.readAll(wal, 1).stream().map(WalRecord::payload).toList();
            assertThat(recovered).containsSubsequence(acknowledged);
            assertThat(wal.droppedTailBytes()).isZero();
        }
    }

    @Test
    void shouldOpenAndReadOnAnInterruptedThread() throws Exception {
        try (Wal wal = Wal.open(new NioVfs(), dir, OPTIONS)) {
            for (int i = 0; i < 30; i++) {
                wal.append(WalTest.payload(i, 100), Durability.NONE);
            }
        }
        Thread.currentThread().interrupt();
        List<WalRecord> records;
        try (Wal wal = Wal.open(new NioVfs(), dir, OPTIONS)) { // recovery reads, cuts and fsyncs
            records = WalTest.readAll(wal, 1);
            assertThat(Thread.interrupted()).isTrue();
            assertThat(other.submit(() -> wal.append(new byte[7], Durability.SYNC)).get(60, TimeUnit.SECONDS))
                    .isEqualTo(31);
            Thread.currentThread().interrupt(); // and closed (sealed, fsynced, unlocked) on an interrupted thread
        }
        assertThat(Thread.interrupted()).isTrue();
        assertThat(records).hasSize(30);
        try (Wal wal = Wal.open(new NioVfs(), dir, OPTIONS.withRecoveryMode(RecoveryMode.ABSOLUTE))) {
            assertThat(WalTest.readAll(wal, 1)).hasSize(31);
        }
    }
}
