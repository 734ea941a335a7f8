package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.KvSnapshot;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A {@code SYNC} write becomes visible only once its fsync returned (RocksDB's order): while it waits,
 * reads, snapshots and log readers do not see it, and a write logged after it — of any durability — is
 * held back with it. Otherwise a reader could act on a write that a power loss then takes away.
 */
class SyncVisibilityTest {
    private static final Path DIR = Path.of("/db");

    @Test
    void shouldNotShowASyncWriteBeforeItsFsync() throws Exception {
        MemVfs mem = new MemVfs();
        ControlledVfs vfs = new ControlledVfs(mem, ".wal");
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            kv.put(b("before"), b("1"));
            vfs.hold();
            CompletableFuture<Void> put = CompletableFuture.runAsync(() -> kv.put(b("k"), b("v")));
            vfs.awaitHeld();

            byte[] seen = kv.get(b("k"));
            long snapshotSequence;
            try (KvSnapshot s = kv.snapshot()) {
                snapshotSequence = s.sequence();
            }
            MemVfs crashed = mem.crashClone(); // power loss while the fsync is under way

            vfs.release();
            put.get(30, TimeUnit.SECONDS);
            assertThat(seen).as("visible before its fsync").isNull();
            assertThat(snapshotSequence).isLessThan(kv.lastSequence());
            assertThat(kv.get(b("k"))).isEqualTo(b("v"));
            try (LsmStore recovered = LsmStore.open(DIR, options(crashed))) {
                assertThat(recovered.get(b("k"))).as("lost by the power loss").isNull();
                assertThat(recovered.get(b("before"))).isEqualTo(b("1"));
            }
        }
    }

    @Test
    void shouldHoldBackALaterUnsyncedWriteUntilTheSyncWriteBeforeItIsDurable() throws Exception {
        ControlledVfs vfs = new ControlledVfs(new MemVfs(), ".wal");
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            vfs.hold();
            CompletableFuture<Void> sync = CompletableFuture.runAsync(() -> kv.put(b("a"), b("1")));
            vfs.awaitHeld();
            long syncLsn = kv.loggedSequence();
            CompletableFuture<Void> none = CompletableFuture.runAsync(
                    () -> kv.write(new WriteBatch().put(b("b"), b("2")), Durability.NONE));
            awaitLogged(kv, syncLsn + 1);

            byte[] seenB = kv.get(b("b"));
            boolean noneReturned = none.isDone();
            vfs.release();
            sync.get(30, TimeUnit.SECONDS);
            none.get(30, TimeUnit.SECONDS);
            assertThat(seenB).as("a write logged after a SYNC write waiting for its fsync").isNull();
            assertThat(noneReturned).as("its writer returned before it was visible").isFalse();
            assertThat(kv.get(b("b"))).isEqualTo(b("2"));
        }
    }

    @Test
    void shouldNotHandALogReaderASyncWriteBeforeItsFsync() throws Exception {
        ControlledVfs vfs = new ControlledVfs(new MemVfs(), ".wal");
        try (LsmStore kv = LsmStore.open(DIR, options(vfs));
             KvLogReader log = kv.logReader(1)) {
            vfs.hold();
            CompletableFuture<Void> put = CompletableFuture.runAsync(() -> kv.put(b("k"), b("v")));
            vfs.awaitHeld();
            KvLogReader.Batch early = log.next();
            vfs.release();
            put.get(30, TimeUnit.SECONDS);
            assertThat(early).as("a log record handed out before its fsync").isNull();
            assertThat(log.next(Duration.ofSeconds(30))).isNotNull();
        }
    }

    /**
     * A flush makes the log durable up to its memtable's last write itself; the memtable may hold a newer
     * version of a key that is not visible yet (its SYNC writer has not seen its fsync return) over the
     * version readers see. The flush must not keep only the newer one: a read then found neither (the
     * transaction crash test's writers saw accounts vanish).
     */
    @Test
    void shouldKeepTheVisibleVersionWhenAFlushMeetsANewerOneNotYetVisible() {
        try (LsmStore kv = LsmStore.open(DIR, options(new MemVfs()))) {
            kv.put(b("k"), b("v1"));
            long lsn = kv.writeNoWait(new WriteBatch().put(b("k"), b("v2")), Durability.SYNC); // logged, not visible
            assertThat(kv.get(b("k"))).isEqualTo(b("v1"));

            kv.flush();

            assertThat(kv.get(b("k"))).as("read after the flush").isIn(b("v1"), b("v2"));
            kv.awaitDurable(lsn, Durability.SYNC);
            assertThat(kv.get(b("k"))).isEqualTo(b("v2"));
        }
    }

    /** Spins (no sleeping) until the store has logged {@code lsn}; the writer then waits for visibility. */
    private static void awaitLogged(LsmStore kv, long lsn) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (kv.loggedSequence() < lsn) {
            assertThat(System.nanoTime()).as("the second write was never logged").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    private static KvOptions options(dev.lacuna.vfs.Vfs vfs) {
        return KvOptions.builder().vfs(vfs).durability(Durability.SYNC).build();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
