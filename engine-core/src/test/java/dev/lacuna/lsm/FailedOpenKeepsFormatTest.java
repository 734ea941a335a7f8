package dev.lacuna.lsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.Database;
import dev.lacuna.DatabaseOptions;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.manifest.Manifest;
import dev.lacuna.manifest.VersionEdit;
import dev.lacuna.storage.CorruptionException;
import dev.lacuna.storage.Durability;
import dev.lacuna.storage.StorageIOException;
import dev.lacuna.vfs.FaultyVfs;
import dev.lacuna.vfs.MemVfs;
import dev.lacuna.wal.Wal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Review M3: an open that refuses the store after it has read the manifest (a log record replay cannot decode,
 * a table descriptor the catalog cannot read) must not leave a format 1 store marked with the current format.
 * The mark tells the older Lacuna to refuse the store; written by an open that never succeeded, it blocks a
 * rollback over a store that holds nothing the older Lacuna could not read.
 */
class FailedOpenKeepsFormatTest {
    private static final Path DIR = Path.of("/db");

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldLeaveAFormat1StoreUnmarkedWhenReplayRefusesTheLog() throws Exception {
        MemVfs vfs = new MemVfs();
        KvOptions options = KvOptions.builder().vfs(vfs).build();
        try (LsmStore kv = LsmStore.open(DIR, options)) {
            kv.put(b("k"), b("v"));
        }
        markFormat1(vfs, options.partitions(), LsmStore.OWNER_KV);
        // A record whose checksum holds but whose payload is no batch: the log recovers, replay refuses it.
        try (Wal wal = Wal.open(vfs, DIR.resolve(Recovery.WAL_DIR), options.wal())) {
            wal.append(new byte[] {99}, Durability.SYNC);
        }

        assertThatThrownBy(() -> LsmStore.open(DIR, options)).isInstanceOf(CorruptionException.class)
                .hasMessageContaining("not a key/value batch");

        assertThat(storedFormat(vfs)).as("the mark of a format 1 store whose open failed in replay").isEqualTo(1);
    }

    @Test
    void shouldLeaveAFormat1StoreUnmarkedWhenTheCatalogRefusesADescriptor() throws Exception {
        MemVfs vfs = new MemVfs();
        DatabaseOptions options = DatabaseOptions.builder().vfs(vfs).build();
        try (Database db = Database.open(DIR, options)) {
            // creates the catalog's own keyspace
        }
        KvOptions kvOptions = KvOptions.builder().vfs(vfs).partitions(1).build();
        try (LsmStore kv = LsmStore.open(DIR, kvOptions, LsmStore.OWNER_ITEMS)) {
            kv.createKeyspace(1, new byte[] {99, 0, 0}); // no descriptor version the catalog reads
        }
        markFormat1(vfs, 1, LsmStore.OWNER_ITEMS);

        assertThatThrownBy(() -> Database.open(DIR, options)).isInstanceOf(CorruptionException.class);

        assertThat(storedFormat(vfs)).as("the mark of a format 1 store whose catalog was refused").isEqualTo(1);
    }

    /**
     * The mark still precedes any version 2 record: if it cannot be written, the write fails before its record is
     * appended, so no store marked format 1 ever holds one.
     */
    @Test
    void shouldFailAWriteWhoseFormatMarkCannotBeWrittenBeforeLoggingIt() throws Exception {
        MemVfs mem = new MemVfs();
        try (LsmStore kv = LsmStore.open(DIR, KvOptions.builder().vfs(mem).build())) {
            kv.put(b("k"), b("v"));
        }
        markFormat1(mem, KvOptions.builder().build().partitions(), LsmStore.OWNER_KV);
        FaultyVfs faulty = new FaultyVfs(mem);
        try (LsmStore kv = LsmStore.open(DIR, KvOptions.builder().vfs(faulty).build())) {
            long logged = kv.loggedSequence();
            faulty.failFrom(FaultyVfs.Op.WRITE, 1); // the mark's manifest edit is the write's first I/O
            assertThatThrownBy(() -> kv.put(b("k2"), b("v2"))).isInstanceOf(StorageIOException.class)
                    .hasMessageContaining("directory format");
            assertThat(kv.loggedSequence()).as("nothing logged").isEqualTo(logged);
            faulty.heal();
        }
        try (LsmStore kv = LsmStore.open(DIR, KvOptions.builder().vfs(mem).build())) {
            assertThat(kv.get(b("k2"))).isNull();
            assertThat(kv.get(b("k"))).isEqualTo(b("v"));
        }
    }

    /** A table descriptor is of the current version too: its edit carries the mark. */
    @Test
    void shouldMarkTheCurrentFormatWithTheFirstKeyspaceDescriptor() throws Exception {
        MemVfs vfs = new MemVfs();
        KvOptions options = KvOptions.builder().vfs(vfs).build();
        try (LsmStore kv = LsmStore.open(DIR, options)) {
            kv.put(b("k"), b("v"));
        }
        markFormat1(vfs, options.partitions(), LsmStore.OWNER_KV);
        try (LsmStore kv = LsmStore.open(DIR, options)) {
            assertThat(storedFormat(vfs)).isEqualTo(1);
            kv.createKeyspace(1, b("descriptor"));
            assertThat(storedFormat(vfs)).isEqualTo(VersionSet.STORE_FORMAT);
        }
    }

    /** What the older Lacuna's mark looks like: the same store, marked format 1. */
    static void markFormat1(MemVfs vfs, int partitions, String owner) throws Exception {
        try (VersionSet set = VersionSet.open(vfs, DIR, partitions, 1 << 22, n -> { })) {
            set.startManifest();
            set.logAndApply(new VersionEdit().store(1, owner), 0);
        }
        assertThat(storedFormat(vfs)).as("the store as the older Lacuna marked it").isEqualTo(1);
    }

    /** The directory format of the manifest's last mark (tag 14). */
    static int storedFormat(MemVfs vfs) throws Exception {
        Integer format = null;
        for (VersionEdit e : Manifest.readCurrent(vfs, DIR).edits()) {
            if (e.storeFormat() != null) {
                format = e.storeFormat();
            }
        }
        assertThat(format).as("a directory format mark").isNotNull();
        return format;
    }
}
