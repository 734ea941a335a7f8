package dev.lacuna.lsm;

import static dev.lacuna.lsm.KvKeyspaceTest.bytes;
import static dev.lacuna.lsm.KvKeyspaceTest.key;
import static dev.lacuna.lsm.KvStoreTest.DIR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lacuna.kv.KvCursor;
import dev.lacuna.vfs.MemVfs;
import org.junit.jupiter.api.Test;

/**
 * A scan of a keyspace dropped while the scan is open closes cleanly. A scan that stepped over many dead
 * entries asks for its partitions to be flushed when it closes; it used to look the dropped partitions up and
 * throw NullPointerException from {@code close()}.
 */
class DroppedKeyspaceScanTest {

    @Test
    void shouldCloseAScanOfAKeyspaceDroppedUnderIt() {
        MemVfs vfs = new MemVfs();
        try (LsmStore kv = LsmStore.open(DIR, KvKeyspaceTest.options(vfs).toBuilder().deadEntryTrigger(10).build())) {
            int a = kv.createKeyspace(1, bytes("dropped")).id();
            int keep = kv.createKeyspace(1, bytes("kept")).id();
            for (int i = 0; i < 100; i++) {
                kv.put(key(a, "k" + (1000 + i)), bytes("v" + i));
            }
            kv.flush(); // the puts in a table, so their deletions below stay as dead entries
            for (int i = 0; i < 100; i++) {
                kv.delete(key(a, "k" + (1000 + i)));
            }
            KvCursor c = kv.scanPrefix(key(a, ""), null, null, false, null);
            while (c.valid()) {
                c.next();
            }
            assertThat(c.deadEntriesSkipped()).isGreaterThanOrEqualTo(10);
            kv.dropKeyspace(a);
            c.close();

            kv.put(key(keep, "still"), bytes("writable"));
            assertThat(kv.get(key(keep, "still"))).isEqualTo(bytes("writable"));
        }
    }
}
