package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A put whose grouped log write failed unplaces its entry outside the commit lock. Its insert ticket is dropped from
 * the in-flight queue by the next writer that is handed its LSN again (InsertOrder.begin), so a drain no longer
 * waits for it: the memtable can be switched before the failed put unplaces, which then unplaces its node (an
 * address in the old memtable's arena) into the new memtable's arena.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class UnplaceAfterSwitchTest {
    private static final Path DIR = Path.of("/db");

    @Test
    void aFailedPutMustNotUnplaceIntoTheNextMemtable() throws Exception {
        CountDownLatch failedPutHeld = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean failNext = new AtomicBoolean();
        ForwardingVfs vfs = new ForwardingVfs(new MemVfs()) {
            @Override
            protected VfsFile wrap(VfsFile f) {
                return new ForwardingVfs.File(f) {
                    @Override
                    public void write(ByteBuffer src, long position) throws IOException {
                        if (f.name().endsWith(".wal") && position > 0 && failNext.compareAndSet(true, false)) {
                            throw new HeldFailure(failedPutHeld, release);
                        }
                        super.write(src, position);
                    }
                };
            }
        };
        ExecutorService threads = Executors.newCachedThreadPool();
        try (LsmStore kv = LsmStore.open(DIR, KvOptions.builder().vfs(vfs).durability(Durability.NONE).build())) {
          try {
            failNext.set(true);
            Future<?> a = threads.submit(() -> kv.put(b("a"), b("1")));
            // a's write failed; its writer is between the log write and its unplace
            assertThat(failedPutHeld.await(30, TimeUnit.SECONDS)).isTrue();
            kv.put(b("b"), b("1")); // handed a's LSN again: a's ticket leaves the queue
            threads.submit(kv::flush).get(30, TimeUnit.SECONDS); // switches the memtable a placed into
            kv.put(b("c"), b("1")); // the first node of the new memtable
            release.countDown();
            try {
                a.get(30, TimeUnit.SECONDS);
                throw new AssertionError("a succeeded");
            } catch (ExecutionException expected) {
                // its log write failed
            }
            Future<byte[]> reads = threads.submit(() -> {
                kv.put(b("d"), b("2"));
                return kv.get(b("c"));
            });
            assertThat(reads.get(30, TimeUnit.SECONDS)).as("c after d was put").isEqualTo(b("1"));
            assertThat(kv.get(b("d"))).isEqualTo(b("2"));
          } catch (Throwable t) {
            t.printStackTrace();
            release.countDown();
            throw t;
          }
        } finally {
            release.countDown();
            threads.shutdownNow();
        }
    }

    /** A log write failure whose message, asked for by the failed writer in Wal.write, waits for the test. */
    private static final class HeldFailure extends IOException {
        private final transient CountDownLatch held;
        private final transient CountDownLatch release;

        HeldFailure(CountDownLatch held, CountDownLatch release) {
            super("injected: the log write failed");
            this.held = held;
            this.release = release;
        }

        @Override
        public String getMessage() {
            boolean fromWrite = StackWalker.getInstance().walk(s -> s.skip(1).findFirst())
                    .map(f -> f.getClassName().equals("dev.lacuna.wal.Wal") && f.getMethodName().equals("write"))
                    .orElse(false);
            if (fromWrite) {
                held.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return super.getMessage();
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
