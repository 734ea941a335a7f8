package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.Durability;
import dev.lacuna.storage.RetryPolicy;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.FaultyVfs;
import dev.lacuna.vfs.ForwardingVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A flush or compaction that fails on a transient error (a full disk) is retried, and the store carries on
 * by itself once the disk has room again, without a reopen; what is permanent (corruption) still stops
 * writes. Whatever happened, every acknowledged write survives a power loss and a reopen.
 */
@Timeout(60)
class TransientFaultRecoveryTest {
    private static final Path DIR = Path.of("/db");
    private static final int KEYS = 200;
    private static final RetryPolicy FAST = new RetryPolicy(Duration.ofMillis(1), Duration.ofMillis(20));

    @Test
    void shouldFinishAFlushThatFailedOnAFullDiskOnceTheDiskHasRoom() throws Exception {
        MemVfs mem = new MemVfs();
        FaultyVfs vfs = new FaultyVfs(mem);
        try (LsmStore kv = LsmStore.open(DIR, options(vfs, FAST))) {
            putKeys(kv, 0, KEYS);
            vfs.diskFullAfter(100); // the table's first write lands in part, every later one fails
            assertThatThrownBy(kv::flush).as("a flush on a full disk").isInstanceOf(StorageIOException.class)
                    .hasMessageContaining("retries a failed flush");
            // Two failures: the flush failed, and was tried again while the disk was still full.
            awaitCondition(() -> vfs.injectedCount() >= 2, "the flush to fail twice");
            vfs.heal();
            awaitCondition(() -> kv.stats().flushes() >= 1, "the flush to succeed by itself, without a reopen");
            putKeys(kv, KEYS, 2 * KEYS); // writes go on
            flushThroughRetries(kv);
            assertAllKeys(kv, 2 * KEYS);
        }
        try (LsmStore kv = LsmStore.open(DIR, options(mem.crashClone(), FAST))) {
            assertAllKeys(kv, 2 * KEYS);
        }
    }

    @Test
    void shouldStartANewManifestAfterAManifestWriteLeftAPartialRecord() throws Exception {
        MemVfs mem = new MemVfs();
        TearingVfs vfs = new TearingVfs(mem);
        try (LsmStore kv = LsmStore.open(DIR, options(vfs, FAST))) {
            putKeys(kv, 0, KEYS);
            vfs.tearNextWriteOf("MANIFEST-");
            flushThroughRetries(kv); // its edit's record is torn, then the flush is retried and succeeds
            assertThat(vfs.torn).as("the manifest write was torn").isTrue();
            putKeys(kv, KEYS, 2 * KEYS);
            flushThroughRetries(kv); // and later edits are not appended after the torn record
            assertAllKeys(kv, 2 * KEYS);
        }
        assertThat(mem.list(DIR).stream().filter(n -> n.startsWith("MANIFEST-")).count())
                .as("manifests left").isEqualTo(1);
        try (LsmStore kv = LsmStore.open(DIR, options(mem.crashClone(), FAST))) {
            assertAllKeys(kv, 2 * KEYS);
        }
    }

    @Test
    void shouldKeepTheOutputsOfAnEditWhoseFsyncFailedUntilANewManifestIsCurrent() throws Exception {
        MemVfs mem = new MemVfs();
        TearingVfs vfs = new TearingVfs(mem);
        // A retry an hour away: the store is closed while it waits, which must end the wait at once.
        RetryPolicy slow = new RetryPolicy(Duration.ofHours(1), Duration.ofHours(1));
        try (LsmStore kv = LsmStore.open(DIR, options(vfs, slow))) {
            putKeys(kv, 0, KEYS);
            vfs.failNextForceOf("MANIFEST-");
            CompletableFuture<Void> flush = CompletableFuture.runAsync(kv::flush);
            assertThatThrownBy(() -> flush.get(30, TimeUnit.SECONDS)).as("a flush while its job is retried")
                    .hasCauseInstanceOf(StorageIOException.class).hasMessageContaining("retries a failed flush");
            assertThat(vfs.forceFailed).as("the manifest fsync failed").isTrue();
            kv.close(); // the edit is in the manifest whole, though its fsync failed: a restart reads it
        }
        try (LsmStore kv = LsmStore.open(DIR, options(mem, FAST))) { // a restart: the disk kept every write
            assertAllKeys(kv, KEYS);
        }
    }

