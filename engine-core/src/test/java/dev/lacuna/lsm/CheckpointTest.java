package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.kv.KvCursor;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.KvStore;
import dev.lacuna.kv.SstableOptions;
import dev.lacuna.kv.WriteBatch;
import dev.lacuna.storage.DatabaseClosedException;
import dev.lacuna.storage.Durability;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.storage.WalOptions;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.NioVfs;
import dev.lacuna.vfs.Vfs;
import dev.lacuna.vfs.VfsFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoints of a byte-level store taken while SYNC writers run, with tiny memtables, segments and manifests so
 * that flushes, compactions, log rolls and trims and manifest switches race the copy. Each writer numbers its
 * writes; the test knows every write's LSN, so it can say exactly what the copy must hold: every write up to the
 * LSN the checkpoint reports and none after it (a prefix of the log), and that LSN at least the last one
 * acknowledged before the call. On {@link MemVfs} the copy is opened from a power-loss clone taken as the call
 * returns, which keeps only what was fsynced: the copy must be durable by then.
 */
class CheckpointTest {
    private static final int WRITERS = 3;

    @TempDir
    Path tmp;

    private static KvOptions options(Vfs vfs) {
        return KvOptions.builder().vfs(vfs).partitions(2).memtableBytes(2048).memoryBudget(32 * 1024)
                .table(SstableOptions.defaults().withBlockSize(256)).targetFileBytes(4096).levelBaseBytes(8 * 1024)
                .l0CompactionTrigger(2).maxManifestBytes(2048)
                .wal(WalOptions.defaults().withBlockSize(256).withSegmentSize(8 * 1024).withPreallocate(1024))
                .durability(Durability.SYNC).build();
    }

    @Test
    void shouldCopyAPrefixHoldingEveryAcknowledgedWriteOnMemVfs() throws Exception {
        MemVfs vfs = new MemVfs();
        Path dir = Path.of("/db");
        Path dest = Path.of("/backup/copy");
        Run run = writeWhileCheckpointing(vfs, dir, dest, true);
        MemVfs crashed = vfs.crashClone(); // only what was fsynced, by now: the call has returned long ago
        try (LsmStore copy = LsmStore.open(dest, options(crashed))) {
            run.check(copy);
        }
    }

    @Test
    void shouldCopyAPrefixHoldingEveryAcknowledgedWriteOnRealFiles() throws Exception {
        NioVfs vfs = new NioVfs();
        Path dir = tmp.resolve("db");
        Path dest = tmp.resolve("backup");
        Run run = writeWhileCheckpointing(vfs, dir, dest, false);
        try (LsmStore copy = LsmStore.open(dest, options(vfs))) {
            run.check(copy);
        }
        try (LsmStore original = LsmStore.open(dir, options(vfs))) { // untouched by the copy and its writes
            assertThat(count(original)).isEqualTo(run.lsns.size() + WRITERS);
        }
    }

    /** What one run wrote, and what the checkpoint reported. */
    private record Run(Map<Long, String> lsns, long ackedBefore, long copied) {
        /** The copy holds exactly the writes with LSN up to {@link #copied}, which is at least {@link #ackedBefore}. */
        void check(LsmStore copy) {
            assertThat(copied).as("last LSN copied").isGreaterThanOrEqualTo(ackedBefore);
            TreeMap<String, String> expected = new TreeMap<>();
            lsns.forEach((lsn, write) -> {
                if (lsn <= copied) {
                    String[] kv = write.split("=");
                    expected.put(kv[0], kv[1]);
                    String writer = kv[0].substring(0, 2);
                    expected.merge("c" + writer.substring(1), kv[1], (a, b) -> a.compareTo(b) >= 0 ? a : b);
                }
            });
            TreeMap<String, String> actual = new TreeMap<>();
            try (KvCursor c = copy.scan(null, null, false, null)) {
                for (; c.valid(); c.next()) {
                    actual.put(str(c.key()), str(c.value()));
                }
            }
            assertThat(actual).isEqualTo(expected);
            // It works as a store of its own.
            copy.put(bytes("after"), bytes("1"));
            assertThat(str(copy.get(bytes("after")))).isEqualTo("1");
        }
    }

