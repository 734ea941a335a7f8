package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.AttributeValue;
import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.Item;
import dev.lacuna.Key;
import dev.lacuna.TableSpec;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.kv.KvStore;
import dev.lacuna.manifest.VersionEdit;
import dev.lacuna.storage.IncompatibleStoreException;
import dev.lacuna.vfs.MemVfs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A directory says what it holds: a byte-level store never opens as an empty item database or the
 * reverse, and a store marked with a newer directory format is refused, each with a clear error and the
 * directory left as it was.
 */
class StoreOwnerTest {
    private static final Path DIR = Path.of("/db");

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Every file under the store, with its bytes. */
    private static Map<String, byte[]> files(MemVfs vfs) throws Exception {
        Map<String, byte[]> out = new TreeMap<>();
        for (Path dir : new Path[] {DIR, DIR.resolve(Recovery.WAL_DIR)}) {
            for (String name : vfs.list(dir)) {
                Path p = dir.resolve(name);
                if (!name.equals(Recovery.WAL_DIR)) {
                    out.put(p.toString(), vfs.readAll(p));
                }
            }
        }
        return out;
    }

    private static void assertUnchanged(MemVfs vfs, Map<String, byte[]> before) throws Exception {
        Map<String, byte[]> after = files(vfs);
        assertThat(after.keySet()).isEqualTo(before.keySet());
        after.forEach((name, bytes) -> assertThat(bytes).as(name).isEqualTo(before.get(name)));
    }

    @Test
    void shouldRefuseToOpenAByteStoreAsADatabase() throws Exception {
        MemVfs vfs = new MemVfs();
        try (KvStore kv = KvStore.open(DIR, KvOptions.builder().vfs(vfs).build())) {
            kv.put(b("k"), b("v"));
        }
        Map<String, byte[]> before = files(vfs);
        assertThatThrownBy(() -> Database.open(DIR, DatabaseOptions.builder().vfs(vfs).build()))
                .isInstanceOf(IncompatibleStoreException.class)
                .hasMessageContaining("was made as a byte-level KvStore; it cannot be opened as an item Database");
        assertUnchanged(vfs, before);
        try (KvStore kv = KvStore.open(DIR, KvOptions.builder().vfs(vfs).build())) {
            assertThat(kv.get(b("k"))).isEqualTo(b("v"));
        }
    }

    @Test
    void shouldRefuseToOpenADatabaseAsAByteStore() throws Exception {
        MemVfs vfs = new MemVfs();
        try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(vfs).build())) {
            db.createTable(TableSpec.builder("things").partitionKey("pk", AttributeValue.Type.S).build());
            db.table("things").putItem(Item.builder().s("pk", "a").build());
        }
        Map<String, byte[]> before = files(vfs);
        assertThatThrownBy(() -> KvStore.open(DIR, KvOptions.builder().vfs(vfs).build()))
                .isInstanceOf(IncompatibleStoreException.class)
                .hasMessageContaining("was made as an item Database; it cannot be opened as a byte-level KvStore");
        assertUnchanged(vfs, before);
        try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(vfs).build())) {
            assertThat(db.table("things").getItem(Key.of("pk", AttributeValue.s("a")))).isPresent();
        }
    }

    @Test
    void shouldRefuseAStoreOfANewerDirectoryFormat() throws Exception {
        MemVfs vfs = new MemVfs();
        try (LsmStore kv = LsmStore.open(DIR, KvOptions.builder().vfs(vfs).build())) {
            kv.put(b("k"), b("v"));
        }
        // What a newer Lacuna would leave: the same store, marked with a higher format.
        vfs.mkdirs(DIR);
        try (VersionSet set = VersionSet.open(vfs, DIR, KvOptions.builder().build().partitions(), 1 << 22, n -> { })) {
            set.startManifest();
            set.logAndApply(new VersionEdit().store(VersionSet.STORE_FORMAT + 1, LsmStore.OWNER_KV), 0);
        }
        Map<String, byte[]> before = files(vfs);
        assertThatThrownBy(() -> LsmStore.open(DIR, KvOptions.builder().vfs(vfs).build()))
                .isInstanceOf(IncompatibleStoreException.class)
                .hasMessageContaining("directory format " + (VersionSet.STORE_FORMAT + 1) + ", written by a newer Lacuna");
        assertUnchanged(vfs, before);
    }

    @Test
    void shouldMarkAStoreMadeBeforeTheMarkForWhoeverOpensItFirst() throws Exception {
        MemVfs vfs = new MemVfs();
        vfs.mkdirs(DIR);
        int partitions = KvOptions.builder().build().partitions();
        try (VersionSet set = VersionSet.open(vfs, DIR, partitions, 1 << 22, n -> { })) {
            set.startManifest(); // a manifest without the mark, as every store had before it
        }
        try (Database db = Database.open(DIR, DatabaseOptions.builder().vfs(vfs).build())) {
            assertThat(db.listTables()).isEmpty();
        }
        assertThatThrownBy(() -> KvStore.open(DIR, KvOptions.builder().vfs(vfs).build()))
                .isInstanceOf(IncompatibleStoreException.class);
    }
}
