package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.KvSnapshot;
import dev.lacuna.storage.DatabaseClosedException;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * compactRange runs in the caller's thread and LsmStore.close does not wait for it: close closes the tables and
 * the manifest and releases the directory lock while the compaction is between two output tables. The next open
 * of the directory (here in this process; another process alike) reuses the file numbers the compaction had
 * allocated but never recorded, flushes acknowledged writes into one of them, and then the first store's
 * compaction fails on its closed tables and its SstableOutputs.abandon() deletes, by name, the files it
 * "created": the second store's live table. The second store then cannot be reopened (its manifest names a
 * table that is gone) and the flushed writes are lost. Close now waits for the compaction (and says so at INFO,
 * which is how this test knows it waits) and keeps the directory until it ended.
 */
class CloseWaitsForCompactRangeTest {
    private static final String COMPACTOR = "range-compactor";
    private static final Path DIR = Path.of("/db");

    private final CloseWaitLog log = new CloseWaitLog();
    private final CountDownLatch closeWaits = log.closeWaits;

    @BeforeEach
    void captureInfo() {
        log.start();
    }

    @AfterEach
    void restoreLogging() {
        log.stop();
    }

    private static final class Pausing extends ForwardingVfs {
        final CountDownLatch paused = new CountDownLatch(1);
        final CountDownLatch resume = new CountDownLatch(1);
        final List<String> created = new CopyOnWriteArrayList<>();

        Pausing(MemVfs inner) {
            super(inner);
        }

        @Override
        public VfsFile create(Path file) throws IOException {
            VfsFile f = super.create(file);
            if (!Thread.currentThread().getName().equals(COMPACTOR) || !file.toString().endsWith(".sst")) {
                return f;
            }
            created.add(file.getFileName().toString());
            if (created.size() == 2) { // between the compaction's first and second output: the second is created
                paused.countDown();
                try {
                    resume.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return f;
        }
    }

    /**
     * Small tables, and no compaction of the background's own (level 0 and level sizes far below their triggers),
     * so that compactRange, not a background job, is what rewrites the files.
     */
    private static KvOptions options(MemVfs mem, Pausing vfs) {
        return KvStoreTest.small(mem, 1).toBuilder().vfs(vfs).l0CompactionTrigger(100).l0StopWritesTrigger(200)
                .levelBaseBytes(1L << 30).build();
    }

    private static byte[] key(String prefix, int i) {
        return String.format("%s%06d", prefix, i).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldNotDeleteATableOfTheNextOpenAfterClose() throws Exception {
        MemVfs mem = new MemVfs();
        Pausing vfs = new Pausing(mem);
        LsmStore first = LsmStore.open(DIR, options(mem, vfs));
        for (int i = 0; i < 3000; i++) {
            first.put(key("a", i), key("value-a", i));
        }
        first.flush();
        // Held: the deletions below are then too new for a background compaction triggered by deletions.
        KvSnapshot holdsDeletions = first.snapshot();
        for (int i = 0; i < 3000; i += 2) {
            first.delete(key("a", i)); // deletions: compactRange rewrites what holds them
        }
        first.flush();
        Thread compactor = new Thread(() -> {
            try {
                first.compactRange(null, null);
            } catch (RuntimeException e) {
                System.out.println("the first store's compaction: " + e);
            }
        }, COMPACTOR);
        compactor.start();
        assertThat(vfs.paused.await(20, TimeUnit.SECONDS)).as("compaction between two outputs; created %s", vfs.created).isTrue();
        CountDownLatch closeReturned = new CountDownLatch(1);
        Thread closer = new Thread(() -> {
            first.close();
            closeReturned.countDown();
        }, "closer");
        closer.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (closeReturned.getCount() > 0 && !closeWaits.await(10, TimeUnit.MILLISECONDS)
                && System.nanoTime() < deadline) {
            closeReturned.await(10, TimeUnit.MILLISECONDS);
        }
        // Before the fix, close returned at once, although its compaction still ran, and released the directory.
        boolean releasedUnderTheCompaction = closeReturned.getCount() == 0;
        if (!releasedUnderTheCompaction) {
            assertThat(closeWaits.getCount()).as("close returned or said it waits").isZero();
            assertThatThrownBy(() -> LsmStore.open(DIR, options(mem, vfs)))
                    .as("the directory while the closing store's compaction runs").isInstanceOf(StorageIOException.class)
                    .hasMessageContaining("locked");
            vfs.resume.countDown();
            closer.join(60_000);
            assertThat(closer.isAlive()).as("close ended once its compaction did").isFalse();
        }

        LsmStore second = LsmStore.open(DIR, options(mem, vfs));
        for (int i = 0; i < 50; i++) {
            second.put(key("b", i), key("value-b", i));
            if (i % 10 == 9) {
                second.flush(); // acknowledged and in a table
            }
        }
        vfs.resume.countDown();
        compactor.join(60_000);
        holdsDeletions.close();
        System.out.println("the first store's compaction created " + vfs.created + "; the directory holds "
                + mem.list(DIR));
        second.close();
        try (LsmStore again = LsmStore.open(DIR, options(mem, vfs))) {
            for (int i = 0; i < 50; i++) {
                assertThat(again.get(key("b", i))).as("flushed write %d of the second store", i)
                        .isEqualTo(key("value-b", i));
            }
            for (int i = 1; i < 3000; i += 2) {
                assertThat(again.get(key("a", i))).as("write %d of the first store", i).isEqualTo(key("value-a", i));
            }
        }
        assertThat(releasedUnderTheCompaction).as("close returned while its compactRange still ran").isFalse();
    }

    @Test
    void shouldRefuseACompactRangeAfterClose() {
        MemVfs mem = new MemVfs();
        LsmStore store = LsmStore.open(DIR, KvStoreTest.small(mem, 1));
        store.put(key("a", 1), key("value-a", 1));
        store.close();
        assertThatThrownBy(() -> store.compactRange(null, null)).isInstanceOf(DatabaseClosedException.class);
        assertThatThrownBy(() -> store.checkpoint(Path.of("/copy"))).isInstanceOf(DatabaseClosedException.class);
    }
}