    private Run writeWhileCheckpointing(Vfs vfs, Path dir, Path dest, boolean twice) throws Exception {
        Map<Long, String> lsns = new ConcurrentHashMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong acked = new AtomicLong();
        CountDownLatch warm = new CountDownLatch(WRITERS * 200);
        AtomicReference<CountDownLatch> after = new AtomicReference<>();
        long ackedBefore;
        long copied;
        try (LsmStore store = LsmStore.open(dir, options(vfs))) {
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                Thread t = new Thread(() -> {
                    try {
                        for (int i = 0; !stop.get(); i++) {
                            String key = "w" + writer + "-" + String.format("%06d", i);
                            String value = String.format("%06d", i);
                            // The writer's counter goes with each write, in one batch: a copy holding a write holds
                            // its counter at least that far.
                            long lsn = store.write(new WriteBatch().put(bytes(key), bytes(value))
                                    .put(bytes("c" + writer), bytes(value)), Durability.SYNC);
                            lsns.put(lsn, key + "=" + value);
                            acked.accumulateAndGet(lsn, Math::max);
                            warm.countDown();
                            CountDownLatch counting = after.get();
                            if (counting != null) {
                                counting.countDown();
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "checkpoint-test-writer-" + w);
                writers.add(t);
                t.start();
            }
            assertThat(warm.await(60, TimeUnit.SECONDS)).as("writers warmed up").isTrue();
            ackedBefore = acked.get();
            copied = store.checkpoint(dest);
            if (twice) { // a second one while writes go on, into another directory, from the same store
                assertThat(store.checkpoint(dest.resolveSibling("second"))).isGreaterThanOrEqualTo(copied);
            }
            // Writers go on past the checkpoint: what they write now must not be in the copy.
            CountDownLatch more = new CountDownLatch(WRITERS * 50);
            after.set(more);
            boolean wentOn = more.await(60, TimeUnit.SECONDS);
            stop.set(true);
            for (Thread t : writers) {
                t.join(TimeUnit.SECONDS.toMillis(60));
                assertThat(t.isAlive()).as(t.getName() + " stopped").isFalse();
            }
            if (failure.get() != null) {
                throw new AssertionError("a writer failed", failure.get());
            }
            assertThat(wentOn).as("writes went on after the checkpoint").isTrue();
            assertThat(copied).as("writes after the checkpoint").isLessThan(acked.get());
        }
        return new Run(lsns, ackedBefore, copied);
    }

    /**
     * A log consumer behind the tables (an index updater catching up) needs the log from its checkpoint on, below
     * where recovery would start: the copy must hold that much too, or it does not open.
     */
    @Test
    void shouldCopyTheLogALogConsumerStillNeeds() {
        MemVfs vfs = new MemVfs();
        long first;
        try (LsmStore store = LsmStore.open(Path.of("/db"), options(vfs))) {
            first = store.write(new WriteBatch().put(bytes("k0"), bytes("v0")), Durability.SYNC);
            store.setLogCheckpoint("slow consumer", first);
            for (int i = 1; i < 500; i++) {
                store.put(bytes("k" + i), bytes("v" + i));
            }
            store.flush(); // the tables hold everything: recovery would start past what the consumer needs
            store.checkpoint(Path.of("/copy"));
        }
        try (LsmStore copy = LsmStore.open(Path.of("/copy"), options(vfs.crashClone()))) {
            assertThat(copy.logCheckpoints()).containsEntry("slow consumer", first);
            try (KvLogReader log = copy.logReader(first + 1)) {
                assertThat(log.next().lsn()).isEqualTo(first + 1);
            }
            assertThat(count(copy)).isEqualTo(500);
        }
    }

    @Test
    void shouldRefuseADestinationThatHoldsAnything() throws Exception {
        MemVfs vfs = new MemVfs();
        Path dest = Path.of("/full");
        vfs.mkdirs(dest);
        try (VfsFile f = vfs.create(dest.resolve("keep.txt"))) {
            f.write(0, bytes("mine"), 0, 4);
        }
        try (VfsFile f = vfs.create(Path.of("/afile"))) {
            f.write(0, bytes("x"), 0, 1);
        }
        try (KvStore store = KvStore.open(Path.of("/db"), options(vfs))) {
            store.put(bytes("k"), bytes("v"));
            assertThatThrownBy(() -> store.checkpoint(dest)).isInstanceOf(StorageIOException.class)
                    .hasMessageContaining("/full").hasMessageContaining("not empty");
            assertThatThrownBy(() -> store.checkpoint(Path.of("/afile"))).isInstanceOf(StorageIOException.class)
                    .hasMessageContaining("/afile").hasMessageContaining("not a directory");
            store.checkpoint(Path.of("/empty-is-fine"));
        }
        assertThat(vfs.list(dest)).containsExactly("keep.txt");
        assertThat(new String(vfs.readAll(dest.resolve("keep.txt")), StandardCharsets.UTF_8)).isEqualTo("mine");
        try (KvStore copy = KvStore.open(Path.of("/empty-is-fine"), options(vfs))) {
            assertThat(str(copy.get(bytes("k")))).isEqualTo("v");
        }
    }

    @Test
    void shouldRefuseACheckpointOfAClosedStore() {
        MemVfs vfs = new MemVfs();
        KvStore store = KvStore.open(Path.of("/db"), options(vfs));
        store.close();
        assertThatThrownBy(() -> store.checkpoint(Path.of("/copy"))).isInstanceOf(DatabaseClosedException.class);
        assertThat(vfs.exists(Path.of("/copy"))).isFalse();
    }

    @Test
    void shouldHardLinkTablesOnRealFiles() throws Exception {
        NioVfs vfs = new NioVfs();
        Path dir = tmp.resolve("db");
        // One flush, one table a partition, no compaction: nothing deletes a table while the test looks.
        try (KvStore store = KvStore.open(dir, options(vfs).toBuilder().memtableBytes(1 << 20).memoryBudget(4 << 20).build())) {
            for (int i = 0; i < 200; i++) {
                store.put(bytes("k" + i), bytes("v" + i));
            }
            store.flush();
            store.checkpoint(tmp.resolve("copy"));
            List<Path> tables;
            try (var files = Files.list(tmp.resolve("copy"))) {
                tables = files.filter(p -> p.toString().endsWith(".sst")).toList();
            }
            assertThat(tables).isNotEmpty();
            for (Path table : tables) {
                assertThat(Files.isSameFile(table, dir.resolve(table.getFileName()))).as(table + " linked").isTrue();
                assertThat(((Number) Files.getAttribute(table, "unix:nlink")).intValue()).isEqualTo(2);
            }
        }
    }

    private static long count(LsmStore store) {
        long n = 0;
        try (KvCursor c = store.scan(null, null, false, null)) {
            for (; c.valid(); c.next()) {
                n++;
            }
        }
        return n;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String str(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }
}
