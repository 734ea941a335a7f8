package dev.lacuna.lsm;

import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.WriteBatch;
import static dev.lacuna.lsm.KvKeyspaceTest.bytes;
import static dev.lacuna.lsm.KvKeyspaceTest.key;
import static dev.lacuna.lsm.KvKeyspaceTest.options;
import static dev.lacuna.lsm.KvStoreTest.DIR;
import static dev.lacuna.lsm.KvStoreTest.s;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.storage.Durability;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.storage.WalOptions;
import java.util.List;
import org.junit.jupiter.api.Test;

class KvLogConsumerTest {

    @Test
    void shouldLogLogOnlyOperationsWithoutApplyingThem() {
        MemVfs vfs = new MemVfs();
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            int base = kv.createKeyspace(1, bytes("base")).id();
            long first = kv.write(new WriteBatch().put(key(base, "a"), bytes("new")).logOnly(key(base, "a"), bytes("old"))
                    .logOnly(key(base, "a"), bytes("twice")), Durability.SYNC);
            assertThat(s(kv.get(key(base, "a")))).isEqualTo("new");
            try (KvLogReader log = kv.logReader(first)) {
                KvLogReader.Batch b = log.next();
                assertThat(b.lsn()).isEqualTo(first);
                assertThat(b.ops()).extracting(KvLogReader.Op::kind).containsExactly(KvLogReader.Kind.PUT,
                        KvLogReader.Kind.LOG_ONLY, KvLogReader.Kind.LOG_ONLY);
                assertThat(b.ops()).extracting(o -> s(o.value())).containsExactly("new", "old", "twice");
                assertThat(log.next()).isNull();
            }
        }
        try (LsmStore kv = LsmStore.open(DIR, options(vfs.crashClone()))) { // replay skips log-only operations
            int base = kv.keyspaces().get(0).id();
            assertThat(s(kv.get(key(base, "a")))).isEqualTo("new");
        }
    }

    @Test
    void shouldApplyUnloggedWritesVisiblyAndLoseThemInACrashUnlessFlushed() {
        MemVfs vfs = new MemVfs();
        int index;
        try (LsmStore kv = LsmStore.open(DIR, options(vfs))) {
            int base = kv.createKeyspace(1, bytes("base")).id();
            index = kv.createKeyspace(2, bytes("index")).id();
            long lsn = kv.write(new WriteBatch().put(key(base, "a"), bytes("1")), Durability.SYNC);
            kv.applyUnlogged(new WriteBatch().put(key(index, "x1"), bytes("from a")), lsn);
            assertThat(s(kv.get(key(index, "x1")))).isEqualTo("from a");
            assertThatThrownBy(() -> kv.applyUnlogged(new WriteBatch().put(key(index, "x2"), bytes("?")), lsn + 5))
                    .isInstanceOf(IllegalArgumentException.class);
            kv.flushKeyspace(index);
            long lsn2 = kv.write(new WriteBatch().put(key(base, "b"), bytes("2")), Durability.SYNC);
            kv.applyUnlogged(new WriteBatch().put(key(index, "x2"), bytes("from b")), lsn2);
        }
        try (LsmStore kv = LsmStore.open(DIR, options(vfs.crashClone()))) {
            assertThat(s(kv.get(key(index, "x1")))).isEqualTo("from a"); // flushed
            assertThat(kv.get(key(index, "x2"))).isNull();                   // only in the lost memtable
        }
    }

    @Test
    void shouldKeepLogRecordsAboveACheckpointAcrossFlushesAndReopen() {
        MemVfs vfs = new MemVfs();
        KvOptions small = options(vfs).toBuilder()
                .wal(WalOptions.defaults().withBlockSize(1024).withSegmentSize(4096).withPreallocate(0)).build();
        int base;
        try (LsmStore kv = LsmStore.open(DIR, small)) {
            base = kv.createKeyspace(1, bytes("base")).id();
            long first = kv.write(new WriteBatch().put(key(base, "k0"), bytes("v")), Durability.SYNC);
            kv.setLogCheckpoint("index-1", first - 1);
            for (int i = 1; i < 400; i++) {
                kv.put(key(base, "k" + i), bytes("value " + i));
            }
            kv.flush(); // would trim the whole log but for the checkpoint
            assertThat(kv.logCheckpoints()).containsEntry("index-1", first - 1);
            try (KvLogReader log = kv.logReader(first)) {
                assertThat(log.next().lsn()).isEqualTo(first);
            }
        }
        try (LsmStore kv = LsmStore.open(DIR, options(vfs.crashClone()).toBuilder()
                .wal(WalOptions.defaults().withBlockSize(1024).withSegmentSize(4096).withPreallocate(0)).build())) {
            assertThat(kv.logCheckpoints()).containsKey("index-1");
            long first = kv.logCheckpoints().get("index-1") + 1;
            kv.flush();
            try (KvLogReader log = kv.logReader(first)) {
                int n = 0;
                while (log.next() != null) {
                    n++;
                }
                assertThat(n).isEqualTo(400);
            }
            kv.removeLogCheckpoint("index-1");
            kv.put(key(base, "more"), bytes("x"));
            kv.flush();
            assertThatThrownBy(() -> kv.logReader(first)).isInstanceOf(IllegalArgumentException.class);
            assertThat(kv.logCheckpoints()).isEmpty();
            List<Keyspace> ks = kv.keyspaces();
            assertThat(ks).hasSize(1);
        }
    }
}
