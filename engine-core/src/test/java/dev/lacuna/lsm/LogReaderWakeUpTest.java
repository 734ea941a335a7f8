package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.storage.DatabaseClosedException;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A log reader waiting for the next record ({@link KvLogReader#next(Duration)}) waits for it to be published
 * ({@link Visibility}), not appended: it is handed the record only once reads see it, and the store's close
 * wakes it as the log's close did when it waited on the log.
 */
class LogReaderWakeUpTest {
    private static final Path DIR = Path.of("/db");

    @Test
    void shouldHandAWaitingReaderASyncWriteOnlyOnceItsFsyncReturned() throws Exception {
        ControlledVfs vfs = new ControlledVfs(new MemVfs(), ".wal");
        try (LsmStore kv = LsmStore.open(DIR, options(vfs));
             KvLogReader log = kv.logReader(1)) {
            CompletableFuture<KvLogReader.Batch> read = new CompletableFuture<>();
            Thread reader = new Thread(() -> {
                try {
                    read.complete(log.next(Duration.ofSeconds(60)));
                } catch (Throwable e) {
                    read.completeExceptionally(e);
                }
            });
            reader.start();
            awaitWaiting(reader);
            vfs.hold();
            CompletableFuture<Void> put = CompletableFuture.runAsync(() -> kv.put(b("k"), b("v")));
            vfs.awaitHeld(); // appended and handed to the OS, its fsync under way: not visible
            boolean handedEarly = read.isDone();
            vfs.release();
            put.get(30, TimeUnit.SECONDS);
            assertThat(handedEarly).as("a waiting reader handed a record before its fsync").isFalse();
            KvLogReader.Batch b = read.get(60, TimeUnit.SECONDS);
            assertThat(b).isNotNull();
            assertThat(b.lsn()).isEqualTo(kv.lastSequence());
        }
    }

    @Test
    void shouldWakeAReaderWaitingForTheNextRecordWhenTheStoreCloses() throws Exception {
        LsmStore kv = LsmStore.open(DIR, options(new MemVfs()));
        KvLogReader log = kv.logReader(1);
        CompletableFuture<Object> read = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try {
                read.complete(log.next(Duration.ofMinutes(10)));
            } catch (DatabaseClosedException e) {
                read.complete(e);
            } catch (Throwable e) {
                read.completeExceptionally(e);
            }
        });
        reader.start();
        awaitWaiting(reader);
        kv.close();
        // Before the store woke readers waiting for a publication, this one slept out its ten minutes.
        assertThat(read.get(60, TimeUnit.SECONDS)).isInstanceOf(DatabaseClosedException.class);
        log.close();
    }

    private static KvOptions options(dev.lacuna.vfs.Vfs vfs) {
        return KvOptions.builder().vfs(vfs).durability(Durability.SYNC).build();
    }

    /** Waits (up to 30 s) until {@code thread} waits (with a timeout, as a log reader does). */
    private static void awaitWaiting(Thread thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (thread.getState() != Thread.State.TIMED_WAITING && thread.getState() != Thread.State.TERMINATED) {
            assertThat(System.nanoTime()).as("the reader never waited").isLessThan(deadline);
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
