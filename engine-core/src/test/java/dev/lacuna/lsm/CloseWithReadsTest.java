package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvStoreTest.DIR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvCursor;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.storage.DatabaseClosedException;
import dev.lacuna.vfs.MemVfs;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Reads that meet {@code close()}: each either completes with the right answer or fails with
 * {@link DatabaseClosedException} — never another error (a table closed under it, a file reopened and leaked).
 */
class CloseWithReadsTest {

    private static byte[] key(int i) {
        return String.format("k%06d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static LsmStore loaded(MemVfs vfs) {
        LsmStore kv = LsmStore.open(DIR, KvStoreTest.small(vfs, 2).toBuilder().maxOpenFiles(4).build());
        for (int i = 0; i < 3000; i++) {
            kv.put(key(i), key(i));
            if (i % 300 == 0) {
                kv.flush(); // many tables, more than the open-file limit: a scan opens them as it goes
            }
        }
        return kv;
    }

    @Test
    void shouldFailACursorUsedAfterCloseWithDatabaseClosed() {
        MemVfs vfs = new MemVfs();
        LsmStore kv = loaded(vfs);
        KvCursor c = kv.scan(null, null, false, null);
        int read = 0;
        for (; c.valid() && read < 10; c.next()) {
            read++;
        }
        kv.close();
        Throwable failure = null;
        try {
            for (; c.valid(); c.next()) {
                assertThat(c.key()).isEqualTo(key(read));
                read++;
            }
        } catch (RuntimeException e) {
            failure = e;
        }
        c.close();
        if (failure != null) {
            assertThat(failure).isInstanceOf(DatabaseClosedException.class);
        } else {
            assertThat(read).isEqualTo(3000);
        }
    }

    @Test
    void shouldLetGetsRacingCloseSucceedOrSayClosed() throws Exception {
        for (int round = 0; round < 20; round++) {
            MemVfs vfs = new MemVfs();
            LsmStore kv = loaded(vfs);
            CountDownLatch started = new CountDownLatch(2);
            AtomicReference<Throwable> wrong = new AtomicReference<>();
            List<Thread> readers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int seed = t;
                Thread r = new Thread(() -> {
                    started.countDown();
                    for (int i = seed; ; i = (i + 7) % 3000) {
                        try {
                            byte[] v = kv.get(key(i));
                            if (v == null || !java.util.Arrays.equals(v, key(i))) {
                                wrong.compareAndSet(null, new AssertionError("wrong value for " + i));
                                return;
                            }
                        } catch (DatabaseClosedException e) {
                            return;
                        } catch (Throwable e) {
                            wrong.compareAndSet(null, e);
                            return;
                        }
                    }
                });
                readers.add(r);
                r.start();
            }
            started.await();
            kv.close();
            for (Thread r : readers) {
                r.join();
            }
            assertThat(wrong.get()).as("round %d", round).isNull();
        }
    }
}
