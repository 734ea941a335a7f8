package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code verifyChecksums} reads the store's tables, manifest and log in the caller's thread, like a checkpoint.
 * Close did not wait for it: it released the directory under the check, the next open's compactions deleted
 * tables the check still listed, and the check then reported a healthy store damaged ("the manifest names this
 * table but it is missing"). Close now waits for the check (and says so at INFO, which is how this test knows)
 * and keeps the directory until it ended. From the adversarial review of the close changes.
 */
class CloseWaitsForVerifyTest {
    private static final String VERIFIER = "verifier";
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

    /** Holds the check in its first look at a table's size until released. */
    private static final class Pausing extends ForwardingVfs {
        final CountDownLatch paused = new CountDownLatch(1);
        final CountDownLatch resume = new CountDownLatch(1);

        Pausing(MemVfs inner) {
            super(inner);
        }

        @Override
        public long size(Path file) throws IOException {
            if (Thread.currentThread().getName().equals(VERIFIER) && file.toString().endsWith(".sst")
                    && paused.getCount() > 0) {
                paused.countDown();
                try {
                    resume.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return super.size(file);
        }
    }

    private static byte[] key(int i) {
        return String.format("a%06d", i).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldKeepTheDirectoryUntilACheckRunningInAnotherThreadEnds() throws Exception {
        MemVfs mem = new MemVfs();
        Pausing vfs = new Pausing(mem);
        var options = KvStoreTest.small(mem, 1).toBuilder().vfs(vfs).build();
        LsmStore store = LsmStore.open(DIR, options);
        for (int i = 0; i < 2000; i++) {
            store.put(key(i), key(i));
        }
        store.flush();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread verifier = new Thread(() -> {
            try {
                store.verifyChecksums();
            } catch (Throwable e) {
                thrown.set(e);
            }
        }, VERIFIER);
        Thread closer = new Thread(store::close, "closer");
        verifier.start();
        try {
            assertThat(vfs.paused.await(30, TimeUnit.SECONDS)).as("the check is under way").isTrue();
            closer.start();
            while (closeWaits.getCount() > 0 && closer.isAlive()) {
                closeWaits.await(100, TimeUnit.MILLISECONDS); // until close says it waits, or it returned
            }
            assertThat(closeWaits.getCount()).as("close waits for the check running in another thread").isZero();
            assertThatThrownBy(() -> LsmStore.open(DIR, options)).as("the directory, while the check runs")
                    .isInstanceOf(StorageIOException.class).hasMessageContaining("locked");
        } finally {
            vfs.resume.countDown();
            verifier.join(60_000);
            closer.join(60_000);
        }
        assertThat(verifier.isAlive() || closer.isAlive()).as("check and close ended").isFalse();
        assertThat(thrown.get()).as("what the check of a healthy store said").isNull();
        try (LsmStore again = LsmStore.open(DIR, options)) {
            assertThat(again.get(key(7))).isEqualTo(key(7));
        }
    }
}