    @Test
    void shouldStopWritesForGoodWhenACompactionMeetsCorruption() throws Exception {
        MemVfs mem = new MemVfs();
        KvOptions options = options(mem, FAST).toBuilder().l0CompactionTrigger(2).l0StopWritesTrigger(3).build();
        try (LsmStore kv = LsmStore.open(DIR, options)) {
            putKeys(kv, 0, KEYS);
            kv.flush();
            for (String name : mem.list(DIR)) {
                if (name.endsWith(".sst")) {
                    flipByteInTheMiddle(mem, DIR.resolve(name));
                }
            }
            putKeys(kv, 0, KEYS);
            try {
                kv.flush(); // a second level-0 table: the compaction that merges both reads the damaged one
            } catch (StorageIOException e) {
                // that compaction may have met the damage before this call returned
            }
            awaitCondition(() -> refusesWrites(kv), "writes to be refused");
            assertThatThrownBy(() -> kv.put(key(0), key(0))).as("a write after the corruption was met")
                    .hasRootCauseInstanceOf(CorruptionException.class);
        }
    }

    /** Flushes; while a failed flush is being retried the store refuses, so ask again until it is done. */
    static void flushThroughRetries(LsmStore kv) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                kv.flush();
                return;
            } catch (StorageIOException e) {
                if (!e.getMessage().contains("retries a failed flush") || System.nanoTime() > deadline) {
                    throw e;
                }
            }
            Thread.onSpinWait(); // a condition wait bounded by the deadline
        }
    }

    private static boolean refusesWrites(LsmStore kv) {
        try {
            kv.put(key(KEYS), key(KEYS));
            return false;
        } catch (RuntimeException e) {
            return true;
        }
    }

    private static void flipByteInTheMiddle(MemVfs mem, Path file) throws IOException {
        try (VfsFile f = mem.open(file)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            long at = f.size() / 4; // inside the first data block
            f.read(b, at);
            b.flip();
            byte flipped = (byte) (b.get(0) ^ 0x10);
            f.write(ByteBuffer.wrap(new byte[] {flipped}), at);
            f.force();
        }
    }

    private static void putKeys(LsmStore kv, int from, int to) {
        for (int i = from; i < to; i++) {
            kv.put(key(i), key(i));
        }
    }

    private static void assertAllKeys(LsmStore kv, int n) {
        int readable = 0;
        for (int i = 0; i < n; i++) {
            if (java.util.Arrays.equals(kv.get(key(i)), key(i))) {
                readable++;
            }
        }
        assertThat(readable).as("acknowledged keys readable").isEqualTo(n);
    }

    static void awaitCondition(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.onSpinWait(); // a condition wait bounded by the deadline
        }
    }

    private static KvOptions options(Vfs vfs, RetryPolicy retry) {
        return KvOptions.builder().vfs(vfs).durability(Durability.SYNC).retry(retry).build();
    }

    private static byte[] key(int i) {
        return String.format("key%05d", i).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Tears the next write to a file whose name contains a given text (half its bytes land, then it throws,
     * as a disk filling up does), or fails the next fsync of one (the bytes stay written, not durable).
     */
    private static final class TearingVfs extends ForwardingVfs {
        private volatile String tearing;
        private volatile String failingForce;
        volatile boolean torn;
        volatile boolean forceFailed;

        TearingVfs(Vfs inner) {
            super(inner);
        }

        void tearNextWriteOf(String part) {
            tearing = part;
        }

        void failNextForceOf(String part) {
            failingForce = part;
        }

        @Override
        protected VfsFile wrap(VfsFile f) {
            return new ForwardingVfs.File(f) {
                @Override
                public void write(ByteBuffer src, long position) throws IOException {
                    String part = tearing;
                    if (part != null && f.name().contains(part) && src.remaining() > 1) {
                        tearing = null;
                        ByteBuffer half = src.duplicate();
                        half.limit(half.position() + src.remaining() / 2);
                        super.write(half, position);
                        torn = true;
                        throw new IOException("No space left on device (injected, after a partial write): " + f.name());
                    }
                    super.write(src, position);
                }

                @Override
                public void force() throws IOException {
                    String part = failingForce;
                    if (part != null && f.name().contains(part)) {
                        failingForce = null;
                        forceFailed = true;
                        throw new IOException("fsync failed (injected): " + f.name());
                    }
                    super.force();
                }
            };
        }
    }
}
