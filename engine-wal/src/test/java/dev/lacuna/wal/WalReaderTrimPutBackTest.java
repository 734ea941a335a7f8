package dev.lacuna.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.storage.Durability;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Review of 56951dd (lock-free tailing readers): a trim whose delete fails puts the segments back one by one
 * under the write lock. Readers no longer take that lock, so a reader can see the map with the older segment put
 * back and its successor not yet: segmentContaining then returns the older segment, and a reader that lost its
 * place (reader == null after "segment is gone") reads that older segment from its start and hands out records it
 * already returned, going backwards. Before the change the reader's look-up waited for the whole re-add.
 */
class WalReaderTrimPutBackTest {
    private static final Path DIR = WalTest.DIR;

    /** The segment map, blocking the re-add of segment 2 until released. */
    static final class GatedMap extends ConcurrentSkipListMap<Long, Long> {
        final AtomicBoolean armed = new AtomicBoolean();
        final CountDownLatch reAddingTwo = new CountDownLatch(1);
        final CountDownLatch go = new CountDownLatch(1);

        @Override
        public Long put(Long key, Long value) {
            if (key == 2L && armed.compareAndSet(true, false)) {
                reAddingTwo.countDown();
                try {
                    go.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return super.put(key, value);
        }
    }

    @Test
    void shouldNeverReturnARecordAgainWhileATrimPutsSegmentsBack() throws Exception {
        MemVfs mem = new MemVfs();
        AtomicBoolean failDelete = new AtomicBoolean();
        CountDownLatch removed = new CountDownLatch(1);
        CountDownLatch readerTried = new CountDownLatch(1);
        ForwardingVfs vfs = new ForwardingVfs(mem) {
            @Override
            public void delete(Path file) throws IOException {
                if (file.getFileName().toString().equals(WalFormat.segmentName(1)) && failDelete.compareAndSet(true, false)) {
                    removed.countDown(); // segments 1 and 2 are out of the map now
                    try {
                        readerTried.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    throw new IOException("injected: cannot delete segment 1");
                }
                super.delete(file);
            }
        };
        try (Wal wal = Wal.open(vfs, DIR, WalTest.SMALL)) {
            for (int s = 0; s < 3; s++) { // segment 1: LSN 1-3, segment 2: 4-6, segment 3 (current): 7-9
                for (int i = 0; i < 3; i++) {
                    wal.append(WalTest.payload(s * 3 + i, 20), Durability.NONE);
                }
                if (s < 2) {
                    assertThat(wal.rollIfNotEmpty()).isTrue();
                }
            }
            assertThat(wal.firstLsnOf(2)).isEqualTo(4L);
            Field f = Wal.class.getDeclaredField("segments");
            f.setAccessible(true);
            @SuppressWarnings("unchecked")
            ConcurrentSkipListMap<Long, Long> original = (ConcurrentSkipListMap<Long, Long>) f.get(wal);
            GatedMap gated = new GatedMap();
            gated.putAll(original);
            f.set(wal, gated);

            WalReader reader = wal.reader(1);
            for (long lsn = 1; lsn <= 3; lsn++) {
                assertThat(reader.next().lsn()).isEqualTo(lsn);
            }
            failDelete.set(true);
            gated.armed.set(true);
            Thread trim = new Thread(() -> wal.deleteObsoleteSegments(6), "trim");
            trim.start();
            assertThat(removed.await(30, TimeUnit.SECONDS)).isTrue();
            // The reader behind retention is told so (as before the change).
            assertThatThrownBy(reader::next).isInstanceOf(StorageIOException.class).hasMessageContaining("gone");
            readerTried.countDown();
            assertThat(gated.reAddingTwo.await(30, TimeUnit.SECONDS)).isTrue();
            // Segment 1 is back, segment 2 not yet. The reader tries again (an index updater's retry loop).
            AtomicReference<Object> got = new AtomicReference<>();
            CountDownLatch done = new CountDownLatch(1);
            Thread retry = new Thread(() -> {
                try {
                    WalRecord r = reader.next();
                    got.set(r == null ? "null" : r.lsn());
                } catch (Throwable t) {
                    got.set(t);
                }
                done.countDown();
            }, "retry");
            retry.start();
            // Before the change the retry waited for the write lock the re-add holds: give it that chance.
            done.await(5, TimeUnit.SECONDS);
            gated.go.countDown();
            retry.join(30_000);
            trim.join(30_000);
            reader.close();
            Object result = got.get();
            if (result instanceof Throwable t) {
                assertThat(t).isInstanceOf(StorageIOException.class); // "gone" again would be fine
            } else {
                assertThat(result).as("the record after LSN 3, never one already returned").isEqualTo(4L);
            }
        }
    }
}
