package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvStoreTest.DIR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lacuna.kv.KvCursor;
import dev.lacuna.kv.KvOptions;
import dev.lacuna.vfs.MemVfs;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A scan whose first seek fails (it opens the deeper levels' tables, inside the UserIterator constructor) releases
 * its views and its read token: otherwise the tables they hold are never deleted and the memtables never purge a
 * put and its deletion again. The control run shows what the same store does without the failure.
 */
class ScanFailureReleaseTest {
    private static byte[] key(int i) {
        return String.format("k%05d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static int tableFiles(MemVfs vfs) throws Exception {
        int n = 0;
        for (String name : vfs.list(DIR)) {
            n += name.endsWith(".sst") ? 1 : 0;
        }
        return n;
    }

    private static long filesInVersion(LsmStore kv) {
        long n = 0;
        for (long f : kv.stats().filesPerLevel()) {
            n += f;
        }
        return n;
    }

    @Test
    void aScanFailingInItsFirstSeekReleasesItsViews() throws Exception {
        run(true);
    }

    @Test
    void controlWithoutTheFailure() throws Exception {
        run(false);
    }

    private void run(boolean fail) throws Exception {
        MemVfs mem = new MemVfs();
        KvOptions base = KvStoreTest.small(mem, 1);
        try (LsmStore kv = LsmStore.open(DIR, base)) {
            for (int i = 0; i < 2000; i++) {
                kv.put(key(i), key(i));
            }
            kv.compactRange(null, null); // everything below level 0
        }
        ControlledVfs vfs = new ControlledVfs(mem, "never");
        try (LsmStore kv = LsmStore.open(DIR, base.toBuilder().vfs(vfs).build())) {
            assertThat(tableFiles(mem)).isEqualTo(filesInVersion(kv));
            if (fail) {
                vfs.failOpens(".sst"); // e.g. EMFILE: a transient error
                assertThatThrownBy(() -> kv.scan(null, null, false, null).close())
                        .hasMessageContaining("Too many open files");
            }
            vfs.failOpens(null);
            try (KvCursor c = kv.scan(null, null, false, null)) { // works again
                assertThat(c.valid()).isTrue();
            }
            java.lang.reflect.Field dbField = LsmStore.class.getDeclaredField("db");
            dbField.setAccessible(true);
            Db db = (Db) dbField.get(kv);
            Memtable active = db.trees[0].mem();
            for (int i = 0; i < 300; i++) { // a queue's put and delete: purged from the memtable once no read needs them
                byte[] q = ("q" + i).getBytes(StandardCharsets.UTF_8);
                kv.put(q, q);
                kv.delete(q);
            }
            System.out.println("scan failure " + fail + ": purged pairs in the active memtable: " + active.purgedPairs());
            assertThat(active.purgedPairs()).as("put/delete pairs purged from the active memtable").isPositive();
            for (int i = 0; i < 2000; i++) {
                kv.put(key(i), key(i + 1)); // every old table is now garbage
            }
            kv.compactRange(null, null);
            System.out.println("scan failure " + fail + ": tables on disk: " + tableFiles(mem) + ", in the current version: "
                    + filesInVersion(kv));
            assertThat(tableFiles(mem)).as("table files on disk vs in the version").isEqualTo(filesInVersion(kv));
        }
    }
}
