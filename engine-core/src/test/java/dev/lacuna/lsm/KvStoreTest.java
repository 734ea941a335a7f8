package dev.lacuna.lsm;

import dev.lacuna.kv.KvCursor;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.KvSnapshot;
import dev.lacuna.kv.KvStats;
import dev.lacuna.kv.WriteBatch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.storage.DatabaseClosedException;
import dev.lacuna.storage.Durability;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.kv.SstableOptions;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.vfs.NioVfs;
import dev.lacuna.storage.WalOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KvStoreTest {
    static final Path DIR = Path.of("/db");

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String s(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    static KvOptions small(MemVfs vfs, int partitions) {
        return KvOptions.builder().vfs(vfs).partitions(partitions).memtableBytes(4096).memoryBudget(64 * 1024)
                .table(SstableOptions.defaults().withBlockSize(256)).levelBaseBytes(16 * 1024).targetFileBytes(4096)
                .wal(WalOptions.defaults().withSegmentSize(64 * 1024).withPreallocate(4096))
                .durability(Durability.NONE).build();
    }

    static List<String> keys(KvCursor c) {
        List<String> out = new ArrayList<>();
        try (c) {
            for (; c.valid(); c.next()) {
                out.add(s(c.key()) + "=" + s(c.value()));
            }
        }
        return out;
    }

    @Test
    void shouldPutGetDeleteAndScanBothWays() {
        try (LsmStore kv = LsmStore.open(DIR, small(new MemVfs(), 4))) {
            kv.put(b("b"), b("2"));
            kv.put(b("a"), b("1"));
            kv.put(b("c"), b("3"));
            kv.put(b("b"), b("22"));
            kv.delete(b("c"));
            assertThat(s(kv.get(b("b")))).isEqualTo("22");
            assertThat(kv.get(b("c"))).isNull();
            assertThat(keys(kv.scan(null, null, false, null))).containsExactly("a=1", "b=22");
            assertThat(keys(kv.scan(null, null, true, null))).containsExactly("b=22", "a=1");
            assertThat(keys(kv.scan(b("b"), null, false, null))).containsExactly("b=22");
            assertThat(keys(kv.scan(null, b("b"), true, null))).containsExactly("a=1");
        }
    }

    @Test
    void shouldKeepDataAcrossFlushCompactionAndReopen() {
        MemVfs vfs = new MemVfs();
        KvOptions options = small(vfs, 2);
        try (LsmStore kv = LsmStore.open(DIR, options)) {
            for (int i = 0; i < 3000; i++) {
                kv.put(b(String.format("k%05d", i)), b("v" + i));
            }
            for (int i = 0; i < 3000; i += 3) {
                kv.delete(b(String.format("k%05d", i)));
            }
            kv.flush();
            kv.compactRange(null, null);
            KvStats stats = kv.stats();
            assertThat(stats.flushes()).isGreaterThan(0);
            assertThat(stats.deletionsInFiles()).isZero();
        }
        try (LsmStore kv = LsmStore.open(DIR, options)) {
            assertThat(s(kv.get(b("k00001")))).isEqualTo("v1");
            assertThat(kv.get(b("k00003"))).isNull();
            assertThat(keys(kv.scan(null, null, false, null))).hasSize(2000);
            assertThat(keys(kv.scan(null, null, true, null))).hasSize(2000).first().isEqualTo("k02999=v2999");
        }
    }

    @Test
    void shouldReplayTheLogAfterACrash() {
        MemVfs vfs = new MemVfs();
        KvOptions options = small(vfs, 4).toBuilder().durability(Durability.SYNC).build();
        LsmStore kv = LsmStore.open(DIR, options);
        for (int i = 0; i < 500; i++) {
            kv.put(b("key" + i), b("value" + i));
        }
        MemVfs crashed = vfs.crashClone();
        kv.close();
        try (LsmStore recovered = LsmStore.open(DIR, options.toBuilder().vfs(crashed).build())) {
            for (int i = 0; i < 500; i++) {
                assertThat(s(recovered.get(b("key" + i)))).isEqualTo("value" + i);
            }
        }
    }

    @Test
    void shouldReadASnapshotWhileTheStoreMovesOn() {
        try (LsmStore kv = LsmStore.open(DIR, small(new MemVfs(), 1))) {
            kv.put(b("x"), b("old"));
            try (KvSnapshot snap = kv.snapshot()) {
                kv.put(b("x"), b("new"));
                kv.put(b("y"), b("only-new"));
                kv.flush();
                kv.compactRange(null, null);
                assertThat(s(kv.get(b("x"), snap))).isEqualTo("old");
                assertThat(kv.get(b("y"), snap)).isNull();
                assertThat(keys(kv.scan(null, null, false, snap))).containsExactly("x=old");
            }
            assertThat(s(kv.get(b("x")))).isEqualTo("new");
        }
    }

    @Test
    void shouldRefuseASecondOpenAndUseAfterClose(@TempDir Path tmp) {
        KvOptions options = KvOptions.builder().vfs(new NioVfs()).build();
        LsmStore kv = LsmStore.open(tmp, options);
        assertThatThrownBy(() -> LsmStore.open(tmp, options)).isInstanceOf(StorageIOException.class)
                .hasMessageContaining("locked");
        kv.put(b("a"), b("1"));
        kv.close();
        assertThatThrownBy(() -> kv.put(b("a"), b("2"))).isInstanceOf(DatabaseClosedException.class);
        try (LsmStore again = LsmStore.open(tmp, options)) {
            assertThat(s(again.get(b("a")))).isEqualTo("1");
        }
    }

    @Test
    void shouldStopEveryBackgroundThreadOnClose() {
        MemVfs vfs = new MemVfs();
        LsmStore kv = LsmStore.open(DIR, small(vfs, 4));
        for (int i = 0; i < 5000; i++) {
            kv.put(b("key" + i), b("value" + i)); // tiny memtables: flushes and compactions run
        }
        kv.write(new WriteBatch().put(b("late"), b("x")), Durability.batched(java.time.Duration.ofSeconds(1)));
        assertThat(kv.stats().flushes()).isGreaterThan(0);
        kv.close();
        assertThat(Thread.getAllStackTraces().keySet())
                .noneMatch(t -> t.isAlive() && t.getName().startsWith("lacuna-"));
    }

    @Test
    void shouldCountDeadEntriesAScanStepsOver() {
        try (LsmStore kv = LsmStore.open(DIR, small(new MemVfs(), 1))) {
            kv.put(b("a1"), b("x"));
            kv.put(b("a2"), b("x"));
            kv.put(b("a2"), b("y"));
            kv.delete(b("a1"));
            kv.put(b("a3"), b("z"));
            KvCursor c = kv.scan(b("a"), b("b"), false, null);
            List<String> seen = new ArrayList<>();
            for (; c.valid(); c.next()) {
                seen.add(s(c.key()));
            }
            // a2's older version is stepped over. a1's put and delete were the key's whole history and no
            // reader needed them any more, so the memtable purged both: they cost the scan nothing.
            assertThat(seen).containsExactly("a2", "a3");
            assertThat(c.deadEntriesSkipped()).isEqualTo(1);
            c.close();
            try (KvSnapshot pinned = kv.snapshot()) {
                kv.put(b("a4"), b("w"));
                kv.delete(b("a4"));
                kv.put(b("a5"), b("v"));
                kv.put(b("a6"), b("v"));
                try (KvCursor d = kv.scan(b("a4"), b("a5"), false, null)) {
                    assertThat(d.valid()).isFalse();
                    assertThat(d.deadEntriesSkipped()).as("a4 purged although a snapshot is open: it predates the put").isZero();
                }
            }
        }
    }

    @Test
    void shouldKeepADeadPairWhileASnapshotNeedsThePut() {
        try (LsmStore kv = LsmStore.open(DIR, small(new MemVfs(), 1))) {
            kv.put(b("b1"), b("old"));
            try (KvSnapshot snap = kv.snapshot()) {
                kv.delete(b("b1"));
                kv.put(b("b2"), b("x"));
                kv.put(b("b3"), b("x"));
                kv.put(b("b4"), b("x"));
                assertThat(s(kv.get(b("b1"), snap))).isEqualTo("old");
                try (KvCursor c = kv.scan(b("b1"), b("b2"), false, null)) {
                    assertThat(c.valid()).isFalse();
                    assertThat(c.deadEntriesSkipped()).isEqualTo(2);
                }
            }
        }
    }

    @Test
    void shouldRefuseAnotherPartitionCount() {
        MemVfs vfs = new MemVfs();
        LsmStore.open(DIR, small(vfs, 4)).close();
        // A LacunaException like every other refused open, not an IllegalArgumentException outside the hierarchy.
        assertThatThrownBy(() -> LsmStore.open(DIR, small(vfs, 8)))
                .isInstanceOf(dev.lacuna.storage.IncompatibleStoreException.class)
                .hasMessageContaining("4 partitions").hasMessageContaining("cannot be opened with 8");
    }
}
